/* What survives a deep sleep and a reset, and who writes it where.
 *
 * The scheduler's image (tickretry_save: every operation with its operation id, the
 * budget, the counters), the tickretry loop's slots and each slot's upload body and boot
 * epoch, so that an upload goes on with the same Idempotency-Key and the same bytes; and
 * the readings taken and not yet begun (readings.c's queue), so that none is lost either.
 *
 * Flash wear (docs/device.md has the figures): the ~3.8 KB of it change at every begin,
 * answer and end, and NVS wears out at about 100,000 erases a page. So RTC memory, which
 * survives a deep sleep and every software reset (panic, watchdog, a restart), takes every
 * change, and NVS takes the state at most every APP_KEPT_NVS_EVERY_MS (20 min) of time
 * awake or asleep: the limit, and whether NVS lags RTC memory, are kept in RTC memory
 * through a deep sleep, and a timed wake goes on under the boot epoch it slept in, so a
 * board that wakes every 10 s writes NVS no more often than one that never sleeps. What
 * that costs is a power cut's only: the readings begun since the last NVS write, and those
 * then come back under older operation ids, which the boot epoch in each key keeps apart
 * from the new ones (readings.c). A write NVS refuses is counted, shown, and retried.
 *
 * A CRC-32 (the IEEE polynomial, as zlib's crc32) guards every byte of it, so a torn or
 * corrupt copy is refused whole rather than taken up in part (bodies and slots included,
 * not only the image); test/boards/page-native.test.ts checks it against zlib. */
#ifndef APP_KEPT_H
#define APP_KEPT_H
#include <stddef.h>
#include <stdint.h>

#include "app_hal.h"
#include "generated/app_config.h"
#include "sessions.h"
#include "tickretry_loop.h"
#ifdef __cplusplus
extern "C" {
#endif

/* The readings taken and waiting for a slot (or for the session that lets them begin),
 * oldest first: a ring of their seqs. A full queue drops its oldest, counted. */
typedef struct app_reading_queue {
  uint32_t seqs[APP_READINGS_QUEUE_LIMIT];
  uint32_t head, count;
  uint32_t dropped; /* over the device's life, as the simulator's state file counts them */
} app_reading_queue;

/* The flash-life model's blob (host/tools/src/device/nvs-wear.ts, KEPT_BYTES) is this
 * struct; test/boards/sketch.test.ts passes its size in to hold the two together. */
typedef struct app_kept {
  uint32_t crc;    /* app_kept_crc32 of every byte after it */
  uint32_t magic;  /* APP_KEPT_MAGIC once the fields below hold a saved state */
  uint32_t length; /* of the image */
  uint8_t image[TICKRETRY_IMAGE_AREA_BYTES];
  tickretry_loop_slots slots;
  char bodies[TICKRETRY_LIMIT_OPERATIONS][APP_BODY_BYTES]; /* per slot, fixed at begin */
  uint32_t epochs[TICKRETRY_LIMIT_OPERATIONS];            /* per slot: the boot epoch it began in */
  uint32_t upload_seq;          /* the readings taken: the last one's seq */
  app_reading_queue readings;
  uint32_t sleep_ms;            /* the deep sleep the board went into */
  uint32_t next_upload_in;      /* ms from the start of that sleep to the next reading */
  uint32_t nvs_due_in;          /* ms from the start of that sleep until NVS may be written */
  uint32_t nvs_dirty;           /* NVS lags this copy */
  uint32_t boot_epoch;          /* the epoch new operations are begun under (kept through a sleep) */
  uint32_t saved_wall_ms[2];    /* the RTC's reading at the image's save (low, high half) */
  app_session_handles sessions; /* the Wi-Fi and broker sessions in the image */
} app_kept;
#ifdef KEPT_BYTES_EXPECTED
#ifdef __cplusplus
static_assert(sizeof(app_kept) == KEPT_BYTES_EXPECTED, "nvs-wear.ts's KEPT_BYTES is not sizeof(app_kept)");
#else
_Static_assert(sizeof(app_kept) == KEPT_BYTES_EXPECTED, "nvs-wear.ts's KEPT_BYTES is not sizeof(app_kept)");
#endif
#endif
/* Another layout, another magic: a copy of an older layout is refused (kept.c). */
#define APP_KEPT_MAGIC 0x6b747233u
#define APP_KEPT_KEY "kept"
#define APP_EPOCH_KEY "epoch"
/* APP_KEPT_NVS_EVERY_MS and APP_KEPT_NVS_RETRY_MS come from config.json. */

/* The owner of the kept state: the working copy the rooms change (bodies, epochs, the
 * reading count, the sessions' handles), RTC memory's copy (the HAL's rtc_memory), which
 * each save replaces whole with its CRC, so that a reset between a change and its save
 * finds the last saved state rather than a copy its CRC refuses (and NVS's older one); when
 * NVS takes it; what the status shows of all of it and of this boot. */
typedef struct app_keeper {
  const app_hal *hal;
  app_kept *kept;      /* the working copy: `ram` */
  app_kept *rtc;       /* in RTC memory: power-on garbage until a CRC says otherwise */
  app_kept ram;
  int nvs_ok;          /* NVS opened: without it nothing is claimed or begun */
  uint32_t boot_epoch; /* this boot's, kept in NVS before any upload begins; 0: none */
  int epoch_from_sleep; /* boot_epoch is the one the board slept in, not a new one */
  uint32_t changes;    /* tickretry_changes() right after the last save */
  int touched;         /* a room changed the working copy outside the module: the next keep saves */
  int nvs_dirty;       /* RTC memory holds a state NVS does not */
  uint32_t nvs_due_at; /* when NVS may be written next */
  uint32_t writes, write_failures;
  float max_write_ms;
  const char *boot_kind; /* power-on, restart, deep sleep */
  uint32_t boot_elapsed_ms, boot_restored, boot_restored_queued;
} app_keeper;

uint32_t app_kept_crc32(const void *bytes, size_t length);

/* Binds the keeper to the board's RTC memory; with NVS open, claims this boot's epoch
 * (the high half of every Idempotency-Key it begins: an epoch that cannot be kept stops
 * uploads, and the readings wait in the queue, its oldest dropped once it is full). */
void app_keeper_init(app_keeper *k, const app_hal *hal, int nvs_ok);
/* Saves the image into RTC memory when tickretry_changes() moved, a room touched the kept
 * state (or when `always`), and into NVS when that is due. */
void app_keeper_keep(app_keeper *k, const tickretry_loop *loop, int always, uint32_t now);
/* Takes up the kept state into `loop` (see kept.c); `next_reading_in` gets the ms until
 * the next reading. 0 when there is nothing to take up or the module refuses it. */
int app_keeper_resume(app_keeper *k, tickretry_loop *loop, const tickretry_loop_hal *hal, uint32_t now,
                      uint32_t *next_reading_in);
/* A first boot, or a state refused: nothing kept. */
void app_keeper_forget(app_keeper *k);
/* Saves now, noting the sleep about to start, so that the wake restores it `sleep_ms` later. */
void app_keeper_before_sleep(app_keeper *k, const tickretry_loop *loop, uint32_t now, uint32_t sleep_ms,
                             uint32_t next_reading_in);

#ifdef __cplusplus
}
#endif
#endif
