/* The C API over build/tickretry.wasm, the one scheduler module every board runs.
 *
 * Each function calls the export of the same name (docs/ABI.md is the contract: argument
 * order, checks, result codes); the constants are the generated ones in tickretry_abi.h.
 * Two backends implement this header, and a firmware links exactly one:
 *   tickretry_wasm3.c   the embedded module interpreted by wasm3 (replaceable over the air);
 *   tickretry_wasm2c.c  the same module compiled ahead of time by wasm2c (native speed).
 *
 * There is one scheduler per firmware, so the backend holds a single instance: open it
 * once, then call tickretry_init. Every call returns the export's result, except when the
 * engine itself failed (a wasm3 error or a trap, which the module never causes by design):
 * then that call and every later one return TICKRETRY_ENGINE_FAILED (0 from the u32
 * exports) and tickretry_error() says where it failed.
 */
#ifndef TICKRETRY_H
#define TICKRETRY_H

#include <stdint.h>

#include "tickretry_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Returned by every call once the engine has failed; below every module error code. */
#define TICKRETRY_ENGINE_FAILED (-100)

/* One retry policy; see "Policies" in docs/ABI.md. Spans are in ticks. */
typedef struct tickretry_policy {
  uint32_t max_attempts;        /* counts the first attempt, 1 to 255 */
  uint32_t attempt_timeout;     /* an attempt not reported by then fails TIMEOUT */
  uint32_t base_delay;          /* ceiling of the first retry's wait */
  uint32_t max_delay;           /* cap of every wait */
  uint32_t throttle_base_delay; /* base after THROTTLED; 0: Retry-After only */
  uint32_t deadline;            /* from begin; 0: none */
  uint32_t flags;               /* TICKRETRY_JITTER_* | TICKRETRY_POLICY_FLAG_IDEMPOTENT */
} tickretry_policy;

/* The device-wide retry budget in milli-tokens; see "Retry budget" in docs/ABI.md. */
typedef struct tickretry_budget {
  uint32_t capacity; /* 0 turns the budget off */
  uint32_t initial;
  uint32_t retry_cost;
  uint32_t timeout_retry_cost;
  uint32_t threshold;
  uint32_t failure_cost;
  uint32_t first_attempt_deposit;
  uint32_t success_deposit;
  uint32_t flags; /* TICKRETRY_BUDGET_FLAG_REFUND_ON_SUCCESS */
} tickretry_budget;

/* Loads the module and checks its ABI version; 0 on success, TICKRETRY_ENGINE_FAILED
 * otherwise. Calling it again after success does nothing. */
int32_t tickretry_open(void);
/* Frees what tickretry_open allocated; tickretry_open may follow. */
void tickretry_close(void);
/* Where the engine failed, or NULL while it has not. */
const char *tickretry_error(void);

int32_t tickretry_init(uint32_t seed_lo, uint32_t seed_hi);
int32_t tickretry_set_policy(uint32_t id, const tickretry_policy *policy);
int32_t tickretry_set_budget(const tickretry_budget *budget);

int32_t tickretry_begin(uint32_t policy, uint32_t now);
int32_t tickretry_poll(uint32_t now);
int32_t tickretry_report(int32_t handle, int32_t attempt, int32_t outcome, uint32_t retry_after,
                         uint32_t now);
int32_t tickretry_cancel(int32_t handle, uint32_t now);
int32_t tickretry_release(int32_t handle);
uint32_t tickretry_next_due(uint32_t now);

int32_t tickretry_state(int32_t handle);
int32_t tickretry_attempt(int32_t handle);
int32_t tickretry_end_reason(int32_t handle);
int32_t tickretry_last_outcome(int32_t handle);
int32_t tickretry_operation_id(int32_t handle);
int32_t tickretry_op_flags(int32_t handle);
uint32_t tickretry_next_attempt_at(int32_t handle);
uint32_t tickretry_attempt_deadline(int32_t handle);
uint32_t tickretry_deadline(int32_t handle);

int32_t tickretry_worst_case(uint32_t policy);
int32_t tickretry_classify_http(int32_t status, int32_t has_retry_after);
int32_t tickretry_counter(uint32_t id);
int32_t tickretry_tokens(void);
int32_t tickretry_abi_version(void);

#ifdef __cplusplus
}
#endif

#endif
