/* The part of wasm3 0.5.0's C API that tickretry_wasm3.c uses, declared as wasm3.h
 * documents it, for wasm3_shim.c. Not wasm3: see wasm3_shim.c for why this exists. */
#ifndef WASM3_SHIM_WASM3_H
#define WASM3_SHIM_WASM3_H

#include <stdint.h>

typedef const char *M3Result;
typedef struct M3Environment *IM3Environment;
typedef struct M3Runtime *IM3Runtime;
typedef struct M3Module *IM3Module;
typedef struct M3Function *IM3Function;

typedef struct M3ErrorInfo {
  M3Result result;
  IM3Runtime runtime;
  IM3Module module;
  IM3Function function;
  const char *file;
  uint32_t line;
  const char *message;
} M3ErrorInfo;

extern const M3Result m3Err_none;
extern const M3Result m3Err_mallocFailed;
extern const M3Result m3Err_functionLookupFailed;

#define M3_VERSION "0.5.0-shim"

IM3Environment m3_NewEnvironment(void);
void m3_FreeEnvironment(IM3Environment environment);
IM3Runtime m3_NewRuntime(IM3Environment environment, uint32_t stack_bytes, void *userdata);
void m3_FreeRuntime(IM3Runtime runtime);
M3Result m3_ParseModule(IM3Environment environment, IM3Module *module, const uint8_t *const bytes,
                        uint32_t length);
void m3_FreeModule(IM3Module module);
M3Result m3_LoadModule(IM3Runtime runtime, IM3Module module);
M3Result m3_FindFunction(IM3Function *function, IM3Runtime runtime, const char *const name);
M3Result m3_CallV(IM3Function function, ...);
M3Result m3_GetResultsV(IM3Function function, ...);
void m3_GetErrorInfo(IM3Runtime runtime, M3ErrorInfo *info);
uint8_t *m3_GetMemory(IM3Runtime runtime, uint32_t *size, uint32_t memory_index);

#endif
