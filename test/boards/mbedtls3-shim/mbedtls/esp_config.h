/* Stand-in for ESP-IDF 5's components/mbedtls/port/include/mbedtls/esp_config.h: the options
 * the application's files depend on. Like the real file, it ends by defining
 * MBEDTLS_DEPRECATED_REMOVED, which takes mbedTLS 3's deprecated functions out of its headers. */
#ifndef ESP_CONFIG_H
#define ESP_CONFIG_H

#define MBEDTLS_MD_C
#define MBEDTLS_PKCS5_C
#define MBEDTLS_SHA256_C

#define MBEDTLS_DEPRECATED_REMOVED

#endif
