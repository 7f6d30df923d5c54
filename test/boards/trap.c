/* The wasm2c backend's trap guard, on a module whose `poll` traps
 * (scripts/gen/trap-module.ts): the trap must come back as TICKRETRY_ENGINE_FAILED with
 * tickretry_error() naming the API function, and every later call must fail the same way
 * without entering the module, and the tickretry loop must stop on it rather than take it
 * for NONE. Prints what it saw; test/boards/native.test.ts checks the text. */
#include <inttypes.h>
#include <stdio.h>

#include "tickretry_loop.h"
#include "idle_hal.h"

int main(void) {
  int32_t opened = tickretry_open();
  int32_t init = tickretry_init(1, 0);
  printf("open %" PRId32 " init %" PRId32 "\n", opened, init);
  int32_t poll = tickretry_poll(0);
  const char *error = tickretry_error();
  printf("poll %" PRId32 " error %s\n", poll, error ? error : "(none)");
  int32_t state = tickretry_state(16);
  uint32_t next_due = tickretry_next_due(0);
  printf("after: state %" PRId32 " nextDue %" PRIu32 "\n", state, next_due);
  const tickretry_loop_hal hal = {.ticks = idle_ticks, .start_attempt = idle_start_attempt, .collect = idle_collect};
  tickretry_loop loop;
  tickretry_loop_init(&loop, &hal);
  uint32_t due = tickretry_loop_pass(&loop);
  printf("loop: pass %" PRIu32 " fault %" PRId32 "\n", due, tickretry_loop_fault(&loop));
  tickretry_close();
  int32_t reopened = tickretry_open();
  error = tickretry_error();
  printf("reopened %" PRId32 " error %s\n", reopened, error ? error : "(none)");
  tickretry_close();
  return 0;
}
