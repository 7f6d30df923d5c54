/* What the two backends share with the backend-neutral C files (tickretry_failure.c,
 * tickretry_image.c): the engine's first failure as one line of text, where
 * tickretry_error() gets its answer, and the module's linear memory. Not part of the C
 * API. */
#ifndef TICKRETRY_BACKEND_H
#define TICKRETRY_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include "tickretry.h"

/* What a call returns once the engine has failed, by its result type (tickretry.h). */
#define TICKRETRY_FAILED_int32_t TICKRETRY_ENGINE_FAILED
#define TICKRETRY_FAILED_uint32_t 0u

/* Records "<backend>: <function>: <call>: <why>", with " (<detail>)" when detail is
 * not NULL or empty, unless a failure is already recorded: the first one names the
 * cause, later ones would name consequences. Returns false, for `ok = ok && ...`. */
bool tickretry_fail(const char *backend, const char *function, const char *call, const char *why,
                    const char *detail);
/* True once a failure is recorded, until tickretry_failure_clear. */
bool tickretry_failed(void);
void tickretry_failure_clear(void);

/* The module's linear memory and its size in bytes (the memory limit), or NULL while no
 * module is open or once the engine has failed. Each backend defines it. */
uint8_t *tickretry_module_memory(uint32_t *size);

#endif
