/* Stand-in for ESP-IDF's esp_task_wdt.h (declarations only): IDF 4.4's esp_task_wdt_init takes
 * (timeout in seconds, panic); IDF 5 takes a config struct and adds esp_task_wdt_reconfigure,
 * since it starts the task watchdog itself. The sketch's compile test builds against both. */
#ifndef ESP_TASK_WDT_SHIM_H
#define ESP_TASK_WDT_SHIM_H
#include <stdbool.h>
#include <stdint.h>

#include "Arduino.h"
#include "esp_idf_version.h"
#include "esp_system.h"

#ifdef __cplusplus
extern "C" {
#endif

#if ESP_IDF_VERSION_MAJOR >= 5
typedef struct {
  uint32_t timeout_ms;
  uint32_t idle_core_mask;
  bool trigger_panic;
} esp_task_wdt_config_t;
esp_err_t esp_task_wdt_init(const esp_task_wdt_config_t *config);
esp_err_t esp_task_wdt_reconfigure(const esp_task_wdt_config_t *config);
#else
esp_err_t esp_task_wdt_init(uint32_t timeout, bool panic);
#endif
esp_err_t esp_task_wdt_add(TaskHandle_t task_handle);
esp_err_t esp_task_wdt_reset(void);
esp_err_t esp_task_wdt_delete(TaskHandle_t task_handle);

#ifdef __cplusplus
}
#endif
#endif
