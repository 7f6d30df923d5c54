/* The DEEP_SLEEP=1 build's rule for sleeping between passes (boards/esp32/src/main.cpp
 * and the host-run firmware both follow it): sleep while no attempt is out (its answer
 * would be lost with the connection), until the module has work or the next reading is
 * due, when that is far enough away. */
#ifndef APP_IDLE_SLEEP_H
#define APP_IDLE_SLEEP_H
#include <stdint.h>

#include "tickretry_loop.h"
#ifdef __cplusplus
extern "C" {
#endif

/* Shorter waits are not worth a sleep (Wi-Fi takes a few seconds to come back); longer
 * ones are cut, so that the board wakes at least hourly. */
#define APP_SLEEP_MIN_MS 10000u
#define APP_SLEEP_MAX_MS 3600000u

/* How long to sleep after a pass whose next due time is `due`, the next reading falling
 * due at `reading_at`, a sleep cut at `max_ms`: 0 when not now. */
uint32_t app_idle_sleep_ms(const tickretry_loop *uploads, uint32_t due, uint32_t now, uint32_t reading_at,
                           uint32_t max_ms);

#ifdef __cplusplus
}
#endif
#endif
