/* Stand-in for ESP-IDF's esp_system.h (declarations only; see Arduino.h). */
#ifndef ESP_SYSTEM_SHIM_H
#define ESP_SYSTEM_SHIM_H
#include <stddef.h>
#include <stdint.h>
typedef enum { ESP_MAC_WIFI_STA, ESP_MAC_WIFI_SOFTAP } esp_mac_type_t;
typedef int esp_err_t;
#define ESP_OK 0
esp_err_t esp_read_mac(uint8_t *mac, esp_mac_type_t type);
uint32_t esp_random(void);
void esp_fill_random(void *buf, size_t len);
#endif
