/* tickretry.h over the module compiled ahead of time by wasm2c: no interpreter, no
 * parsing at boot, native speed; the module is fixed at build time.
 *
 * Build inputs (see boards/test/Makefile and boards/esp32/scripts/wasm2c.py):
 *   tickretry_w2c.c/.h  `wasm2c build/tickretry.wasm -n tickretry -o tickretry_w2c.c`,
 *                       generated into build/, never committed; the names below
 *                       (Z_tickretryZ_<export>) are wabt 1.0.32's;
 *   wasm-rt-impl.c      the runtime that ships with that wasm2c (/usr/share/wabt/wasm2c);
 *   -DWASM_RT_MEMCHECK_SIGNAL_HANDLER=0 on every file: bounds checks in code instead of
 *   guard pages, as a microcontroller has no MMU to reserve 8 GiB of address space with.
 *   32-bit targets get this by default; 64-bit hosts are set the same way so that the
 *   tests run the code boards run.
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

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "tickretry_w2c.h"
#include "wasm-rt-impl.h"

static Z_tickretry_instance_t instance;
static int opened;
static char failure[96];

/* Appends text to failure, always leaving it terminated. */
static void append(const char *text) {
  size_t n = strlen(failure);
  while (*text && n + 1 < sizeof failure) failure[n++] = *text++;
  failure[n] = '\0';
}

/* Records the first failure only: later calls return early and cannot add another. */
static void fail(const char *where, const char *why) {
  if (failure[0]) return;
  append("tickretry_wasm2c: ");
  append(where);
  append(": ");
  append(why);
}

/* Calls an export under a trap guard (the wasm2c embedder's wasm_rt_impl_try): a trap
 * longjmps back here, is recorded with the name of the API function, and every call
 * from then on returns `failed` without touching the instance. */
#define CALL(failed, call)                                       \
  do {                                                           \
    if (!opened || failure[0]) return (failed);                  \
    wasm_rt_trap_t trap = wasm_rt_impl_try();                    \
    if (trap != WASM_RT_TRAP_NONE) {                             \
      fail(__func__, wasm_rt_strerror(trap));                    \
      return (failed);                                           \
    }                                                            \
    return (call);                                               \
  } while (0)

#define CALL_I32(call) CALL(TICKRETRY_ENGINE_FAILED, (int32_t)(call))
#define CALL_U32(call) CALL(0u, (uint32_t)(call))

int32_t tickretry_open(void) {
  if (opened) return failure[0] ? TICKRETRY_ENGINE_FAILED : TICKRETRY_RESULT_OK;
  wasm_rt_init();
  Z_tickretry_init_module();
  Z_tickretry_instantiate(&instance);
  opened = 1;
  wasm_rt_memory_t *memory = Z_tickretryZ_memory(&instance);
  uint8_t *limited = memory->data ? realloc(memory->data, TICKRETRY_LIMIT_MEMORY_LIMIT) : NULL;
  if (limited == NULL) {
    fail(__func__, "no heap for the module's memory");
    return TICKRETRY_ENGINE_FAILED;
  }
  memory->data = limited;
  memory->size = TICKRETRY_LIMIT_MEMORY_LIMIT;
  if (tickretry_abi_version() != TICKRETRY_ABI_VERSION) {
    fail(__func__, "module ABI version differs from tickretry_abi.h");
  }
  return failure[0] ? TICKRETRY_ENGINE_FAILED : TICKRETRY_RESULT_OK;
}

void tickretry_close(void) {
  if (!opened) return;
  Z_tickretry_free(&instance);
  opened = 0;
  failure[0] = '\0';
}

const char *tickretry_error(void) { return failure[0] ? failure : NULL; }

int32_t tickretry_init(uint32_t seed_lo, uint32_t seed_hi) {
  CALL_I32(Z_tickretryZ_init(&instance, seed_lo, seed_hi));
}

