/* tickretry.h over the embedded module interpreted by wasm3 (the PlatformIO/Arduino
 * library `Wasm3`, pinned to 0.5.0): the module is data, so a board can replace it over
 * the air (tickretry_wasm3.h).
 *
 * Written against wasm3 0.5.0's C API (wasm3.h: m3_NewEnvironment, m3_NewRuntime,
 * m3_ParseModule, m3_LoadModule, m3_FindFunction, m3_CallV, m3_GetResultsV,
 * m3_GetErrorInfo) plus the runtime's memoryLimit field, which the library's own Arduino
 * examples set through m3_env.h. The tests compile it with -Werror against
 * test/boards/wasm3-shim (that API answered by the wasm2c-compiled module: export names,
 * argument order, error reporting) and require the same trace as V8's; docs/performance.md
 * says how it was also run against wasm3 0.5.0 itself.
 */
/* The default backend. Arduino and ESP-IDF compile every source of this folder, so one
 * macro picks the backend: this file is empty when TICKRETRY_BACKEND_WASM2C is set. */
#if !TICKRETRY_BACKEND_WASM2C

#include "tickretry_wasm3.h"

#include <stdio.h>
#include <string.h>

#include <m3_env.h>
#include <wasm3.h>

#include "tickretry_backend.h"
#include "generated/tickretry_module.h"

/* Configuration. The interpreter's value stack: the module's deepest call chain needs 271
 * slots of 4 bytes with wasm3's default constant tables (64 or 120 a function; each frame
 * holds its function's constants), so 2 KiB leaves room; the ESP32 firmware sets less
 * (platformio.ini). */
#ifndef TICKRETRY_WASM3_STACK_BYTES
#define TICKRETRY_WASM3_STACK_BYTES 2048
#endif

/* Every export, found once at open and called through the cached IM3Function. */
#define EXPORT_ID(type, name, export, arity, params, args) EX_##name,
enum export_id { TICKRETRY_EXPORTS(EXPORT_ID) EX_COUNT };

#define EXPORT_NAME(type, name, export, arity, params, args) [EX_##name] = #export,
static const char *const export_names[EX_COUNT] = {TICKRETRY_EXPORTS(EXPORT_NAME)};

static IM3Environment environment;
static IM3Runtime runtime;
static IM3Function functions[EX_COUNT];

/* Records the first failure: the API function, the wasm3 call, wasm3's result and, when
 * the runtime has one, its more specific message. */
static bool failed(const char *function, const char *call, M3Result result) {
  M3ErrorInfo info = {0};
  if (runtime) m3_GetErrorInfo(runtime, &info);
  return tickretry_fail("tickretry_wasm3", function, call, result, info.message);
}

/* The one check every M3Result goes through: true when `call` succeeded, else the
 * failure is recorded with where it happened. Used as `ok = ok && M3_CHECK(...)` so that
 * nothing runs after the first error. */
#define M3_CHECK(call) check_result((call), __func__, #call)

static bool check_result(M3Result result, const char *function, const char *call) {
  return result == m3Err_none ? true : failed(function, call, result);
}

