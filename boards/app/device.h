/* The device: the application's rooms composed, the board's and the host-run firmware's
 * one composition (host/tools/src/device/device.ts is the simulator's). It holds the rooms,
 * gives the tickretry loop its HAL (attempts, answers, the due readings, the kept state's
 * write before anything leaves, the sessions), starts the scheduler (the kept state
 * resumed, else afresh), runs a pass and sleeps. What only a board does is reached through
 * app_hal.h and the two hooks below; an observer (NULL on the board) sees what the
 * host-run firmware traces, in place of the console's lines. */
#ifndef APP_DEVICE_H
#define APP_DEVICE_H
#include <stdbool.h>
#include <stdint.h>

#include "app_hal.h"
#include "broker.h"
#include "kept.h"
#include "module_swap.h"
#include "readings.h"
#include "requests.h"
#include "sessions.h"
#include "status.h"
#include "tickretry_loop.h"
#ifdef __cplusplus
extern "C" {
#endif

/* What a host run traces; each takes the console's line where there is one. */
typedef struct app_observer {
  void *ctx;
  void (*event)(void *ctx, const tickretry_loop_event *event, const char *line);
  app_readings_noted noted;            /* a reading taken or dropped */
  void (*answered)(void *ctx);         /* collect took an answer, not reported yet */
  void (*keeping)(void *ctx, int writes); /* before the pass's kept-state write */
  void (*kept)(void *ctx, uint32_t now, int writes); /* after it */
  void (*afresh)(void *ctx);
  void (*resumed)(void *ctx, uint32_t next_reading_in);
  void (*sleeping)(void *ctx, uint32_t sleep_ms, int32_t until_reading); /* before the HAL's */
  void (*fault)(void *ctx, int32_t fault);
} app_observer;

typedef struct app_device {
  const app_hal *hal;
  const app_observer *observer; /* NULL: the console */
  /* The board's page between passes (NULL: none), and its answer to a failed pass (an
   * uploaded module under trial restarts the board; NULL: nothing to fall back to). */
  void (*serve)(void);
  void (*module_failed)(void);
  uint32_t sleep_max_ms; /* the idle sleep's cut (idle_sleep.h); 0: never sleeps idle */
  bool scheduler_ok;
  const char *device_id;
  char ssid[33], pass[64]; /* the station's, for the Wi-Fi session's attempts */
  tickretry_loop_hal loop_hal; /* this file's callbacks, ctx the device */
  app_broker_settings broker_settings;
  tickretry_loop uploads;
  app_keeper keeper;
  app_readings readings;
  app_status_book book;
  app_requests requests;
  app_sessions sessions;
} app_device;

/* This boot's kept state and settings (NVS open, or not: kept.h); `hal`, `device_id` and
 * `observer` are kept. The page's rooms are ready after it. */
void app_device_begin(app_device *d, const app_hal *hal, const app_observer *observer, int nvs_ok,
                      const char *device_id);
/* The readings and the scheduler started; `rolled_back` (or NULL) is what the page's power
 * card says of the last reset; the status book's boot. */
void app_device_start(app_device *d, const char *rolled_back);
/* The kept state when there is one the module takes, else afresh; then the sessions in the
 * image, or new ones. Also after a module swap with no state to carry. */
void app_device_start_scheduler(app_device *d);
/* A new scheduler: a seed from the HAL's random bytes, the policies, the budget, the loop. */
void app_device_start_afresh(app_device *d);
/* Between two passes: the module the last pass took, swapped in (module_swap.h); 1 and the
 * page's answer when there was one. A swap with no state to carry starts the scheduler. */
int app_device_swap_module(app_device *d, app_module_swap *swap, int *status, char *text, size_t size);
/* One pass (the status book's, the loop's, a fault's end): when the module is next due. */
uint32_t app_device_pass(app_device *d);
/* After the pass: what the page asked for once its answer left (a restart, a sleep), and
 * the idle sleep. Returns when neither came. */
void app_device_after_pass(app_device *d, uint32_t due);
/* The kept state saved into RTC memory with the sleep noted, and the HAL's deep sleep. */
void app_device_deep_sleep(app_device *d, uint32_t sleep_ms);

#ifdef __cplusplus
}
#endif
#endif
