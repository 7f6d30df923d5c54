/* Drives the wasm2c build of host/library/build/tickretry.wasm for callgrind: one phase of idle polls
 * (nothing due) and one of reports that schedule a retry. bench/callgrind.ts collects
 * only inside the phase functions and divides by the call counts printed here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tickretry.h"
#include "generated/tickretry_abi.h"

#define CALLS 10000

static Z_tickretry_instance_t tr;

/* Each phase runs CALLS calls of one export; noinline keeps it a callgrind toggle point. */
__attribute__((noinline, noclone)) static void idle_poll_phase(uint32_t now) {
  for (int i = 0; i < CALLS; i++) Z_tickretryZ_poll(&tr, now);
}

__attribute__((noinline, noclone)) static void report_retry_phase(const uint32_t *handles, const uint32_t *attempts,
                                                         int n, uint32_t now) {
  for (int i = 0; i < n; i++) Z_tickretryZ_report(&tr, handles[i], attempts[i], TICKRETRY_OUTCOME_TRANSIENT, 0, now);
}

static void setup(void) {
  Z_tickretryZ_init(&tr, 42, 0);
  /* 255 attempts, no delay, no jitter: every report schedules a retry that is due at once. */
  Z_tickretryZ_setPolicy(&tr, 0, 255, 1000000, 0, 0, 0, 0, TICKRETRY_JITTER_NONE, 0, 0, 0, 0, 0, 0);
  Z_tickretryZ_setPolicy(&tr, 1, 255, 1000000, 600000, 600000, 0, 0, TICKRETRY_JITTER_NONE, 0, 0, 0, 0, 0, 0);
}

int main(int argc, char **argv) {
  const char *phase = argc > 1 ? argv[1] : "idle";
  wasm_rt_init();
  Z_tickretry_init_module();
  Z_tickretry_instantiate(&tr);
  setup();
  uint32_t now = 0xfffff000u;
  if (strcmp(phase, "idle") == 0 || strcmp(phase, "idle16") == 0) {
    int waiting = strcmp(phase, "idle16") == 0 ? 16 : 1;
    for (int i = 0; i < waiting; i++) {
      uint32_t h = Z_tickretryZ_begin(&tr, 1, now);
      Z_tickretryZ_poll(&tr, now);
      Z_tickretryZ_report(&tr, h, 1, TICKRETRY_OUTCOME_TRANSIENT, 0, now);
    }
    idle_poll_phase(now + 1);
    printf("%d\n", CALLS);
  } else {
    static uint32_t handles[CALLS], attempts[CALLS];
    int n = 0;
    for (int i = 0; i < 16; i++) Z_tickretryZ_begin(&tr, 0, now);
    /* Start one attempt per operation, then report them all as failures: 16 retries a round. */
    while (n + 16 <= CALLS) {
      int round = 0;
      for (int32_t h; round < 16 && (h = (int32_t)Z_tickretryZ_poll(&tr, now)) >= 0; round++) {
        handles[n + round] = (uint32_t)h;
        attempts[n + round] = Z_tickretryZ_field(&tr, (uint32_t)h, TICKRETRY_FIELD_ATTEMPT);
      }
      if (attempts[n] >= 250) break;
      report_retry_phase(handles + n, attempts + n, round, now);
      n += round;
    }
    printf("%d\n", n);
  }
  Z_tickretry_free(&tr);
  wasm_rt_free();
  return 0;
}
