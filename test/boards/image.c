/* tickretry_save and tickretry_restore at the edges the C copy decides (tickretry_image.c):
 * a buffer too small for the image, a flipped bit, a length beyond the image area (not
 * copied, so nothing past the area is touched), and a good image into a fresh instance.
 * Each refusal must leave the state as it was. Prints what it saw; test/boards/native.test.ts
 * checks the text on this machine and on Xtensa. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tickretry.h"

static uint8_t image[2 * TICKRETRY_IMAGE_AREA_BYTES];

/* What a caller can see of two operations: state and attempt of each, and the counters. */
static void show(const char *what, int32_t result, int32_t h0, int32_t h1) {
  int32_t s0 = tickretry_state(h0), a0 = tickretry_attempt(h0);
  int32_t s1 = tickretry_state(h1), a1 = tickretry_attempt(h1);
  int32_t begun = tickretry_counter(TICKRETRY_COUNTER_BEGUN);
  int32_t started = tickretry_counter(TICKRETRY_COUNTER_ATTEMPTS_STARTED);
  printf("%s %" PRId32 ": %" PRId32 "/%" PRId32 " %" PRId32 "/%" PRId32 " begun %" PRId32 " started %" PRId32 "\n",
         what, result, s0, a0, s1, a1, begun, started);
}

int main(void) {
  const tickretry_policy policy = {.max_attempts = 3, .attempt_timeout = 1000, .base_delay = 100,
                                   .max_delay = 100, .flags = TICKRETRY_JITTER_NONE};
  if (tickretry_open() != TICKRETRY_RESULT_OK) return 1;
  tickretry_init(5, 6);
  tickretry_set_policy(0, &policy);
  int32_t h0 = tickretry_begin(0, 500);
  int32_t h1 = tickretry_begin(0, 500);
  tickretry_poll(500);
  show("before", 0, h0, h1);
  show("save into 8 bytes", tickretry_save(600, image, 8), h0, h1);
  int32_t length = tickretry_save(600, image, sizeof image);
  int fits = length > 8 && length <= TICKRETRY_IMAGE_AREA_BYTES;
  printf("saved %s\n", fits ? "fits the area" : "does not fit");
  image[length / 2] ^= 0x10;
  show("a flipped bit", tickretry_restore(image, (uint32_t)length, 600, 0, 0), h0, h1);
  image[length / 2] ^= 0x10;
  show("beyond the area", tickretry_restore(image, sizeof image, 600, 0, 0), h0, h1);
  show("the same image", tickretry_restore(image, (uint32_t)length, 600, 0, 0), h0, h1);
  tickretry_close();
  if (tickretry_open() != TICKRETRY_RESULT_OK) return 1;
  show("fresh, before", tickretry_poll(600), h0, h1);
  show("fresh, restored", tickretry_restore(image, (uint32_t)length, 700, 100, 0), h0, h1);
  tickretry_close();
  return tickretry_error() != NULL;
}
