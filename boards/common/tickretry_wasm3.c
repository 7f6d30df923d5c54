/* tickretry.h over the embedded module interpreted by wasm3 (the PlatformIO/Arduino
 * library `Wasm3`, pinned to 0.5.0): the module is data, so a board can replace it over
 * the air (tickretry_wasm3.h).
 *
 * NOT BUILT AGAINST WASM3 IN THIS REPOSITORY'S TESTS: wasm3 is not installed on the
 * machines that run them. The file is written against wasm3 0.5.0's documented C API only
 * (wasm3.h: m3_NewEnvironment, m3_NewRuntime, m3_ParseModule, m3_LoadModule,
 * m3_FindFunction, m3_CallV, m3_GetResultsV, m3_GetErrorInfo) plus the runtime's
 * memoryLimit field, which the library's own Arduino examples set through m3_env.h. The
 * tests compile it with -Werror against boards/test/wasm3-shim, which declares that API
 * and answers it with the wasm2c-compiled module, and require the same trace as V8's:
 * that checks this file's export names, argument order and error reporting, and nothing
 * about wasm3 itself.
 */
/* The default backend. Arduino and ESP-IDF compile every source of this folder, so one
 * macro picks the backend: this file is empty when TICKRETRY_BACKEND_WASM2C is set. */
#if !TICKRETRY_BACKEND_WASM2C

#include "tickretry_wasm3.h"

#include <stdbool.h>
#include <string.h>

#include <m3_env.h>
#include <wasm3.h>

#include "tickretry_module.h"

/* Configuration. The interpreter's value stack: the module's deepest call chain holds a
 * few dozen i32 slots, so 2 KiB leaves ample room while costing little heap. */
#ifndef TICKRETRY_WASM3_STACK_BYTES
#define TICKRETRY_WASM3_STACK_BYTES 2048
#endif

/* Every export, found once at open and called through the cached IM3Function. */
enum export_id {
  EX_INIT,
  EX_SET_POLICY,
  EX_SET_BUDGET,
  EX_BEGIN,
  EX_POLL,
  EX_REPORT,
  EX_CANCEL,
  EX_RELEASE,
  EX_NEXT_DUE,
  EX_STATE,
  EX_ATTEMPT,
  EX_END_REASON,
  EX_LAST_OUTCOME,
  EX_OPERATION_ID,
  EX_OP_FLAGS,
  EX_NEXT_ATTEMPT_AT,
  EX_ATTEMPT_DEADLINE,
  EX_DEADLINE,
  EX_WORST_CASE,
  EX_CLASSIFY_HTTP,
  EX_COUNTER,
  EX_TOKENS,
  EX_ABI_VERSION,
  EX_COUNT
};

static const char *const export_names[EX_COUNT] = {
    [EX_INIT] = "init",
    [EX_SET_POLICY] = "setPolicy",
    [EX_SET_BUDGET] = "setBudget",
    [EX_BEGIN] = "begin",
    [EX_POLL] = "poll",
    [EX_REPORT] = "report",
    [EX_CANCEL] = "cancel",
    [EX_RELEASE] = "release",
    [EX_NEXT_DUE] = "nextDue",
    [EX_STATE] = "state",
    [EX_ATTEMPT] = "attempt",
    [EX_END_REASON] = "endReason",
    [EX_LAST_OUTCOME] = "lastOutcome",
    [EX_OPERATION_ID] = "operationId",
    [EX_OP_FLAGS] = "opFlags",
    [EX_NEXT_ATTEMPT_AT] = "nextAttemptAt",
    [EX_ATTEMPT_DEADLINE] = "attemptDeadline",
    [EX_DEADLINE] = "deadline",
    [EX_WORST_CASE] = "worstCase",
    [EX_CLASSIFY_HTTP] = "classifyHttp",
    [EX_COUNTER] = "counter",
    [EX_TOKENS] = "tokens",
    [EX_ABI_VERSION] = "abiVersion",
};