/* Calls the export with the arguments in ABI order, then reads its one result. */
#define DEFINE_CALL(type, name, export, arity, params, args)                            \
  type tickretry_##name params {                                                        \
    IM3Function function = functions[EX_##name];                                        \
    uint32_t result = 0;                                                                \
    bool ok = runtime != NULL && !tickretry_failed();                                   \
    ok = ok && check_result(m3_CallV(function TICKRETRY_UNWRAP args), __func__,         \
                            "m3_CallV(" #export ")");                                   \
    ok = ok && check_result(m3_GetResultsV(function, &result), __func__,                \
                            "m3_GetResultsV(" #export ")");                             \
    return ok ? (type)result : TICKRETRY_FAILED_##type;                                 \
  }
TICKRETRY_EXPORTS(DEFINE_CALL)

uint8_t *tickretry_module_memory(uint32_t *size) {
  if (runtime == NULL || tickretry_failed()) return NULL;
  return m3_GetMemory(runtime, size, 0);
}

/* Loads module bytes into a new runtime and finds every export; the open path of
 * tickretry_open and tickretry_wasm3_open, which `function` names in a failure. */
#define LOAD_CHECK(call) check_result((call), function, #call)

static int32_t load(const char *function, const uint8_t *wasm, uint32_t length) {
  tickretry_failure_clear();
  environment = m3_NewEnvironment();
  runtime = environment ? m3_NewRuntime(environment, TICKRETRY_WASM3_STACK_BYTES, NULL) : NULL;
  if (!runtime) {
    failed(function, environment ? "m3_NewRuntime()" : "m3_NewEnvironment()", m3Err_mallocFailed);
    if (environment) m3_FreeEnvironment(environment);
    environment = NULL;
    return TICKRETRY_ENGINE_FAILED;
  }
  /* Set before m3_LoadModule, which allocates the linear memory: the module keeps all
   * its state below this byte, so wasm3 allocates 3,328 bytes instead of a 64 KiB page. */
  runtime->memoryLimit = TICKRETRY_LIMIT_MEMORY_LIMIT;

  IM3Module module = NULL;
  bool ok = LOAD_CHECK(m3_ParseModule(environment, &module, wasm, length));
  if (ok && !LOAD_CHECK(m3_LoadModule(runtime, module))) {
    m3_FreeModule(module); /* not loaded, so still ours to free */
    ok = false;
  }
  for (int e = 0; ok && e < EX_COUNT; e++) {
    M3Result found = m3_FindFunction(&functions[e], runtime, export_names[e]);
    /* The detail names the missing export. */
    if (found != m3Err_none) {
      ok = tickretry_fail("tickretry_wasm3", function, "m3_FindFunction", found, export_names[e]);
    }
  }
  if (ok && tickretry_abi_version() != TICKRETRY_ABI_VERSION) {
    ok = failed(function, "abiVersion()", "module ABI version differs from tickretry_abi.h");
  }
  return ok ? TICKRETRY_RESULT_OK : TICKRETRY_ENGINE_FAILED;
}

int32_t tickretry_open(void) {
  if (runtime) return tickretry_failed() ? TICKRETRY_ENGINE_FAILED : TICKRETRY_RESULT_OK;
  return load(__func__, tickretry_wasm, TICKRETRY_WASM_LEN);
}

static uint8_t carried[TICKRETRY_IMAGE_AREA_BYTES]; /* the image on its way across */
static char refusal[192];

const char *tickretry_wasm3_refusal(void) { return refusal[0] ? refusal : NULL; }

int32_t tickretry_wasm3_open(const uint8_t *wasm, uint32_t length, uint32_t now) {
  refusal[0] = '\0';
  if (!runtime) return load(__func__, wasm, length);
  int32_t saved = tickretry_save(now, carried, sizeof carried);
  tickretry_close();
  int32_t result = load(__func__, wasm, length);
  if (result == TICKRETRY_RESULT_OK && saved >= 0) {
    result = tickretry_restore(carried, (uint32_t)saved, now, 0, 0);
  }
  if (result == TICKRETRY_RESULT_OK) return saved >= 0 ? result : TICKRETRY_ERROR_NOT_INITIALIZED;
  /* Refused: say why, then carry the state into the embedded module instead. */
  const char *why = tickretry_error();
  if (why) {
    snprintf(refusal, sizeof refusal, "%s", why);
  } else {
    snprintf(refusal, sizeof refusal,
             "tickretry_wasm3: %s: restore(): the new module refused the image (%d)", __func__,
             (int)result);
  }
  tickretry_close();
  int32_t fallback = load("tickretry_open", tickretry_wasm, TICKRETRY_WASM_LEN);
  if (fallback == TICKRETRY_RESULT_OK && saved >= 0) fallback = tickretry_restore(carried, (uint32_t)saved, now, 0, 0);
  if (fallback != TICKRETRY_RESULT_OK) {
    /* The state is lost now, or no module runs at all: said here and in tickretry_error(). */
    size_t used = strlen(refusal);
    snprintf(refusal + used, sizeof refusal - used, "; the embedded module could not take the state back (%d)",
             (int)fallback);
    tickretry_fail("tickretry_wasm3", __func__, "fallback", "the carried state was lost", NULL);
  }
  return result;
}

void tickretry_close(void) {
  if (runtime) m3_FreeRuntime(runtime); /* frees the loaded module with it */
  if (environment) m3_FreeEnvironment(environment);
  runtime = NULL;
  environment = NULL;
  memset(functions, 0, sizeof functions);
  tickretry_failure_clear();
}

#endif
