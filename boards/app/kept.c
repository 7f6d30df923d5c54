/* See kept.h. */
#include "kept.h"

#include <string.h>

#include "tickretry.h"
#include "tickretry_ticks.h"

/* Bitwise, table-free: a few hundred bytes of flash matter more here than the
 * microseconds a 3 KiB state costs. */
uint32_t app_kept_crc32(const void *bytes, size_t length) {
  const uint8_t *p = (const uint8_t *)bytes;
  uint32_t crc = 0xffffffffu;
  for (size_t i = 0; i < length; i++) {
    crc ^= p[i];
    for (int bit = 0; bit < 8; bit++) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

static uint32_t kept_crc(const app_kept *kept) {
  return app_kept_crc32((const uint8_t *)kept + sizeof kept->crc, sizeof *kept - sizeof kept->crc);
}

static int kept_valid(const app_kept *kept) { return kept->magic == APP_KEPT_MAGIC && kept->crc == kept_crc(kept); }

/* A new boot epoch from NVS: every key begun under it differs from every older one. */
static void claim_epoch(app_keeper *k) {
  const app_hal *hal = k->hal;
  uint32_t epoch = hal->nvs_get_u32(hal->ctx, APP_EPOCH_KEY, 0) + 1;
  k->boot_epoch = 0;
  k->epoch_from_sleep = 0;
  if (epoch != 0 && hal->nvs_put_u32(hal->ctx, APP_EPOCH_KEY, epoch) == sizeof epoch) k->boot_epoch = epoch;
  else app_say(hal, "NVS refused the boot epoch: no upload begins this boot\r\n");
}

void app_keeper_init(app_keeper *k, const app_hal *hal, int nvs_ok) {
  memset(k, 0, sizeof *k);
  k->hal = hal;
  k->kept = &k->ram;
  k->rtc = (app_kept *)hal->rtc_memory;
  k->nvs_ok = nvs_ok;
  k->nvs_due_at = hal->ticks(hal->ctx);
  k->boot_kind = "power-on";
  if (!nvs_ok) return;
  /* A timed wake takes up RTC memory's state, whose operation ids go on from where they
   * were: its epoch still keeps their keys apart, and an NVS write per wake is saved. */
  if (hal->woke_by_timer(hal->ctx) && kept_valid(k->rtc) && k->rtc->boot_epoch != 0) {
    k->boot_epoch = k->rtc->boot_epoch;
    k->epoch_from_sleep = 1;
    return;
  }
  claim_epoch(k);
}

/* Writes the kept state to NVS when RTC memory holds one NVS lacks and NVS is due. A
 * write NVS refuses (full, worn, failing) is counted and tried again after
 * APP_KEPT_NVS_RETRY_MS; RTC memory still holds the state meanwhile. */
static void keep_in_nvs(app_keeper *k) {
  const app_hal *hal = k->hal;
  if (!k->nvs_dirty || !k->nvs_ok || !tickretry_tick_reached(hal->ticks(hal->ctx), k->nvs_due_at)) return;
  uint32_t started = hal->micros(hal->ctx);
  int written = hal->nvs_put_blob(hal->ctx, APP_KEPT_KEY, k->kept, sizeof *k->kept) == sizeof *k->kept;
  float took_ms = (hal->micros(hal->ctx) - started) / 1000.0f;
  if (took_ms > k->max_write_ms) k->max_write_ms = took_ms;
  if (!written) {
    k->write_failures++;
    app_say(hal, "NVS refused the kept state (%lu failures): trying again\n", (unsigned long)k->write_failures);
    k->nvs_due_at = tickretry_tick_after(hal->ticks(hal->ctx), APP_KEPT_NVS_RETRY_MS);
    return;
  }
  k->writes++;
  k->nvs_dirty = 0;
  k->nvs_due_at = tickretry_tick_after(hal->ticks(hal->ctx), APP_KEPT_NVS_EVERY_MS);
}

void app_keeper_keep(app_keeper *k, const tickretry_loop *loop, int always, uint32_t now) {
  app_kept *kept = k->kept;
  int moved = tickretry_changes() != k->changes || k->touched;
  if (moved || always) {
    int32_t length = tickretry_save(now, kept->image, sizeof kept->image);
    if (length < 0) {
      app_say(k->hal, "save refused: %ld\n", (long)length);
      return;
    }
    kept->length = (uint32_t)length;
    kept->slots = loop->slots;
    kept->magic = APP_KEPT_MAGIC;
    kept->sleep_ms = 0; /* app_keeper_before_sleep sets these two, and the CRC again */
    kept->next_upload_in = 0;
    kept->nvs_due_in = 0;
    kept->nvs_dirty = 0;
    kept->boot_epoch = k->boot_epoch;
    uint64_t wall = k->hal->wall_ms(k->hal->ctx);
    kept->saved_wall_ms[0] = (uint32_t)wall;
    kept->saved_wall_ms[1] = (uint32_t)(wall >> 32);
    kept->crc = kept_crc(kept);
    memcpy(k->rtc, kept, sizeof *kept);
    k->nvs_dirty = k->nvs_dirty || moved;
    k->changes = tickretry_changes();
    k->touched = 0;
  }
  keep_in_nvs(k);
}

/* The kept state to take up: RTC memory's when its CRC holds (after a deep sleep or a
 * software reset; it is the newer), else NVS's. A copy whose length or CRC is wrong is
 * refused whole and said so. 0 when there is none. */
static int kept_found(app_keeper *k, int *from_rtc) {
  const app_hal *hal = k->hal;
  *from_rtc = kept_valid(k->rtc);
  if (*from_rtc) {
    memcpy(k->kept, k->rtc, sizeof *k->kept);
    return 1;
  }
  size_t stored = k->nvs_ok ? hal->nvs_blob_length(hal->ctx, APP_KEPT_KEY) : 0;
  if (stored == 0) return 0;
  if (stored != sizeof *k->kept || hal->nvs_get_blob(hal->ctx, APP_KEPT_KEY, k->kept, sizeof *k->kept) != sizeof *k->kept ||
      !kept_valid(k->kept)) {
    app_say(hal, "kept state in NVS is corrupt or of another build (%u bytes): starting afresh\n", (unsigned)stored);
    return 0;
  }
  return 1;
}

/* The time since the image's save by the RTC, which runs on through a reset and a deep
 * sleep (as the simulator's, host/tools/src/device/boot.ts); after a power cut it may start
 * again from 0, and an RTC behind the save counts as no time passed. */
static uint32_t elapsed_since_save(const app_keeper *k) {
  uint64_t saved = ((uint64_t)k->kept->saved_wall_ms[1] << 32) | k->kept->saved_wall_ms[0];
  uint64_t wall = k->hal->wall_ms(k->hal->ctx);
  if (wall <= saved) return 0;
  return wall - saved > TICKRETRY_LIMIT_MAX_SPAN ? TICKRETRY_LIMIT_MAX_SPAN : (uint32_t)(wall - saved);
}

/* Every connection closed meanwhile, so attempts that were in flight are lost. A refusal
 * is another ABI after a firmware update. */
int app_keeper_resume(app_keeper *k, tickretry_loop *loop, const tickretry_loop_hal *hal, uint32_t now,
                      uint32_t *next_reading_in) {
  app_kept *kept = k->kept;
  int from_rtc;
  if (!kept_found(k, &from_rtc)) return 0;
  int woke = from_rtc && k->hal->woke_by_timer(k->hal->ctx);
  if (!woke) kept->sleep_ms = kept->next_upload_in = 0;
  for (int i = 0; i < TICKRETRY_LIMIT_OPERATIONS; i++) kept->bodies[i][APP_BODY_BYTES - 1] = '\0'; /* read to a NUL */
  app_reading_queue *q = &kept->readings; /* indexed by these: within bounds whatever the bytes */
  if (q->head >= APP_READINGS_QUEUE_LIMIT || q->count > APP_READINGS_QUEUE_LIMIT) q->head = q->count = 0;
  uint32_t elapsed = elapsed_since_save(k);
  int32_t restored = tickretry_restore(kept->image, kept->length, now, elapsed, TICKRETRY_RESTORE_FLAG_ATTEMPTS_LOST);
  if (restored != TICKRETRY_RESULT_OK) {
    app_say(k->hal, "kept state refused (%ld): starting afresh\n", (long)restored);
    return 0;
  }
  tickretry_loop_resume(loop, hal, &kept->slots, 1);
  *next_reading_in = kept->next_upload_in > kept->sleep_ms ? kept->next_upload_in - kept->sleep_ms : 0;
  k->changes = tickretry_changes();
  /* After a reset NVS may be older than what RTC memory kept; a timed wake knows. */
  k->nvs_dirty = woke ? (int)kept->nvs_dirty : from_rtc;
  if (woke) k->nvs_due_at = tickretry_tick_after(now, kept->nvs_due_in > kept->sleep_ms ? kept->nvs_due_in - kept->sleep_ms : 0);
  app_say(k->hal, "resumed after %s: %lu uploads live\n", woke ? "a deep sleep" : "a reset",
          (unsigned long)tickretry_loop_live(loop));
  k->boot_kind = woke ? "deep sleep" : "restart";
  k->boot_elapsed_ms = elapsed;
  k->boot_restored = tickretry_loop_live(loop);
  k->boot_restored_queued = q->count;
  return 1;
}

/* Operation ids start again: under the epoch of a sleep they could repeat its keys. */
void app_keeper_forget(app_keeper *k) {
  memset(k->kept, 0, sizeof *k->kept);
  memset(k->rtc, 0, sizeof *k->rtc);
  if (k->epoch_from_sleep) claim_epoch(k);
}

/* Attempts still out are lost with their connections: the restore counts them AMBIGUOUS
 * and the idempotent upload retries them. */
void app_keeper_before_sleep(app_keeper *k, const tickretry_loop *loop, uint32_t now, uint32_t sleep_ms,
                             uint32_t next_reading_in) {
  app_keeper_keep(k, loop, 1, now);
  if (!kept_valid(k->kept)) return; /* a refused save: nothing to note the sleep in */
  int32_t nvs_due_in = tickretry_ticks_until(now, k->nvs_due_at);
  k->kept->sleep_ms = sleep_ms;
  k->kept->next_upload_in = next_reading_in;
  k->kept->nvs_due_in = nvs_due_in > 0 ? (uint32_t)nvs_due_in : 0;
  k->kept->nvs_dirty = (uint32_t)k->nvs_dirty;
  /* The CRC covers these: without it again the wake refuses RTC memory's copy and
   * takes up NVS's older one (test/boards/app-host.test.ts, the deep sleep). */
  k->kept->crc = kept_crc(k->kept);
  memcpy(k->rtc, k->kept, sizeof *k->kept);
}
