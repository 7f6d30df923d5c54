/* Stand-in for ESP-IDF's esp_idf_version.h: 4 (IDF 4.4, arduino-esp32 core 2.x) unless the
 * build says otherwise; the sketch's compile test builds with 4 and with 5 (core 3.x). */
#ifndef ESP_IDF_VERSION_SHIM_H
#define ESP_IDF_VERSION_SHIM_H
#ifndef ESP_IDF_VERSION_MAJOR
#define ESP_IDF_VERSION_MAJOR 4
#endif
#endif
