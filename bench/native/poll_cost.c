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

/* raw_<C name>: each export on this file's instance, its arguments in the generated ABI
 * order (a policy's fields spread from the struct), so no call here spells that order. */
#define DEFINE_RAW(type, name, export, arity, params, args) \
  static inline type raw_##name params {                     \
    return (type)Z_tickretryZ_##export(&tr TICKRETRY_UNWRAP args); \
  }
TICKRETRY_EXPORTS(DEFINE_RAW)

/* Each phase runs CALLS calls of one export; noinline keeps it a callgrind toggle point. */
__attribute__((noinline, noclone)) static void idle_poll_phase(uint32_t now) {
  for (int i = 0; i < CALLS; i++) raw_poll(now);
}

__attribute__((noinline, noclone)) static void report_retry_phase(const uint32_t *handles, const uint32_t *attempts,
                                                         int n, uint32_t now) {
  for (int i = 0; i < n; i++) raw_report(handles[i], attempts[i], TICKRETRY_OUTCOME_TRANSIENT, 0, now);
}

static void setup(void) {
  raw_init(42, 0);
  /* 255 attempts, no delay, no jitter: every report schedules a retry that is due at once. */
  raw_set_policy(0, &(tickretry_policy){
                        .max_attempts = 255, .attempt_timeout = 1000000, .flags = TICKRETRY_JITTER_NONE});
  raw_set_policy(1, &(tickretry_policy){.max_attempts = 255,
                                         .attempt_timeout = 1000000,
                                         .base_delay = 600000,
                                         .max_delay = 600000,
                                         .flags = TICKRETRY_JITTER_NONE});
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
      uint32_t h = raw_begin(1, now);
      raw_poll(now);
      raw_report(h, 1, TICKRETRY_OUTCOME_TRANSIENT, 0, now);
    }
    idle_poll_phase(now + 1);
    printf("%d\n", CALLS);
  } else {
    static uint32_t handles[CALLS], attempts[CALLS];
    int n = 0;
    for (int i = 0; i < 16; i++) raw_begin(0, now);
    /* Start one attempt per operation, then report them all as failures: 16 retries a round. */
    while (n + 16 <= CALLS) {
      int round = 0;
      for (int32_t h; round < 16 && (h = raw_poll(now)) >= 0; round++) {
        handles[n + round] = (uint32_t)h;
        attempts[n + round] = raw_field(h, TICKRETRY_FIELD_ATTEMPT);
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