static IM3Environment environment;
static IM3Runtime runtime;
static IM3Function functions[EX_COUNT];
static char failure[160];

/* Appends text to failure, always leaving it terminated. */
static void append(const char *text) {
  size_t n = strlen(failure);
  while (text && *text && n + 1 < sizeof failure) failure[n++] = *text++;
  failure[n] = '\0';
}

/* Records the first failure: the API function, the wasm3 call, wasm3's result and, when
 * the runtime has one, its more specific message. Later calls return early. */
static bool failed(const char *where, const char *call, M3Result result) {
  if (failure[0]) return false;
  append("tickretry_wasm3: ");
  append(where);
  append(": ");
  append(call);
  append(": ");
  append(result);
  if (runtime) {
    M3ErrorInfo info;
    m3_GetErrorInfo(runtime, &info);
    if (info.message && info.message[0]) {
      append(" (");
      append(info.message);
      append(")");
    }
  }
  return false;
}

/* The one check every M3Result goes through: true when `call` succeeded, else the
 * failure is recorded with where it happened. Used as `ok = ok && M3_CHECK(...)` so that
 * nothing runs after the first error. */
#define M3_CHECK(call) check_result((call), __func__, #call)

static bool check_result(M3Result result, const char *where, const char *call) {
  return result == m3Err_none ? true : failed(where, call, result);
}

/* Calls export `e` with the i32 arguments that follow and returns its result as
 * `type`, or `fallback` once the engine has failed. */
