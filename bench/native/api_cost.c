/* Drives the C API (tickretry.h) for callgrind and massif, over whichever backend it is
 * linked with: bench/callgrind.ts links the wasm2c backend; docs/performance.md says
 * how the same program ran over the wasm3 backend and wasm3 0.5.0. Each
 * mode runs one phase of calls; the tools count only inside the phase function and
 * divide by the call count this prints.
 *   noop     abiVersion, the emptiest export: the cost of crossing the API at all
 *   idle     poll with nothing due, 1 operation waiting
 *   idle16   the same with 16 waiting
 *   retry    reports that each schedule a retry
 *   heap     open, 16 operations begun and waiting, close (for massif's peak) */
#include <stdio.h>
#include <string.h>

#include "tickretry.h"

#define CALLS 10000

/* Each phase calls one export; noinline keeps it a callgrind toggle point. */
__attribute__((noinline, noclone)) static void noop_phase(void) {
  for (int i = 0; i < CALLS; i++) tickretry_abi_version();
}

__attribute__((noinline, noclone)) static void idle_poll_phase(uint32_t now) {
  for (int i = 0; i < CALLS; i++) tickretry_poll(now);
}

__attribute__((noinline, noclone)) static void report_retry_phase(const int32_t *handles,
                                                                  const int32_t *attempts, int n,
                                                                  uint32_t now) {
  for (int i = 0; i < n; i++) {
    tickretry_report(handles[i], attempts[i], TICKRETRY_OUTCOME_TRANSIENT, 0, now);
  }
}

/* 255 attempts, no jitter; policy 0 retries at once, policy 1 after 10 minutes. */
static void setup(void) {
  const tickretry_policy at_once = {
      .max_attempts = 255, .attempt_timeout = 1000000, .flags = TICKRETRY_JITTER_NONE};
  const tickretry_policy later = {.max_attempts = 255,
                                  .attempt_timeout = 1000000,
                                  .base_delay = 600000,
                                  .max_delay = 600000,
                                  .flags = TICKRETRY_JITTER_NONE};
  tickretry_init(42, 0);
  tickretry_set_policy(0, &at_once);
  tickretry_set_policy(1, &later);
}

/* `count` operations under policy 1, each with its first attempt failed: all waiting. */
static void waiting(int count, uint32_t now) {
  for (int i = 0; i < count; i++) {
    int32_t h = tickretry_begin(1, now);
    tickretry_poll(now);
    tickretry_report(h, 1, TICKRETRY_OUTCOME_TRANSIENT, 0, now);
  }
}

/* Starts one attempt per operation, then reports them all as failures, 16 retries a
 * round, up to CALLS reports; returns how many. */
static int retries(uint32_t now) {
  static int32_t handles[CALLS], attempts[CALLS];
  int n = 0;
  for (int i = 0; i < 16; i++) tickretry_begin(0, now);
  while (n + 16 <= CALLS) {
    int round = 0;
    for (int32_t h; round < 16 && (h = tickretry_poll(now)) >= 0; round++) {
      handles[n + round] = h;
      attempts[n + round] = tickretry_attempt(h);
    }
    if (round == 0 || attempts[n] >= 250) break;
    report_retry_phase(handles + n, attempts + n, round, now);
    n += round;
  }
  return n;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "idle";
  if (tickretry_open() != TICKRETRY_RESULT_OK) {
    fprintf(stderr, "%s\n", tickretry_error());
    return 1;
  }
  setup();
  uint32_t now = 0xfffff000u;
  int calls = CALLS;
  if (strcmp(mode, "noop") == 0) {
    noop_phase();
  } else if (strcmp(mode, "idle") == 0 || strcmp(mode, "idle16") == 0) {
    waiting(strcmp(mode, "idle16") == 0 ? 16 : 1, now);
    idle_poll_phase(now + 1);
  } else if (strcmp(mode, "retry") == 0) {
    calls = retries(now);
  } else if (strcmp(mode, "heap") == 0) {
    waiting(16, now);
    calls = 0;
  } else {
    fprintf(stderr, "modes: noop idle idle16 retry heap\n");
    return 2;
  }
  int failed = tickretry_error() != NULL;
  if (failed) fprintf(stderr, "%s\n", tickretry_error());
  tickretry_close();
  printf("%d\n", calls);
  return failed;
}
