/* A stand-in for the wasm3 interpreter, so that the test run (which builds no wasm3)
 * compiles tickretry_wasm3.c with -Werror and drives it through the differential
 * scenarios: each m3_* call is answered by the wasm2c-compiled module, found by export
 * name, with the linear memory cut to memoryLimit as wasm3 does. It checks what
 * tickretry_wasm3.c must get right: the bytes it loads, the export names, the argument
 * count and order (from the same generated export list), memoryLimit set before
 * m3_LoadModule, every result read once. It proves nothing about wasm3 itself; README.md
 * says how the backend was run against wasm3 0.5.0.
 * TICKRETRY_SHIM_MISSING=<export> makes m3_FindFunction fail for that name, so that the
 * test sees how a failure is reported. A trap comes back as the call's M3Result, as wasm3
 * returns it. Built with TICKRETRY_SHIM_TRAP_MODULE (the application on this machine,
 * test/boards/app_host/), it also runs the differential's trapping module, compiled by
 * wasm2c as `trap` and known by its bytes' SHA-256 (test_modules.h): the host's stand-in
 * for a board that interprets any bytes it is sent. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "m3_env.h"
#include "generated/tickretry_abi.h"
#include "generated/tickretry_module.h"
#include "tickretry_w2c.h"
#include "wasm-rt-impl.h"
#if TICKRETRY_SHIM_TRAP_MODULE
#include <sodium.h>

#include "test_modules.h"
#include "trap_w2c.h"
#endif

const M3Result m3Err_none = NULL;
const M3Result m3Err_mallocFailed = "memory allocation failed";
const M3Result m3Err_functionLookupFailed = "function lookup failed";

struct M3Environment {
  int unused;
};

struct M3Module {
  Z_tickretry_instance_t instance;
#if TICKRETRY_SHIM_TRAP_MODULE
  int trap; /* the trapping module's instance runs instead */
  Z_trap_instance_t trap_instance;
#endif
};

/* An export, its parameter count, and the result of its last call until it is read. */
struct M3Function {
  const char *name;
  uint32_t arity;
  uint32_t result;
  int unread;
};

/* The exports, from the generated list in tickretry_abi.h. */
#define EXPORT_ID(type, name, export, arity, params, args) EX_##name,
enum { TICKRETRY_EXPORTS(EXPORT_ID) EXPORT_COUNT };

#define EXPORT_ENTRY(type, name, export, arity, params, args) [EX_##name] = {#export, arity, 0, 0},
static struct M3Function exports[EXPORT_COUNT] = {TICKRETRY_EXPORTS(EXPORT_ENTRY)};

static IM3Runtime loaded_runtime; /* the runtime whose module the exports call */

/* The module's instance made; its memory. */
static wasm_rt_memory_t *instantiate(IM3Module module) {
#if TICKRETRY_SHIM_TRAP_MODULE
  if (module->trap) {
    Z_trap_init_module();
    Z_trap_instantiate(&module->trap_instance);
    return Z_trapZ_memory(&module->trap_instance);
  }
#endif
  Z_tickretry_init_module();
  Z_tickretry_instantiate(&module->instance);
  return Z_tickretryZ_memory(&module->instance);
}

static wasm_rt_memory_t *memory_of(IM3Module module) {
#if TICKRETRY_SHIM_TRAP_MODULE
  if (module->trap) return Z_trapZ_memory(&module->trap_instance);
#endif
  return Z_tickretryZ_memory(&module->instance);
}

IM3Environment m3_NewEnvironment(void) { return calloc(1, sizeof(struct M3Environment)); }

void m3_FreeEnvironment(IM3Environment environment) { free(environment); }

IM3Runtime m3_NewRuntime(IM3Environment environment, uint32_t stack_bytes, void *userdata) {
  (void)userdata;
  return environment && stack_bytes ? calloc(1, sizeof(struct M3Runtime)) : NULL;
}

void m3_FreeRuntime(IM3Runtime runtime) {
  if (!runtime) return;
  if (runtime->module) {
#if TICKRETRY_SHIM_TRAP_MODULE
    if (runtime->module->trap) Z_trap_free(&runtime->module->trap_instance);
    else
#endif
      Z_tickretry_free(&runtime->module->instance);
    free(runtime->module);
    wasm_rt_free();
  }
  if (loaded_runtime == runtime) loaded_runtime = NULL;
  free(runtime);
}