int32_t tickretry_set_policy(uint32_t id, const tickretry_policy *p) {
  CALL_I32(Z_tickretryZ_setPolicy(&instance, id, p->max_attempts, p->attempt_timeout, p->base_delay,
                                  p->max_delay, p->throttle_base_delay, p->deadline, p->flags));
}

int32_t tickretry_set_budget(const tickretry_budget *b) {
  CALL_I32(Z_tickretryZ_setBudget(&instance, b->capacity, b->initial, b->retry_cost,
                                  b->timeout_retry_cost, b->threshold, b->failure_cost,
                                  b->first_attempt_deposit, b->success_deposit, b->flags));
}

int32_t tickretry_begin(uint32_t policy, uint32_t now) {
  CALL_I32(Z_tickretryZ_begin(&instance, policy, now));
}

int32_t tickretry_poll(uint32_t now) { CALL_I32(Z_tickretryZ_poll(&instance, now)); }

int32_t tickretry_report(int32_t handle, int32_t attempt, int32_t outcome, uint32_t retry_after,
                         uint32_t now) {
  CALL_I32(Z_tickretryZ_report(&instance, (uint32_t)handle, (uint32_t)attempt, (uint32_t)outcome,
                               retry_after, now));
}

int32_t tickretry_cancel(int32_t handle, uint32_t now) {
  CALL_I32(Z_tickretryZ_cancel(&instance, (uint32_t)handle, now));
}

int32_t tickretry_release(int32_t handle) {
  CALL_I32(Z_tickretryZ_release(&instance, (uint32_t)handle));
}

uint32_t tickretry_next_due(uint32_t now) { CALL_U32(Z_tickretryZ_nextDue(&instance, now)); }

int32_t tickretry_state(int32_t handle) {
  CALL_I32(Z_tickretryZ_state(&instance, (uint32_t)handle));
}

int32_t tickretry_attempt(int32_t handle) {
  CALL_I32(Z_tickretryZ_attempt(&instance, (uint32_t)handle));
}

int32_t tickretry_end_reason(int32_t handle) {
  CALL_I32(Z_tickretryZ_endReason(&instance, (uint32_t)handle));
}

int32_t tickretry_last_outcome(int32_t handle) {
  CALL_I32(Z_tickretryZ_lastOutcome(&instance, (uint32_t)handle));
}

int32_t tickretry_operation_id(int32_t handle) {
  CALL_I32(Z_tickretryZ_operationId(&instance, (uint32_t)handle));
}

int32_t tickretry_op_flags(int32_t handle) {
  CALL_I32(Z_tickretryZ_opFlags(&instance, (uint32_t)handle));
}

uint32_t tickretry_next_attempt_at(int32_t handle) {
  CALL_U32(Z_tickretryZ_nextAttemptAt(&instance, (uint32_t)handle));
}

uint32_t tickretry_attempt_deadline(int32_t handle) {
  CALL_U32(Z_tickretryZ_attemptDeadline(&instance, (uint32_t)handle));
}

uint32_t tickretry_deadline(int32_t handle) {
  CALL_U32(Z_tickretryZ_deadline(&instance, (uint32_t)handle));
}

int32_t tickretry_worst_case(uint32_t policy) {
  CALL_I32(Z_tickretryZ_worstCase(&instance, policy));
}

int32_t tickretry_classify_http(int32_t status, int32_t has_retry_after) {
  CALL_I32(Z_tickretryZ_classifyHttp(&instance, (uint32_t)status, (uint32_t)has_retry_after));
}

int32_t tickretry_counter(uint32_t id) { CALL_I32(Z_tickretryZ_counter(&instance, id)); }

int32_t tickretry_tokens(void) { CALL_I32(Z_tickretryZ_tokens(&instance)); }

int32_t tickretry_abi_version(void) { CALL_I32(Z_tickretryZ_abiVersion(&instance)); }

#endif
