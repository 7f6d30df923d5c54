/* A stand-in for the wasm3 interpreter, so that tickretry_wasm3.c (whose real target,
 * the Wasm3 library, cannot be installed here) is compiled with -Werror and driven
 * through the differential scenarios: each m3_* call is answered by the wasm2c-compiled
 * module, found by export name. It checks what tickretry_wasm3.c must get right: the
 * bytes it loads, the export names, the argument count and order, memoryLimit set
 * before m3_LoadModule, every result read once. It proves nothing about wasm3 itself.
 * TICKRETRY_SHIM_MISSING=<export> makes m3_FindFunction fail for that name, so that the
 * test sees how a failure is reported. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "m3_env.h"
#include "tickretry_module.h"
#include "tickretry_w2c.h"
#include "wasm-rt-impl.h"

const M3Result m3Err_none = NULL;
const M3Result m3Err_mallocFailed = "memory allocation failed";
const M3Result m3Err_functionLookupFailed = "function lookup failed";

struct M3Environment {
  int unused;
};

struct M3Module {
  Z_tickretry_instance_t instance;
};

/* An export, its parameter count, and the result of its last call until it is read. */
struct M3Function {
  const char *name;
  uint32_t arity;
  uint32_t result;
  int unread;
};

enum { INIT, SET_POLICY, SET_BUDGET, BEGIN, POLL, REPORT, CANCEL, RELEASE, NEXT_DUE, STATE, ATTEMPT,
       END_REASON, LAST_OUTCOME, OPERATION_ID, OP_FLAGS, NEXT_ATTEMPT_AT, ATTEMPT_DEADLINE, DEADLINE,
       WORST_CASE, CLASSIFY_HTTP, COUNTER, TOKENS, ABI_VERSION, EXPORT_COUNT };

static struct M3Function exports[EXPORT_COUNT] = {
    [INIT] = {"init", 2, 0, 0},
    [SET_POLICY] = {"setPolicy", 8, 0, 0},
    [SET_BUDGET] = {"setBudget", 9, 0, 0},
    [BEGIN] = {"begin", 2, 0, 0},
    [POLL] = {"poll", 1, 0, 0},
    [REPORT] = {"report", 5, 0, 0},
    [CANCEL] = {"cancel", 2, 0, 0},
    [RELEASE] = {"release", 1, 0, 0},
    [NEXT_DUE] = {"nextDue", 1, 0, 0},
    [STATE] = {"state", 1, 0, 0},
    [ATTEMPT] = {"attempt", 1, 0, 0},
    [END_REASON] = {"endReason", 1, 0, 0},
    [LAST_OUTCOME] = {"lastOutcome", 1, 0, 0},
    [OPERATION_ID] = {"operationId", 1, 0, 0},
    [OP_FLAGS] = {"opFlags", 1, 0, 0},
    [NEXT_ATTEMPT_AT] = {"nextAttemptAt", 1, 0, 0},
    [ATTEMPT_DEADLINE] = {"attemptDeadline", 1, 0, 0},
    [DEADLINE] = {"deadline", 1, 0, 0},
    [WORST_CASE] = {"worstCase", 1, 0, 0},
    [CLASSIFY_HTTP] = {"classifyHttp", 2, 0, 0},
    [COUNTER] = {"counter", 1, 0, 0},
    [TOKENS] = {"tokens", 0, 0, 0},
    [ABI_VERSION] = {"abiVersion", 0, 0, 0},
};

static IM3Runtime loaded_runtime; /* the runtime whose module the exports call */

IM3Environment m3_NewEnvironment(void) { return calloc(1, sizeof(struct M3Environment)); }

void m3_FreeEnvironment(IM3Environment environment) { free(environment); }

IM3Runtime m3_NewRuntime(IM3Environment environment, uint32_t stack_bytes, void *userdata) {
  (void)userdata;
  return environment && stack_bytes ? calloc(1, sizeof(struct M3Runtime)) : NULL;
}

