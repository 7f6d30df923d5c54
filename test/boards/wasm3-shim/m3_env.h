/* The one field of wasm3's runtime that tickretry_wasm3.c sets (as wasm3's Arduino
 * examples do through m3_env.h), for wasm3_shim.c. Not wasm3. */
#ifndef WASM3_SHIM_M3_ENV_H
#define WASM3_SHIM_M3_ENV_H

#include "wasm3.h"

struct M3Runtime {
  uint32_t memoryLimit;
  uint32_t memoryLimitAtLoad; /* what m3_LoadModule saw: the shim's check of the order */
  IM3Module module;
  const char *error;
};

#endif
