/* A page handler that breaks the page's rule every way page-rules.test.ts looks for: the
 * module API, the keeper behind a macro, a room that reads the module, the HAL's clock and
 * store. Compiled by the test only. */
#include "kept.h"
#include "readings.h"
#include "tickretry.h"

#define KEEP_NOW app_keeper_keep

void page_breaks_rules(const app_hal *hal, app_keeper *keeper, const tickretry_loop *loop, app_readings *r);

void page_breaks_rules(const app_hal *hal, app_keeper *keeper, const tickretry_loop *loop, app_readings *r) {
  status_operation ops[TICKRETRY_LIMIT_OPERATIONS];
  uint32_t now = hal->ticks(hal->ctx);
  hal->nvs_put_string(hal->ctx, "devpw", "");
  KEEP_NOW(keeper, loop, 1, now);
  app_readings_status(r, ops, now);
  tickretry_poll(now);
}
