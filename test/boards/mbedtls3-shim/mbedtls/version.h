/* Stand-in for mbedTLS 3's mbedtls/version.h: the version numbers come from build_info.h. */
#ifndef MBEDTLS_VERSION_H
#define MBEDTLS_VERSION_H
#include "mbedtls/build_info.h"
#endif
