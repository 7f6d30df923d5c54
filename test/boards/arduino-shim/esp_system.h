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
/* Why the chip last reset: IDF 4.4's and 5.1's enumerators, in their order. */
typedef enum {
  ESP_RST_UNKNOWN,
  ESP_RST_POWERON,
  ESP_RST_EXT,
  ESP_RST_SW,
  ESP_RST_PANIC,
  ESP_RST_INT_WDT,
  ESP_RST_TASK_WDT,
  ESP_RST_WDT,
  ESP_RST_DEEPSLEEP,
  ESP_RST_BROWNOUT,
  ESP_RST_SDIO,
} esp_reset_reason_t;
esp_reset_reason_t esp_reset_reason(void);
#endif
