/* tickretry.h over the module compiled ahead of time by wasm2c: no interpreter, no
 * parsing at boot, native speed; the module is fixed at build time. boards/README.md
 * gives the build commands.
 *
 * Build inputs:
 *   tickretry_w2c.c/.h  `wasm2c host/library/build/tickretry.wasm -n tickretry -o tickretry_w2c.c`,
 *                       generated, never committed; wabt 1.0.32 names the exports
 *                       Z_tickretryZ_<export>, which TICKRETRY_EXPORTS (tickretry_abi.h)
 *                       supplies;
 *   wasm-rt-impl.c      the runtime that ships with that wasm2c;
 *   -DWASM_RT_MEMCHECK_SIGNAL_HANDLER=0 on every file: bounds checks in code instead of
 *   guard pages, as a microcontroller has no MMU to reserve 8 GiB of address space with.
 *   32-bit targets get this by default; on a 64-bit PC wasm2c's default is guard pages,
 *   which this file refuses at compile time, so a PC runs the code boards run.
 *
 * The backend owns wasm2c's runtime: tickretry_open calls wasm_rt_init and
 * tickretry_close calls wasm_rt_free, so a firmware that runs another wasm2c module
 * beside this one must not close the scheduler while that module is in use.
 *
 * The module declares one memory page (64 KiB, the smallest a wasm memory can be), which
 * the runtime calloc's at instantiation. All of the module's state lives below byte
 * TICKRETRY_LIMIT_MEMORY_LIMIT, so open shrinks that block to the limit, as wasm3's
 * memoryLimit does: the bounds checks wasm2c compiles in read memory->size, so an access
 * beyond the limit traps (and fails the engine) instead of touching the heap.
 */
/* Arduino and ESP-IDF compile every source of this folder, so one macro picks the
 * backend: this file is empty unless TICKRETRY_BACKEND_WASM2C is set. */
#if TICKRETRY_BACKEND_WASM2C

#include "tickretry.h"

#include <stdlib.h>

#include "tickretry_backend.h"
#include "tickretry_w2c.h"
#include "wasm-rt-impl.h"

#if WASM_RT_MEMCHECK_SIGNAL_HANDLER
#error "tickretry_wasm2c.c: build every file with -DWASM_RT_MEMCHECK_SIGNAL_HANDLER=0"
#endif

static Z_tickretry_instance_t instance;
static int opened;

static bool fail(const char *function, const char *call, const char *why) {
  return tickretry_fail("tickretry_wasm2c", function, call, why, NULL);
}

/* Calls an export under a trap guard (the wasm2c embedder's wasm_rt_impl_try): a trap
 * longjmps back here, is recorded with the name of the API function, and every call
 * from then on returns the failure value without touching the instance. */
#define DEFINE_CALL(type, name, export, arity, params, args)                   \
  type tickretry_##name params {                                               \
    if (!opened || tickretry_failed()) return TICKRETRY_FAILED_##type;         \
    wasm_rt_trap_t trap = wasm_rt_impl_try();                                  \
    if (trap != WASM_RT_TRAP_NONE) {                                           \
      fail(__func__, "Z_tickretryZ_" #export, wasm_rt_strerror(trap));         \
      return TICKRETRY_FAILED_##type;                                          \
    }                                                                          \
    return (type)Z_tickretryZ_##export(&instance TICKRETRY_UNWRAP args);       \
  }
TICKRETRY_EXPORTS(DEFINE_CALL)

uint8_t *tickretry_module_memory(uint32_t *size) {
  if (!opened || tickretry_failed()) return NULL;
  wasm_rt_memory_t *memory = Z_tickretryZ_memory(&instance);
  *size = memory->size;
  return memory->data;
}

int32_t tickretry_open(void) {
  if (opened) return tickretry_failed() ? TICKRETRY_ENGINE_FAILED : TICKRETRY_RESULT_OK;
  wasm_rt_init();
  Z_tickretry_init_module();
  Z_tickretry_instantiate(&instance);
  opened = 1;
  wasm_rt_memory_t *memory = Z_tickretryZ_memory(&instance);
  uint8_t *limited = memory->data ? realloc(memory->data, TICKRETRY_LIMIT_MEMORY_LIMIT) : NULL;
  if (limited == NULL) {
    fail(__func__, "realloc()", "no heap for the module's memory");
    return TICKRETRY_ENGINE_FAILED;
  }
  memory->data = limited;
  memory->size = TICKRETRY_LIMIT_MEMORY_LIMIT;
  if (tickretry_abi_version() != TICKRETRY_ABI_VERSION) {
    fail(__func__, "abiVersion()", "module ABI version differs from tickretry_abi.h");
  }
  return tickretry_failed() ? TICKRETRY_ENGINE_FAILED : TICKRETRY_RESULT_OK;
}

void tickretry_close(void) {
  if (opened) {
    Z_tickretry_free(&instance);
    wasm_rt_free();
  }
  opened = 0;
  tickretry_failure_clear();
}

#endif
