/* One line of text per tickretry loop event: the trace format of host/library/src/driver.ts's
 * formatEvent, byte for byte, so that a board's log and the Node driver's trace can be
 * compared line by line (the differential tests do exactly that). */
#ifndef TICKRETRY_TRACE_H
#define TICKRETRY_TRACE_H

#include <stddef.h>

#include "tickretry_loop.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The constant's name (e.g. "TRANSIENT"), or NULL for a value the ABI does not define. */
const char *tickretry_outcome_name(int32_t outcome);
const char *tickretry_end_reason_name(int32_t reason);
/* "OK", "NONE" or an error's name ("STALE_REPORT"), or NULL for a value the ABI does not define. */
const char *tickretry_result_name(int32_t result);

/* Writes the line without a newline, snprintf-style: the length it needs. */
int tickretry_loop_event_format(const tickretry_loop_event *event, char *out, size_t size);

#ifdef __cplusplus
}
#endif

#endif
