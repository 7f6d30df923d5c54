/* The firmware's application (boards/app) on this machine, over host_hal.c: the board's own
 * composition (boards/app/device.c, which boards/esp32/src/main.cpp runs too; no Wi-Fi
 * session: the host's station is always on; built with UPLOAD_MQTT=1, the broker session over
 * host_broker.c's scripted broker), driven by a script on stdin in the command language of
 * test/app-scenarios/README.md, which also specifies the trace it prints (one line each:
 * loop events, readings, kept-state writes with a hash of their bytes, NVS writes, the
 * server's stores, a summary at the end) through the device's observer. This file is the
 * driver: the script, the virtual clock, the trace, the page's asks and the module swap.
 * test/boards/app_sim/sim.ts is its twin over the simulator's rooms; the two traces are
 * compared byte for byte. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generated/app_config.h"
#include "asks.h"
#include "device.h"
#include "host_hal.h"
#include "host_page.h"
#include "idle_sleep.h"
#include "module_swap.h"
#if UPLOAD_MQTT
#include "host_broker.h"
#endif
#include "tickretry.h"
#include "tickretry_loop.h"
#include "test_modules.h"

static app_hal board; /* host_hal.c's, its deep sleep and restart this driver's */
static app_device app;
static app_module_swap swap;
static struct {
  uint8_t *bytes; /* the page's checked upload, for the next pass; NULL: none */
  size_t size;
} module_posted;
static uint32_t rtc_hash;
/* The script's clock: it runs on through a deep sleep, while the board's tick starts again
 * at every boot. A pass falls due at next_pass_at of it, across commands. */
static uint32_t world_ms, next_pass_at;
/* The readings ended, taken and dropped this pass, said once the kept state holds them:
 * the taken and dropped in the order they came (a pass takes two at most, and a refused
 * begin drops every queued one). */
static struct {
  unsigned long seq;
  long reason;
} ends[TICKRETRY_LIMIT_OPERATIONS];
static int ends_unsaid;
static struct {
  int dropped;
  uint32_t n;
} notes[APP_READINGS_QUEUE_LIMIT + 4];
static int notes_unsaid;
/* "crash POINT N": the simulator's crash points (host/tools/src/device/app/kept.ts), where a
 * board's panic resets it (RTC memory kept) and the pass is cut short there. */
static struct {
  char point[16];
  int nth, seen;
} crash_at;
/* Where the board would not return (a crash, a restart, a deep sleep), the driver goes on
 * from the command that ran the pass. */
enum power_off { RUNNING, CRASHED, RESTARTED, SLEPT };
static jmp_buf off;
static uint32_t slept_ms;

static uint32_t now(void) { return board.ticks(board.ctx); }

static void crash_point(const char *point) {
  if (strcmp(point, crash_at.point) != 0 || ++crash_at.seen != crash_at.nth) return;
  printf("%lu crash %s\n", (unsigned long)now(), point);
  longjmp(off, CRASHED);
}

static void deep_sleep(void *ctx, uint32_t ms) {
  (void)ctx;
  slept_ms = ms;
  longjmp(off, SLEPT);
}

static void restart(void *ctx) {
  (void)ctx;
  longjmp(off, RESTARTED);
}

/* FNV-1a of the kept state's bytes: the trace's record of each write to RTC memory. */
static uint32_t kept_hash(void) {
  const uint8_t *p = (const uint8_t *)app.keeper.rtc;
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < sizeof *app.keeper.rtc; i++) h = (h ^ p[i]) * 16777619u;
  return h;
}

static void trace_rtc(void) {
  uint32_t h = kept_hash();
  if (h != rtc_hash) printf("%lu rtc kept hash %08lx\n", (unsigned long)now(), (unsigned long)h);
  rtc_hash = h;
}

/* ---- What the trace sees of the device (device.h's observer) ---- */

static void reading_noted(void *ctx, int dropped, uint32_t n) {
  (void)ctx;
  if (notes_unsaid == (int)(sizeof notes / sizeof notes[0])) return;
  notes[notes_unsaid].dropped = dropped;
  notes[notes_unsaid++].n = n;
}

static unsigned long body_seq(int32_t handle) {
  const char *key = UPLOAD_MQTT ? "\"reading\":" : "\"seq\":";
  const char *at = strstr(app_readings_body(&app.readings, handle), key);
  return at ? strtoul(at + strlen(key), NULL, 10) : 0;
}

