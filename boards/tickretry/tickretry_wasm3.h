/* What only the wasm3 backend can do: run a module other than the embedded one, such
 * as a newer build received over the air, without losing an operation
 * (boards/esp32/README.md). */
#ifndef TICKRETRY_WASM3_H
#define TICKRETRY_WASM3_H

#include <stdint.h>

#include "tickretry.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Runs these module bytes instead of the embedded ones. wasm3 parses in place, so the
 * bytes must stay valid and unchanged while the module runs.
 *
 * With no module open, this is tickretry_open with other bytes. With one open, it carries
 * the whole state across: saves the running module's image at `now`, opens the new bytes
 * and restores the image into them at the same `now` (no attempt lost: the host's
 * requests go on and their answers count), so nothing has to wait for IDLE. Returns:
 *   TICKRETRY_RESULT_OK                   the new module runs, with the state carried;
 *   TICKRETRY_ERROR_NOT_INITIALIZED       the running engine had failed, so there was no
 *                                         state to carry: the new module runs, uninitialised;
 *   TICKRETRY_ENGINE_FAILED, or the new module's refusal of the image (IMAGE_ABI,
 *   IMAGE_FORMAT ...): the new module was refused, tickretry_wasm3_refusal() says why, and
 *   the embedded module runs in its place with the state carried into it (uninitialised
 *   if the running engine had failed). */
int32_t tickretry_wasm3_open(const uint8_t *wasm, uint32_t length, uint32_t now);
/* Why the last tickretry_wasm3_open refused its module, or NULL if it did not. */
const char *tickretry_wasm3_refusal(void);

#ifdef __cplusplus
}
#endif

#endif
