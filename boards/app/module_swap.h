/* The page's module swap, board-free (boards built with the wasm3 backend, whose module is
 * data; the host-run application's too). The page's handler checked the upload's build-key
 * signature before the loop sees a byte of it (boards/esp32/src/page_server.cpp); the loop
 * takes it in one pass (the anti-rollback floor) and swaps it in at the start of the next,
 * between two passes, as the simulator swaps after its trial (host/tools/src/device/asks.ts).
 * tickretry_wasm3_open carries the whole state across, so uploads in flight go on.
 *
 * The uploaded module then runs under trial: a mark in RTC memory, which a reset keeps. A
 * pass it fails (a trap) marks it failed and the board restarts; one it never returns from
 * (a loop) ends in the task watchdog's reset. Either way the upload lived in RAM, so the next
 * boot runs the built-in module on the kept state, and the page's power card says why. */
#ifndef APP_MODULE_SWAP_H
#define APP_MODULE_SWAP_H

#include <stddef.h>
#include <stdint.h>

#include "app_hal.h"
#include "kept.h"

#ifdef __cplusplus
extern "C" {
#endif

#define APP_MODULE_VERSION_KEY "modver" /* NVS: the highest module version accepted */
/* The trial mark's words: anything else (power-on garbage) means no trial. */
#define APP_MODULE_TRIAL 0x54524c31u  /* an uploaded module runs */
#define APP_MODULE_FAILED 0x54524c32u /* it failed a pass: the restart that follows rolls it back */

typedef struct app_module_swap {
  const app_hal *hal;
  app_keeper *keeper; /* a floor NVS would not take counts as its write failure */
  uint32_t *trial;    /* the mark, in RTC memory */
  /* The board's: told the bytes that run from now on (NULL: the built-in module's) before
   * the old ones are freed; may be NULL. */
  void (*running)(const uint8_t *bytes, size_t size);
  uint8_t *staged, *active; /* taken for the next pass; the uploaded module running */
  size_t staged_size, active_size;
} app_module_swap;

/* At boot, before anything runs: binds the room, and returns what the power card says of
 * the last reset when it rolled an uploaded module back (NULL: nothing); the mark is
 * cleared. `watchdog_reset`: the reset was the task watchdog's or a panic. */
const char *app_module_swap_boot(app_module_swap *s, const app_hal *hal, app_keeper *keeper, uint32_t *trial,
                                 int watchdog_reset);
/* The loop takes the page's upload (`bytes`, malloc'd, signature checked; the room owns them
 * from here): 1 when it is staged for the next pass, else 0 with the page's refusal (the
 * bytes freed). */
int app_module_swap_take(app_module_swap *s, uint8_t *bytes, size_t size, const char **refusal);
/* At a pass's start: 1 when a staged module was swapped in or refused, with the page's
 * answer (status, text); `*afresh`: there was no state to carry (the running engine had
 * failed), so the scheduler starts afresh on the new module. */
int app_module_swap_in(app_module_swap *s, uint32_t now, int *status, char *text, size_t size, int *afresh);
/* An uploaded module runs under trial. */
int app_module_swap_on_trial(const app_module_swap *s);
/* A pass faulted: 1 when the module under trial did (now marked failed: the caller restarts
 * the board), 0 for the built-in module's fault. */
int app_module_swap_failed(app_module_swap *s);

#ifdef __cplusplus
}
#endif
#endif