static void seen_event(void *ctx, const tickretry_loop_event *event, const char *line) {
  (void)ctx;
  printf("%lu event %s\n", (unsigned long)now(), line);
  int reading = event->handle != app.sessions.broker_view.handle && event->handle != app.sessions.wifi_view.handle;
  if (event->kind == TICKRETRY_LOOP_EVENT_END && reading && ends_unsaid < TICKRETRY_LIMIT_OPERATIONS)
    ends[ends_unsaid].seq = body_seq(event->handle), ends[ends_unsaid++].reason = (long)event->reason;
}

static void answered(void *ctx) {
  (void)ctx;
  crash_point("answer"); /* the upstream may have stored it; not reported yet */
}

static void keeping(void *ctx, int writes) {
  (void)ctx;
  if (writes) crash_point("before-write");
}

/* Each reading ended, taken or dropped said once the kept state holds them (as the
 * simulator says them once its state file does), between the crash points around it. */
static void kept(void *ctx, uint32_t t, int writes) {
  (void)ctx;
  trace_rtc();
  for (int i = 0; i < ends_unsaid; i++)
    printf("%lu ended seq %lu reason %ld\n", (unsigned long)t, ends[i].seq, ends[i].reason);
  ends_unsaid = 0;
  for (int i = 0; i < notes_unsaid; i++)
    printf("%lu reading %s %lu\n", (unsigned long)t, notes[i].dropped ? "dropped" : "seq", (unsigned long)notes[i].n);
  notes_unsaid = 0;
  if (writes) crash_point("after-write");
}

static void afresh(void *ctx) {
  (void)ctx;
  printf("%lu scheduler afresh\n", (unsigned long)now());
}

static void resumed(void *ctx, uint32_t next_reading_in) {
  (void)ctx;
  printf("%lu resumed %s next reading in %lu\n", (unsigned long)now(), app.keeper.boot_kind,
         (unsigned long)next_reading_in);
}

static void sleeping(void *ctx, uint32_t sleep_ms, int32_t until_reading) {
  (void)ctx;
  trace_rtc();
  printf("%lu deep sleep %lu next reading in %ld\n", (unsigned long)now(), (unsigned long)sleep_ms,
         (long)until_reading);
}

static void fault(void *ctx, int32_t code) {
  (void)ctx;
  printf("%lu fault %ld\n", (unsigned long)now(), (long)code);
}

static const app_observer observer = {
    .ctx = NULL,
    .event = seen_event,
    .noted = reading_noted,
    .answered = answered,
    .keeping = keeping,
    .kept = kept,
    .afresh = afresh,
    .resumed = resumed,
    .sleeping = sleeping,
    .fault = fault,
};

/* An uploaded module under trial that fails a pass: the restart rolls it back. */
static void module_failed(void) {
  if (app_module_swap_failed(&swap)) board.restart(board.ctx);
}

/* ---- The board's boot and the script's clock ---- */

/* The device's boot as main.cpp's setup() runs it, less the board's own steps (the radio,
 * the access point, the page's server); the module swap's boot is page_loop.cpp's there. */
static void boot(const char *how) {
  printf("%lu boot %s\n", (unsigned long)now(), how);
  ends_unsaid = notes_unsaid = 0; /* what the kept state never held: ends come again */
  app_device_begin(&app, &board, &observer, 1, "a0b1c2d3e4f5");
  app.module_failed = module_failed;
  const char *rolled_back = app_module_swap_boot(&swap, &board, &app.keeper, &host_hal_rtc_trial, 0);
  app_device_start(&app, rolled_back);
  if (rolled_back && app.scheduler_ok) printf("%lu module rollback %s\n", (unsigned long)now(), rolled_back);
  rtc_hash = kept_hash();
}

/* A board's reset ends the module's instance with everything else in RAM: an uploaded
 * module, and one the page posted. */
static void reboot(int woke_by_timer, uint32_t slept, int power_cut) {
  tickretry_close();
  free(swap.active);
  free(swap.staged);
  free(module_posted.bytes);
  memset(&swap, 0, sizeof swap);
  memset(&module_posted, 0, sizeof module_posted);
  if (power_cut) host_hal_power_cut();
  else host_hal_reboot(woke_by_timer, slept);
  boot(power_cut ? "power-on" : woke_by_timer ? "timer wake" : "reset");
}

