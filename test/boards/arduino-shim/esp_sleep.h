/* Stand-in for ESP-IDF's esp_sleep.h (declarations only; see Arduino.h). */
#ifndef ESP_SLEEP_SHIM_H
#define ESP_SLEEP_SHIM_H
#include <stdint.h>
typedef enum { ESP_SLEEP_WAKEUP_UNDEFINED, ESP_SLEEP_WAKEUP_TIMER } esp_sleep_wakeup_cause_t;
esp_sleep_wakeup_cause_t esp_sleep_get_wakeup_cause(void);
int esp_sleep_enable_timer_wakeup(uint64_t time_in_us);
[[noreturn]] void esp_deep_sleep_start(void);
#endif