#define CALL(type, fallback, e, ...)                                 \
  do {                                                               \
    uint32_t result_ = 0;                                            \
    bool ok_ = runtime != NULL && !failure[0];                       \
    ok_ = ok_ && M3_CHECK(m3_CallV(functions[e], ##__VA_ARGS__));    \
    ok_ = ok_ && M3_CHECK(m3_GetResultsV(functions[e], &result_));   \
    return ok_ ? (type)result_ : (fallback);                         \
  } while (0)

#define CALL_I32(e, ...) CALL(int32_t, TICKRETRY_ENGINE_FAILED, e, ##__VA_ARGS__)
#define CALL_U32(e, ...) CALL(uint32_t, 0u, e, ##__VA_ARGS__)

int32_t tickretry_wasm3_open(const uint8_t *wasm, uint32_t length) {
  if (runtime) return failure[0] ? TICKRETRY_ENGINE_FAILED : TICKRETRY_RESULT_OK;
  failure[0] = '\0';
  environment = m3_NewEnvironment();
  runtime = environment ? m3_NewRuntime(environment, TICKRETRY_WASM3_STACK_BYTES, NULL) : NULL;
  if (!runtime) {
    failed(__func__, environment ? "m3_NewRuntime()" : "m3_NewEnvironment()", m3Err_mallocFailed);
    if (environment) m3_FreeEnvironment(environment);
    environment = NULL;
    return TICKRETRY_ENGINE_FAILED;
  }
  /* Set before m3_LoadModule, which allocates the linear memory: the module keeps all
   * its state below this byte, so wasm3 allocates 4 KiB instead of a 64 KiB page. */
  runtime->memoryLimit = TICKRETRY_LIMIT_MEMORY_LIMIT;

  IM3Module module = NULL;
  bool ok = M3_CHECK(m3_ParseModule(environment, &module, wasm, length));
  if (ok && !M3_CHECK(m3_LoadModule(runtime, module))) {
    m3_FreeModule(module); /* not loaded, so still ours to free */
    ok = false;
  }
  for (int e = 0; ok && e < EX_COUNT; e++) {
    ok = M3_CHECK(m3_FindFunction(&functions[e], runtime, export_names[e]));
    if (!ok) {
      append(" for "); /* which export is missing */
      append(export_names[e]);
    }
  }
  if (ok && tickretry_abi_version() != TICKRETRY_ABI_VERSION) {
    ok = failed(__func__, "abiVersion()", "module ABI version differs from tickretry_abi.h");
  }
  return ok ? TICKRETRY_RESULT_OK : TICKRETRY_ENGINE_FAILED;
}

int32_t tickretry_open(void) { return tickretry_wasm3_open(tickretry_wasm, TICKRETRY_WASM_LEN); }

void tickretry_close(void) {
  if (runtime) m3_FreeRuntime(runtime); /* frees the loaded module with it */
  if (environment) m3_FreeEnvironment(environment);
  runtime = NULL;
  environment = NULL;
  memset(functions, 0, sizeof functions);
  failure[0] = '\0';
}

const char *tickretry_error(void) { return failure[0] ? failure : NULL; }

int32_t tickretry_init(uint32_t seed_lo, uint32_t seed_hi) { CALL_I32(EX_INIT, seed_lo, seed_hi); }

int32_t tickretry_set_policy(uint32_t id, const tickretry_policy *p) {
  CALL_I32(EX_SET_POLICY, id, p->max_attempts, p->attempt_timeout, p->base_delay, p->max_delay,
           p->throttle_base_delay, p->deadline, p->flags);
}

int32_t tickretry_set_budget(const tickretry_budget *b) {
  CALL_I32(EX_SET_BUDGET, b->capacity, b->initial, b->retry_cost, b->timeout_retry_cost, b->threshold,
           b->failure_cost, b->first_attempt_deposit, b->success_deposit, b->flags);
}

int32_t tickretry_begin(uint32_t policy, uint32_t now) { CALL_I32(EX_BEGIN, policy, now); }

int32_t tickretry_poll(uint32_t now) { CALL_I32(EX_POLL, now); }

int32_t tickretry_report(int32_t handle, int32_t attempt, int32_t outcome, uint32_t retry_after,
                         uint32_t now) {
  CALL_I32(EX_REPORT, handle, attempt, outcome, retry_after, now);
}

int32_t tickretry_cancel(int32_t handle, uint32_t now) { CALL_I32(EX_CANCEL, handle, now); }

int32_t tickretry_release(int32_t handle) { CALL_I32(EX_RELEASE, handle); }

uint32_t tickretry_next_due(uint32_t now) { CALL_U32(EX_NEXT_DUE, now); }

int32_t tickretry_state(int32_t handle) { CALL_I32(EX_STATE, handle); }

int32_t tickretry_attempt(int32_t handle) { CALL_I32(EX_ATTEMPT, handle); }

int32_t tickretry_end_reason(int32_t handle) { CALL_I32(EX_END_REASON, handle); }

int32_t tickretry_last_outcome(int32_t handle) { CALL_I32(EX_LAST_OUTCOME, handle); }

int32_t tickretry_operation_id(int32_t handle) { CALL_I32(EX_OPERATION_ID, handle); }

int32_t tickretry_op_flags(int32_t handle) { CALL_I32(EX_OP_FLAGS, handle); }

uint32_t tickretry_next_attempt_at(int32_t handle) { CALL_U32(EX_NEXT_ATTEMPT_AT, handle); }

uint32_t tickretry_attempt_deadline(int32_t handle) { CALL_U32(EX_ATTEMPT_DEADLINE, handle); }

uint32_t tickretry_deadline(int32_t handle) { CALL_U32(EX_DEADLINE, handle); }

int32_t tickretry_worst_case(uint32_t policy) { CALL_I32(EX_WORST_CASE, policy); }

int32_t tickretry_classify_http(int32_t status, int32_t has_retry_after) {
  CALL_I32(EX_CLASSIFY_HTTP, status, has_retry_after);
}

int32_t tickretry_counter(uint32_t id) { CALL_I32(EX_COUNTER, id); }

int32_t tickretry_tokens(void) { CALL_I32(EX_TOKENS); }

int32_t tickretry_abi_version(void) { CALL_I32(EX_ABI_VERSION); }

#endif
