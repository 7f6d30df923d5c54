/* The board under boards/app on this machine: app_hal.h kept in memory. A virtual clock
 * the driver advances, NVS as a table and RTC memory as a buffer that both outlive a
 * simulated reboot (a power cut fills RTC memory with garbage; NVS survives it), and an
 * upstream whose answer to each HTTP attempt comes from a script. The "server" behind it
 * stores each body under its Idempotency-Key, as the real one deduplicates. */
#ifndef HOST_HAL_H
#define HOST_HAL_H
#include <stdint.h>

#include "app_hal.h"
#include "kept.h"

/* The upload URL before any settings (the simulator's driver starts with the same). */
#define HOST_UPSTREAM_URL "http://upstream.invalid/"

/* What the upstream does with one attempt. */
typedef enum host_fate {
  HOST_OK,     /* stored, 200 after `ms` */
  HOST_503,    /* refused, 503 after `ms` */
  HOST_DOWN,   /* connection refused after `ms`: nothing reached the server (TRANSIENT) */
  HOST_HANG    /* stored, but the answer never comes: the client gives up after HOST_CLIENT_GIVES_UP_MS */
} host_fate;
/* http_upload.cpp's connect plus read timeout would be 11 s; its read timeout alone is 7 s. */
#define HOST_CLIENT_GIVES_UP_MS 7000u

/* The board's volatile state ends at a reboot; these are the parts that do not. */
void host_hal_power_on(void);
/* A reset (RTC memory kept) or a deep sleep's timed wake after `slept_ms` (wall clock on). */
void host_hal_reboot(int woke_by_timer, uint32_t slept_ms);
/* A power cut: RTC memory becomes garbage, NVS stays. */
void host_hal_power_cut(void);
void host_hal_advance(uint32_t ms);
/* The fates of the next attempts, in order; after them `fallback` with `fallback_ms`. */
void host_hal_script(host_fate fate, uint32_t ms);
void host_hal_fallback(host_fate fate, uint32_t ms);
/* Whether an answer is due, and by when the next one is (for the driver's sleep). */
int host_hal_answer_pending(void);
extern const app_hal host_hal;
/* A word of RTC memory outside the kept state (a board's RTC_NOINIT_ATTR): the module
 * swap's trial mark (module_swap.h). A reset keeps it; a power cut leaves garbage. */
extern uint32_t host_hal_rtc_trial;
#endif