void m3_FreeRuntime(IM3Runtime runtime) {
  if (!runtime) return;
  if (runtime->module) {
    Z_tickretry_free(&runtime->module->instance);
    free(runtime->module);
  }
  if (loaded_runtime == runtime) loaded_runtime = NULL;
  free(runtime);
}

M3Result m3_ParseModule(IM3Environment environment, IM3Module *module, const uint8_t *const bytes,
                        uint32_t length) {
  (void)environment;
  if (length != sizeof tickretry_wasm || memcmp(bytes, tickretry_wasm, length) != 0) {
    return "shim: not the embedded module (the shim runs only that one)";
  }
  *module = calloc(1, sizeof(struct M3Module));
  return *module ? m3Err_none : m3Err_mallocFailed;
}

void m3_FreeModule(IM3Module module) { free(module); }

M3Result m3_LoadModule(IM3Runtime runtime, IM3Module module) {
  runtime->memoryLimitAtLoad = runtime->memoryLimit;
  if (runtime->memoryLimit == 0) return "shim: memoryLimit was not set before m3_LoadModule";
  wasm_rt_init();
  Z_tickretry_init_module();
  Z_tickretry_instantiate(&module->instance);
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
  uint32_t a[9] = {0};
  va_list args;
  va_start(args, function);
  for (uint32_t i = 0; i < function->arity; i++) a[i] = va_arg(args, uint32_t);
  va_end(args);
  if (function->unread) return "shim: the previous result was never read";
  Z_tickretry_instance_t *m = &loaded_runtime->module->instance;
  uint32_t r = 0;
  switch (function - exports) {
    case INIT: r = Z_tickretryZ_init(m, a[0], a[1]); break;
    case SET_POLICY: r = Z_tickretryZ_setPolicy(m, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]); break;
    case SET_BUDGET:
      r = Z_tickretryZ_setBudget(m, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8]);
      break;
    case BEGIN: r = Z_tickretryZ_begin(m, a[0], a[1]); break;
    case POLL: r = Z_tickretryZ_poll(m, a[0]); break;
    case REPORT: r = Z_tickretryZ_report(m, a[0], a[1], a[2], a[3], a[4]); break;
    case CANCEL: r = Z_tickretryZ_cancel(m, a[0], a[1]); break;
    case RELEASE: r = Z_tickretryZ_release(m, a[0]); break;
    case NEXT_DUE: r = Z_tickretryZ_nextDue(m, a[0]); break;
    case STATE: r = Z_tickretryZ_state(m, a[0]); break;
    case ATTEMPT: r = Z_tickretryZ_attempt(m, a[0]); break;
    case END_REASON: r = Z_tickretryZ_endReason(m, a[0]); break;
    case LAST_OUTCOME: r = Z_tickretryZ_lastOutcome(m, a[0]); break;
    case OPERATION_ID: r = Z_tickretryZ_operationId(m, a[0]); break;
    case OP_FLAGS: r = Z_tickretryZ_opFlags(m, a[0]); break;
    case NEXT_ATTEMPT_AT: r = Z_tickretryZ_nextAttemptAt(m, a[0]); break;
    case ATTEMPT_DEADLINE: r = Z_tickretryZ_attemptDeadline(m, a[0]); break;
    case DEADLINE: r = Z_tickretryZ_deadline(m, a[0]); break;
    case WORST_CASE: r = Z_tickretryZ_worstCase(m, a[0]); break;
    case CLASSIFY_HTTP: r = Z_tickretryZ_classifyHttp(m, a[0], a[1]); break;
    case COUNTER: r = Z_tickretryZ_counter(m, a[0]); break;
    case TOKENS: r = Z_tickretryZ_tokens(m); break;
    case ABI_VERSION: r = Z_tickretryZ_abiVersion(m); break;
  }
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