M3Result m3_ParseModule(IM3Environment environment, IM3Module *module, const uint8_t *const bytes,
                        uint32_t length) {
  (void)environment;
  int trap = 0;
#if TICKRETRY_SHIM_TRAP_MODULE
  uint8_t hash[crypto_hash_sha256_BYTES];
  crypto_hash_sha256(hash, bytes, length);
  trap = memcmp(hash, test_trap_module_sha256, sizeof hash) == 0;
#endif
  if (!trap && (length != sizeof tickretry_wasm || memcmp(bytes, tickretry_wasm, length) != 0)) {
    return "shim: not a module compiled into this build (it runs only those)";
  }
  *module = calloc(1, sizeof(struct M3Module));
  if (!*module) return m3Err_mallocFailed;
#if TICKRETRY_SHIM_TRAP_MODULE
  (*module)->trap = trap;
#endif
  return m3Err_none;
}

void m3_FreeModule(IM3Module module) { free(module); }

M3Result m3_LoadModule(IM3Runtime runtime, IM3Module module) {
  runtime->memoryLimitAtLoad = runtime->memoryLimit;
  if (runtime->memoryLimit == 0) return "shim: memoryLimit was not set before m3_LoadModule";
  wasm_rt_init();
  wasm_rt_memory_t *memory = instantiate(module);
  /* wasm3 allocates memoryLimit bytes of linear memory, not the declared page. */
  uint8_t *limited = realloc(memory->data, runtime->memoryLimit);
  if (!limited) return m3Err_mallocFailed;
  memory->data = limited;
  memory->size = runtime->memoryLimit;
  runtime->module = module;
  loaded_runtime = runtime;
  return m3Err_none;
}

M3Result m3_FindFunction(IM3Function *function, IM3Runtime runtime, const char *const name) {
  const char *missing = getenv("TICKRETRY_SHIM_MISSING");
  *function = NULL;
  if (runtime != loaded_runtime) return "shim: no module loaded in this runtime";
  for (int i = 0; i < EXPORT_COUNT; i++) {
    if (strcmp(exports[i].name, name) != 0) continue;
    if (missing && strcmp(missing, name) == 0) break;
    *function = &exports[i];
    return m3Err_none;
  }
  return m3Err_functionLookupFailed;
}

M3Result m3_CallV(IM3Function function, ...) {
  uint32_t a[TICKRETRY_ARITY_MAX] = {0};
  va_list args;
  va_start(args, function);
  for (uint32_t i = 0; i < function->arity; i++) a[i] = va_arg(args, uint32_t);
  va_end(args);
  if (function->unread) return "shim: the previous result was never read";
  IM3Module module = loaded_runtime->module;
  Z_tickretry_instance_t *m = &module->instance;
  uint32_t r = 0;
  wasm_rt_trap_t trap = wasm_rt_impl_try();
  if (trap == WASM_RT_TRAP_UNREACHABLE) return "[trap] unreachable executed";
  if (trap != WASM_RT_TRAP_NONE) return wasm_rt_strerror(trap);
#if TICKRETRY_SHIM_TRAP_MODULE
#define CALL_TRAP(type, name, export, arity, params, args) \
  case EX_##name: r = Z_trapZ_##export(&module->trap_instance TICKRETRY_ARRAY_ARGS_##arity(a)); break;
  if (module->trap) switch (function - exports) { TICKRETRY_EXPORTS(CALL_TRAP) }
  else
#endif
#define CALL_EXPORT(type, name, export, arity, params, args) \
  case EX_##name: r = Z_tickretryZ_##export(m TICKRETRY_ARRAY_ARGS_##arity(a)); break;
  switch (function - exports) { TICKRETRY_EXPORTS(CALL_EXPORT) }
  function->result = r;
  function->unread = 1;
  return m3Err_none;
}

M3Result m3_GetResultsV(IM3Function function, ...) {
  if (!function->unread) return "shim: no result to read";
  va_list args;
  va_start(args, function);
  *va_arg(args, uint32_t *) = function->result;
  va_end(args);
  function->unread = 0;
  return m3Err_none;
}

void m3_GetErrorInfo(IM3Runtime runtime, M3ErrorInfo *info) {
  memset(info, 0, sizeof *info);
  info->runtime = runtime;
}

uint8_t *m3_GetMemory(IM3Runtime runtime, uint32_t *size, uint32_t memory_index) {
  if (!runtime || !runtime->module || memory_index != 0) return NULL;
  wasm_rt_memory_t *memory = memory_of(runtime->module);
  *size = memory->size;
  return memory->data;
}