static void advance(uint32_t ms) {
  host_hal_advance(ms);
  world_ms += ms;
}

static void reboot_now(int power_cut) {
  next_pass_at = world_ms;
  reboot(0, 0, power_cut);
}

/* After the device did not return: a deep sleep's timed wake `slept_ms` later, else a
 * reset; the next pass comes at once. */
static void powered_off(int how) {
  if (how != SLEPT) return reboot_now(0);
  world_ms += slept_ms;
  next_pass_at = world_ms;
  reboot(1, slept_ms, 0);
}

static void say_page(int status, const char *message, const char *field) {
  printf("%lu page %d %s", (unsigned long)now(), status, message);
  if (field) printf(" (%s)", field);
  printf("\n");
}

/* The module swap's part of a pass's start (page_loop.cpp's): the module taken by the last
 * pass swapped in, then the one the page posted since taken for the next. */
static void apply_module_asks(void) {
  char text[APP_ASK_TEXT_BYTES];
  int status;
  if (app_device_swap_module(&app, &swap, &status, text, sizeof text)) {
    say_page(status, text, NULL);
    if (app_module_swap_on_trial(&swap)) printf("%lu module trial\n", (unsigned long)now());
  }
  const char *refusal;
  if (module_posted.bytes && !app_module_swap_take(&swap, module_posted.bytes, module_posted.size, &refusal))
    say_page(422, refusal, NULL);
  module_posted.bytes = NULL;
}

/* What the page asked, carried out at the pass's start (asks.c), and its answer. */
static void apply_asks(void) {
  char url[160];
  board.nvs_get_string(board.ctx, APP_URL_KEY, HOST_UPSTREAM_URL, url, sizeof url);
  app_asks_apply(&app.requests, &board, url);
  apply_module_asks();
  int status;
  const char *message, *field;
  if (app_requests_answered(&app.requests, &status, &message, &field)) say_page(status, message, field);
}

/* One pass as main.cpp's loop() runs it: the page's asks (which the board does in the loop's
 * serve step, at the end of the pass before), the device's pass and what falls due after it;
 * the wait until the next (at least 1 ms, so that the script's clock moves). */
static uint32_t pass(void) {
  apply_asks();
  uint32_t due = app_device_pass(&app);
  app_device_after_pass(&app, due);
  uint32_t wait = tickretry_loop_sleep(due, APP_LOOP_PASS_MAX_WAIT_MS);
  return wait == 0 ? 1 : wait;
}

/* `ms` of the script's clock: every pass that falls due in it, then the clock stands at its
 * end (the next pass may fall due in the next run). */
static void run(uint32_t ms) {
  static uint32_t end; /* kept across a longjmp */
  end = world_ms + ms;
  int how = setjmp(off);
  if (how != RUNNING) powered_off(how);
  while (app.scheduler_ok && (int32_t)(next_pass_at - end) <= 0) {
    advance(next_pass_at - world_ms);
    uint32_t wait = pass();
    next_pass_at = world_ms + wait;
  }
  if ((int32_t)(end - world_ms) > 0) advance(end - world_ms);
}

/* The page's sleep, between passes. */
static void sleep_now(uint32_t ms) {
  int how = setjmp(off);
  if (how == RUNNING) app_device_deep_sleep(&app, ms);
  else powered_off(how);
}

static int fate_of(const char *name, host_fate *fate) {
  static const char *const names[] = {"ok", "503", "down", "hang"};
  for (int i = 0; i < 4; i++)
    if (strcmp(name, names[i]) == 0) return *fate = (host_fate)i, 1;
  return 0;
}

#if UPLOAD_MQTT
/* "broker up|down|refuse CODE": 0 when not one. */
static int broker_command(const char *state, int code) {
  static const char *const names[] = {"up", "down", "refuse"};
  for (int i = 0; i < 3; i++)
    if (strcmp(state, names[i]) == 0) return host_broker_set((host_broker_state)i, code, now()), 1;
  return 0;
}
#endif

/* What the page's status shows: whether a device password is set. */
static int password_set(void) { return board.nvs_get_string(board.ctx, APP_DEVICE_PASSWORD_KEY, "", NULL, 0) > 0; }

