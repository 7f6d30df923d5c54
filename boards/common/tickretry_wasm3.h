/* What only the wasm3 backend can do: run a module other than the embedded one, such
 * as a newer build received over the air (boards/esp32/README.md). */
#ifndef TICKRETRY_WASM3_H
#define TICKRETRY_WASM3_H

#include <stdint.h>

#include "tickretry.h"

#ifdef __cplusplus
extern "C" {
#endif

/* tickretry_open with these module bytes instead of the embedded ones. wasm3 parses in
 * place, so the bytes must stay valid and unchanged until tickretry_close. Close first
 * if a module is open; every operation, policy and counter is lost with it, so swap
 * modules while tickretry_next_due says IDLE. A module that fails to load or has
 * another ABI version is refused: tickretry_error() says why; then tickretry_close()
 * and tickretry_open() bring back the embedded module. */
int32_t tickretry_wasm3_open(const uint8_t *wasm, uint32_t length);

#ifdef __cplusplus
}
#endif

#endif
