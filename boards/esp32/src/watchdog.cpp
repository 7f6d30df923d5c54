// See watchdog.h.
#include "watchdog.h"

#include <Arduino.h>
#include <esp_idf_version.h>
#include <esp_system.h>
#include <esp_task_wdt.h>

RTC_NOINIT_ATTR static uint32_t trial;

static bool watchdog_reset(esp_reset_reason_t why) {
  return why == ESP_RST_TASK_WDT || why == ESP_RST_INT_WDT || why == ESP_RST_WDT || why == ESP_RST_PANIC;
}

bool watchdog_begin() {
  bool by_watchdog = watchdog_reset(esp_reset_reason());
#if ESP_IDF_VERSION_MAJOR >= 5
  // IDF 5 starts the watchdog itself (CONFIG_ESP_TASK_WDT_INIT), without a panic in
  // arduino-esp32's configuration: reconfigure it, or start it when the build did not.
  // Core 0's idle task stays watched, as both cores' defaults have it.
  const esp_task_wdt_config_t config = {WATCHDOG_TIMEOUT_S * 1000u, 1u << 0, true};
  if (esp_task_wdt_reconfigure(&config) != ESP_OK) esp_task_wdt_init(&config);
#else
  // IDF 4.4 reconfigures a running watchdog through init; panic = true makes it reset.
  esp_task_wdt_init(WATCHDOG_TIMEOUT_S, true);
#endif
  esp_task_wdt_add(nullptr);
  return by_watchdog;
}

void watchdog_feed() { esp_task_wdt_reset(); }

uint32_t *watchdog_trial_mark() { return &trial; }