/* One script line; 0 when it is not understood. */
static int command(const char *line) {
  char word[16], arg[16], field[3][160];
  unsigned long ms = 0;
  int n = sscanf(line, "%15s %15s %lu", word, arg, &ms);
  host_fate fate;
  if (n < 1 || word[0] == '#') return 1;
  if (strcmp(word, "settings") == 0 && sscanf(line, "%*s %159s %159s %159s", field[0], field[1], field[2]) == 3)
    host_page_settings(&app.requests, field[0], field[1], field[2], now());
  else if (strcmp(word, "password") == 0 && sscanf(line, "%*s %159s", field[0]) == 1)
    host_page_password(&app.requests, &board, field[0], password_set() == 0, now());
  else if (strcmp(word, "module") == 0 && n == 2 && !module_posted.bytes) { /* one ask at a time */
    snprintf(field[0], sizeof field[0], "%s/%s.signed.wasm", APP_MODULES_DIR, arg);
    host_page_module(field[0], test_build_key, now(), &module_posted.bytes, &module_posted.size);
  }
  else if (strcmp(word, "transport") == 0 && n == 2) /* the script's: this build's */
    return strcmp(arg, UPLOAD_MQTT ? "mqtt" : "http") == 0;
#if UPLOAD_MQTT
  else if (strcmp(word, "broker") == 0 && n >= 2) return broker_command(arg, n == 3 ? (int)ms : 0);
#endif
  else if (strcmp(word, "net") == 0 && n == 3 && fate_of(arg, &fate)) host_hal_script(fate, (uint32_t)ms);
  else if (strcmp(word, "fallback") == 0 && n == 3 && fate_of(arg, &fate)) host_hal_fallback(fate, (uint32_t)ms);
  else if (strcmp(word, "run") == 0 && n == 2) run((uint32_t)strtoul(arg, NULL, 10));
  else if (strcmp(word, "sleep") == 0 && n == 2) sleep_now((uint32_t)strtoul(arg, NULL, 10));
  else if (strcmp(word, "idle-sleep") == 0) app.sleep_max_ms = n == 2 ? (uint32_t)strtoul(arg, NULL, 10) : APP_SLEEP_MAX_MS;
  else if (strcmp(word, "upload") == 0) app_requests_upload(&app.requests);
  else if (strcmp(word, "ask-restart") == 0) app_requests_ask_restart(&app.requests);
  else if (strcmp(word, "ask-sleep") == 0 && n == 2) app_requests_ask_sleep(&app.requests, (uint32_t)strtoul(arg, NULL, 10));
  else if (strcmp(word, "reboot") == 0) reboot_now(0);
  else if (strcmp(word, "powercut") == 0) reboot_now(1);
  else if (strcmp(word, "crash") == 0 && n == 3) {
    snprintf(crash_at.point, sizeof crash_at.point, "%s", arg);
    crash_at.nth = (int)ms, crash_at.seen = 0;
  }
  else return 0;
  return 1;
}

/* The operations live, less the broker session's: the readings'. */
static uint32_t live_readings(void) {
  uint32_t live = tickretry_loop_live(&app.uploads);
#if UPLOAD_MQTT
  int32_t state = tickretry_state(app.sessions.broker_view.handle);
  int session_live = state == TICKRETRY_STATE_WAITING || state == TICKRETRY_STATE_IN_FLIGHT || state == TICKRETRY_STATE_UP;
  if (app.sessions.broker_view.handle && session_live && live > 0) live--;
#endif
  return live;
}

int main(void) {
  char line[128];
  board = host_hal;
  board.deep_sleep = deep_sleep;
  board.restart = restart;
  host_hal_power_on();
  boot("power-on");
  while (fgets(line, sizeof line, stdin)) {
    if (!command(line)) {
      fprintf(stderr, "not a command: %s", line);
      return 2;
    }
  }
  printf("%lu nvs writes %lu\n", (unsigned long)now(), (unsigned long)app.keeper.writes);
  const app_reading_queue *queue = &app.keeper.kept->readings;
  printf("%lu summary live %lu queued %lu dropped %lu seq %lu\n", (unsigned long)now(), (unsigned long)live_readings(),
         (unsigned long)queue->count, (unsigned long)queue->dropped, (unsigned long)app.keeper.kept->upload_seq);
  tickretry_close();
  return app.scheduler_ok ? 0 : 1;
}
