/* tickretry_wasm3_open carrying the state across a module swap (tickretry_wasm3.h): two
 * operations begun, one attempt in flight, then the module replaced by a copy of its
 * bytes (accepted: handles, attempts and operation ids stay, the answer still counts)
 * and by bytes that are no module (refused: the embedded module runs on with the state).
 * Prints what it saw; test/boards/native.test.ts checks the text. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generated/tickretry_module.h"
#include "tickretry_wasm3.h"

static void show(const char *what, int32_t result, int32_t h0, int32_t h1) {
  const char *refusal = tickretry_wasm3_refusal();
  int32_t s0 = tickretry_state(h0), s1 = tickretry_state(h1);
  int32_t a0 = tickretry_attempt(h0), a1 = tickretry_attempt(h1);
  int consecutive = tickretry_operation_id(h0) + 1 == tickretry_operation_id(h1);
  printf("%s %" PRId32 " states %" PRId32 " %" PRId32 " attempts %" PRId32 " %" PRId32 " ids consecutive %d refusal %s\n",
         what, result, s0, s1, a0, a1, consecutive, refusal ? refusal : "(none)");
}

int main(void) {
  const tickretry_policy policy = {.max_attempts = 3, .attempt_timeout = 1000, .base_delay = 100,
                                   .max_delay = 100, .flags = TICKRETRY_JITTER_NONE};
  uint8_t *copy = malloc(TICKRETRY_WASM_LEN);
  static const uint8_t garbage[] = {0x00, 0x61, 0x73, 0x6d, 0x02};
  if (!copy || tickretry_open() != TICKRETRY_RESULT_OK) return 1;
  memcpy(copy, tickretry_wasm, TICKRETRY_WASM_LEN);
  tickretry_init(3, 4);
  tickretry_set_policy(0, &policy);
  int32_t h0 = tickretry_begin(0, 1000);
  int32_t h1 = tickretry_begin(0, 1000);
  tickretry_poll(1000); /* h0's first attempt in flight; h1 still due */
  show("before", 0, h0, h1);
  show("swapped", tickretry_wasm3_open(copy, TICKRETRY_WASM_LEN, 1200), h0, h1);
  printf("report %" PRId32 "\n", tickretry_report(h0, 1, TICKRETRY_OUTCOME_SUCCESS, 0, 1300));
  show("refused", tickretry_wasm3_open(garbage, sizeof garbage, 1400), h0, h1);
  int32_t polled = tickretry_poll(1500);
  int32_t ended = tickretry_ended(1500);
  printf("poll %" PRId32 " ended %" PRId32 " changes moved %d\n", polled, ended, tickretry_changes() > 0);
  tickretry_close();
  free(copy);
  return 0;
}
