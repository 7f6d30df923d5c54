/* See module_swap.h. The wasm3 backend's alone: empty in a wasm2c build, whose module is
 * compiled in. */
#if !TICKRETRY_BACKEND_WASM2C
#include "module_swap.h"

#include <stdio.h>
#include <stdlib.h>

#include "generated/page_routes.h"
#include "module_signature.h"
#include "tickretry_wasm3.h"

const char *app_module_swap_boot(app_module_swap *s, const app_hal *hal, app_keeper *keeper, uint32_t *trial,
                                 int watchdog_reset) {
  s->hal = hal, s->keeper = keeper, s->trial = trial;
  const char *said = *trial == APP_MODULE_FAILED                  ? PAGE_MSG_MODULE_TRAPPED
                     : *trial == APP_MODULE_TRIAL && watchdog_reset ? PAGE_MSG_MODULE_STOPPED_LOOP
                                                                    : NULL;
  *trial = 0;
  return said;
}

int app_module_swap_take(app_module_swap *s, uint8_t *bytes, size_t size, const char **refusal) {
  int64_t version = module_version(bytes, size);
  uint32_t floor = s->hal->nvs_get_u32(s->hal->ctx, APP_MODULE_VERSION_KEY, 0);
  if (version < (int64_t)floor || s->staged) {
    free(bytes);
    *refusal = s->staged ? PAGE_MSG_LOOP_BUSY : PAGE_MSG_MODULE_ROLLED_BACK; /* the last one taken waits for its pass */
    return 0;
  }
  s->staged = bytes, s->staged_size = size;
  return 1;
}

/* The module that runs from now on (NULL: the built-in one); the one before it freed. */
static void use(app_module_swap *s, uint8_t *bytes, size_t size) {
  if (s->running) s->running(bytes, size);
  free(s->active);
  s->active = bytes, s->active_size = size;
}

int app_module_swap_in(app_module_swap *s, uint32_t now, int *status, char *text, size_t size, int *afresh) {
  uint8_t *incoming = s->staged;
  if (!incoming) return 0;
  s->staged = NULL;
  int32_t result = tickretry_wasm3_open(incoming, (uint32_t)s->staged_size, now);
  *afresh = result == TICKRETRY_ERROR_NOT_INITIALIZED;
  if (result != TICKRETRY_RESULT_OK && !*afresh) {
    /* Refused: the built-in module runs now, with the state (tickretry_wasm3_open fell back). */
    free(incoming);
    use(s, NULL, 0);
    *s->trial = 0;
    *status = 422;
    snprintf(text, size, "%s%s", PAGE_MSG_MODULE_REFUSED, tickretry_wasm3_refusal());
    return 1;
  }
  int64_t version = module_version(incoming, s->staged_size);
  uint32_t floor = s->hal->nvs_get_u32(s->hal->ctx, APP_MODULE_VERSION_KEY, 0);
  use(s, incoming, s->staged_size);
  if (version > (int64_t)floor &&
      s->hal->nvs_put_u32(s->hal->ctx, APP_MODULE_VERSION_KEY, (uint32_t)version) != sizeof(uint32_t))
    s->keeper->write_failures++; /* shown with the state's: the floor did not reach NVS */
  *s->trial = APP_MODULE_TRIAL;
  *status = 200;
  snprintf(text, size, "%s", PAGE_MSG_MODULE_REPLACED);
  return 1;
}

int app_module_swap_on_trial(const app_module_swap *s) { return s->active != NULL && *s->trial == APP_MODULE_TRIAL; }

int app_module_swap_failed(app_module_swap *s) {
  if (!app_module_swap_on_trial(s)) return 0;
  *s->trial = APP_MODULE_FAILED;
  return 1;
}
#endif
