/* Stand-in for mbedTLS 3.6's mbedtls/build_info.h (ESP-IDF 5.3 and later ship 3.6): its version
 * numbers and its inclusion of the configuration file named by MBEDTLS_CONFIG_FILE, which
 * ESP-IDF sets to mbedtls/esp_config.h. Declarations only. */
#ifndef MBEDTLS_BUILD_INFO_H
#define MBEDTLS_BUILD_INFO_H

#define MBEDTLS_VERSION_MAJOR 3
#define MBEDTLS_VERSION_MINOR 6
#define MBEDTLS_VERSION_PATCH 0
#define MBEDTLS_VERSION_NUMBER 0x03060000
#define MBEDTLS_VERSION_STRING "3.6.0"

#if defined(MBEDTLS_CONFIG_FILE)
#include MBEDTLS_CONFIG_FILE
#endif

#define MBEDTLS_PRIVATE(member) private_##member
#define MBEDTLS_CHECK_RETURN_TYPICAL
#define MBEDTLS_DEPRECATED __attribute__((deprecated))

#endif
