/* One line of text per device-loop event: the trace format of host/library/src/driver.ts's
 * formatEvent, byte for byte, so that a board's log and the Node driver's trace can be
 * compared line by line (the differential tests do exactly that). */
#ifndef DEVICE_TRACE_H
#define DEVICE_TRACE_H

#include <stddef.h>

#include "device_loop.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The constant's name (e.g. "TRANSIENT"), or NULL for a value the ABI does not define. */
const char *tickretry_outcome_name(int32_t outcome);
const char *tickretry_end_reason_name(int32_t reason);

/* Writes the line without a newline, snprintf-style: the length it needs. */
int device_event_format(const device_event *event, char *out, size_t size);

#ifdef __cplusplus
}
#endif

#endif
