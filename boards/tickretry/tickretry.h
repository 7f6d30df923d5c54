/* The C API over host/library/build/tickretry.wasm, the one scheduler module every board runs.
 *
 * One function per export, tickretry_<export in snake case>, with the export's arguments
 * in the same order (docs/ABI.md is the contract: checks, result codes); setPolicy's and
 * setBudget's fields travel in tickretry_policy and tickretry_budget. Those prototypes,
 * the structs and every constant are generated from assembly/constants.json into
 * tickretry_abi.h. Two backends implement them, and a firmware links exactly one (plus
 * tickretry_failure.c and tickretry_image.c, which both share):
 *   tickretry_wasm3.c   the embedded module interpreted by wasm3 (replaceable over the air);
 *   tickretry_wasm2c.c  the same module compiled ahead of time by wasm2c (native speed).
 *
 * There is one scheduler per firmware, so the backend holds a single instance: open it
 * once, then call tickretry_init. Every call returns the export's result, except when the
 * engine itself failed (a wasm3 error or a trap, which the module never causes by design):
 * then that call and every later one return TICKRETRY_ENGINE_FAILED (0 from the u32
 * exports) and tickretry_error() says where it failed.
 */
#ifndef TICKRETRY_H
#define TICKRETRY_H

#include <stdint.h>

#include "generated/tickretry_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Returned by every call once the engine has failed; below every module error code. */
#define TICKRETRY_ENGINE_FAILED (-100)

/* Loads the module and checks its ABI version; 0 on success, TICKRETRY_ENGINE_FAILED
 * otherwise. Calling it again after success does nothing. */
int32_t tickretry_open(void);
/* Frees everything tickretry_open allocated, the engine's runtime included;
 * tickretry_open may follow. */
void tickretry_close(void);
/* Where the engine failed, or NULL while it has not. */
const char *tickretry_error(void);

/* The whole scheduler as an image (docs/ABI.md, "Saving and restoring"): every operation
 * with its handle and operation id, the policies, the budget, the counters; at most
 * TICKRETRY_IMAGE_AREA_BYTES bytes, versioned and checksummed, with every tick kept
 * relative to the save, so it can wait in RTC memory or flash while the tick counter
 * restarts. */

/* Applies what is due at now, then copies the image into `image`: its length, or a
 * negative error (the module's; TICKRETRY_ERROR_IMAGE_LENGTH when `capacity` bytes
 * cannot hold it; TICKRETRY_ENGINE_FAILED). */
int32_t tickretry_save(uint32_t now, void *image, uint32_t capacity);
/* Replaces the whole state with a saved image, into this instance or a fresh one, with or
 * without tickretry_init before: `elapsed` is the ticks known to have passed since the
 * save (a deep sleep's length; 0 when unknown), TICKRETRY_RESTORE_FLAG_ATTEMPTS_LOST
 * ends every attempt that was in flight as AMBIGUOUS (a reboot closed its connection).
 * TICKRETRY_RESULT_OK, or the module's refusal (IMAGE_*, BAD_FIELD, SPAN_TOO_LARGE),
 * which changes nothing. Handles stay valid. */
int32_t tickretry_restore(const void *image, uint32_t length, uint32_t now, uint32_t elapsed,
                          uint32_t flags);

#ifdef __cplusplus
}
#endif

#endif
