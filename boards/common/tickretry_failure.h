/* The engine's first failure as one line of text, shared by both backends: where
 * tickretry_error() gets its answer. Not part of the C API. */
#ifndef TICKRETRY_FAILURE_H
#define TICKRETRY_FAILURE_H

#include <stdbool.h>

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

#endif
