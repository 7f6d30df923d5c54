/* The differential test program: runs every scenario of test/boards/scenarios.json
 * through the tickretry loop (boards/tickretry/tickretry_loop.c) over tickretry.h, with a
 * simulated HAL in virtual time, and prints the trace test/fixtures/scenarios.ts prints under
 * V8 with the TypeScript loop (host/library/src/loop.ts): every event and every pass's
 * answer. Its HAL is the C twin of host/library/src/driver.ts's: the same clock jumps, the
 * same arrival order, the same step bound. Built with gcc for the host and with picolibc for
 * RV32IMC under QEMU (test/boards/Makefile); exits 1 on any failure.
 */
#include <inttypes.h>
#include <stdio.h>

#include "tickretry_loop.h"
#include "tickretry_trace.h"
#include "scenarios.h"
#include "tickretry_ticks.h"

#define MAX_STEPS 10000u /* runOperations' default bound */
#define MAX_PENDING 64u

/* A started attempt whose answer is on its way. */
typedef struct pending {
  tickretry_loop_result result;
  uint32_t at;  /* arrival tick */
  uint32_t seq; /* start order, which breaks ties in arrival like a stable sort */
} pending;

/* The HAL's world: a u32 clock, each operation's script, answers in flight, the
 * connections lost and link-ups still to come. */
typedef struct sim {
  uint32_t now;
  const scenario *s;
  int32_t handles[TICKRETRY_LIMIT_OPERATIONS]; /* in begin order; the i-th takes script i */
  uint32_t next_fate[TICKRETRY_LIMIT_OPERATIONS];
  pending pending[MAX_PENDING];
  uint32_t pending_count;
  uint32_t seq;
  uint32_t next_drop, next_link_up; /* the first of s->drops and s->link_ups not yet told */
  int overflow;
} sim;

static uint32_t sim_ticks(void *ctx) { return ((sim *)ctx)->now; }

/* The next lost connection in list order, once its tick is reached. */
static int sim_dropped(void *ctx, uint32_t now, int32_t *handle) {
  sim *w = ctx;
  if (w->next_drop == w->s->drop_count) return 0;
  const scenario_drop *d = &w->s->drops[w->next_drop];
  if (!tickretry_tick_reached(now, tickretry_tick_after(w->s->start, d->at))) return 0;
  w->next_drop++;
  *handle = w->handles[d->script];
  return 1;
}

/* Whether a link-up's tick was reached since the last pass. */
static int sim_link_up(void *ctx, uint32_t now) {
  sim *w = ctx;
  uint32_t before = w->next_link_up;
  while (w->next_link_up < w->s->link_up_count) {
    uint32_t at = tickretry_tick_after(w->s->start, w->s->link_ups[w->next_link_up]);
    if (!tickretry_tick_reached(now, at)) break;
    w->next_link_up++;
  }
  return w->next_link_up > before;
}

static void sim_start(void *ctx, int32_t handle, int32_t attempt, int32_t operation_id, uint32_t now) {
  sim *w = ctx;
  (void)operation_id;
  for (uint32_t i = 0; i < w->s->script_count; i++) {
    if (w->handles[i] != handle) continue;
    const scenario_script *script = &w->s->scripts[i];
    uint32_t k = w->next_fate[i] < script->count ? w->next_fate[i] : script->count - 1;
    w->next_fate[i]++;
    const scenario_fate *fate = &script->fates[k];
    if (fate->hang) return;
    if (w->pending_count == MAX_PENDING) {
      w->overflow = 1;
      return;
    }
    w->pending[w->pending_count++] = (pending){
        .result = {.handle = handle,
                   .attempt = attempt,
                   .outcome = fate->outcome,
                   .retry_after = fate->retry_after},
        .at = tickretry_tick_after(now, fate->latency),
        .seq = w->seq++,
    };
    return;
  }
}

/* The earliest answer that has arrived by now (ties: the one started first). */
static int sim_collect(void *ctx, uint32_t now, tickretry_loop_result *out) {
  sim *w = ctx;
  uint32_t best = w->pending_count;
  for (uint32_t i = 0; i < w->pending_count; i++) {
    if (!tickretry_tick_reached(now, w->pending[i].at)) continue;
    int32_t d = tickretry_ticks_until(now, w->pending[i].at);
    if (best == w->pending_count) {
      best = i;
      continue;
    }
    int32_t db = tickretry_ticks_until(now, w->pending[best].at);
    if (d < db || (d == db && w->pending[i].seq < w->pending[best].seq)) best = i;
  }
  if (best == w->pending_count) return 0;
  *out = w->pending[best].result;
  w->pending[best] = w->pending[--w->pending_count];
  return 1;
}

static void print_event(void *ctx, const tickretry_loop_event *e) {
  char line[96];
  (void)ctx;
  tickretry_loop_event_format(e, line, sizeof line);
  puts(line);
}

/* The image's CRC, its last four bytes (little-endian), for the trace line. */
static uint32_t image_crc(const uint8_t *image, int32_t length) {
  if (length < 4) return 0;
  const uint8_t *p = image + length - 4;
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int failed(const char *scenario_name, const char *why) {
  const char *engine = tickretry_error();
  fprintf(stderr, "scenario \"%s\": %s%s%s\n", scenario_name, why, engine ? ": " : "",
          engine ? engine : "");
  return 0;
}

/* A restore step (scenario.h): save, close, open afresh, restore `elapsed` later; the
 * loop takes up its slots again, without the answers in flight when they are lost. */
static int restart(sim *w, tickretry_loop *loop, const scenario_restore *r) {
  static uint8_t image[TICKRETRY_IMAGE_AREA_BYTES];
  int32_t length = tickretry_save(w->now, image, sizeof image);
  if (length < 0) return 0;
  tickretry_close();
  if (tickretry_open() != TICKRETRY_RESULT_OK) return 0;
  w->now = tickretry_tick_after(w->now, r->elapsed);
  uint32_t flags = r->attempts_lost ? TICKRETRY_RESTORE_FLAG_ATTEMPTS_LOST : 0;
  int32_t result = tickretry_restore(image, (uint32_t)length, w->now, r->elapsed, flags);
  printf("%" PRIu32 " restore bytes=%" PRId32 " crc=%08" PRIx32 " elapsed=%" PRIu32 " lost=%d -> %" PRId32
         "\n",
         w->now, length, image_crc(image, length), r->elapsed, r->attempts_lost, result);
  if (r->attempts_lost) w->pending_count = 0;
  tickretry_loop_slots slots = loop->slots;
  tickretry_loop_resume(loop, loop->hal, &slots, r->attempts_lost);
  return 1;
}

static const char *const breaker_names[] = {
    [TICKRETRY_BREAKER_CLOSED] = "CLOSED",
    [TICKRETRY_BREAKER_OPEN] = "OPEN",
    [TICKRETRY_BREAKER_HALF_OPEN] = "HALF_OPEN",
    [TICKRETRY_BREAKER_PROBING] = "PROBING",
    [TICKRETRY_BREAKER_ISOLATED] = "ISOLATED",
};

/* Policy `id` of the scenario: 0, or one of its extra policies. */
static const tickretry_policy *policy_of(const scenario *s, uint32_t id) {
  return id == 0 ? &s->policy : &s->extra_policies[id - 1];
}

/* init, every policy and the budget: the setup line test/fixtures/scenarios.ts prints. */
static void set_up(const scenario *s) {
  tickretry_init(s->seed_lo, s->seed_hi);
  int32_t policy = tickretry_set_policy(0, &s->policy);
  int32_t budget = s->has_budget ? tickretry_set_budget(&s->budget) : 0;
  printf("== %s\nsetup policy=%" PRId32 " budget=%" PRId32 " worst=%" PRId32, s->name, policy,
         budget, tickretry_worst_case(0));
  for (uint32_t id = 1; id <= s->extra_policy_count; id++) {
    printf(" policy%" PRIu32 "=%" PRId32, id, tickretry_set_policy(id, policy_of(s, id)));
  }
  printf("\n");
}

/* A pass's line: what it returned, and every breaker of a policy that has one. */
static void print_pass(const scenario *s, uint32_t now, uint32_t due) {
  printf("%" PRIu32 " pass -> %" PRIu32, now, due);
  for (uint32_t id = 0; id <= s->extra_policy_count; id++) {
    if (policy_of(s, id)->break_after == 0) continue;
    int32_t state = tickretry_breaker_state(id);
    const char *name = state >= 0 && state <= TICKRETRY_BREAKER_ISOLATED && breaker_names[state]
                           ? breaker_names[state]
                           : "?";
    printf(" breaker%" PRIu32 "=%s", id, name);
  }
  printf("\n");
}

/* Ticks from now to whichever comes first: the module's next due time (`due`), the next
 * answer, the next lost connection or link-up; 0 with *none set when nothing is to come. */
static uint32_t sim_wait(const sim *w, uint32_t due, int *none) {
  int idle = due == TICKRETRY_NEXT_DUE_IDLE;
  uint32_t wait = due;
  uint32_t at[MAX_PENDING + 2];
  uint32_t n = 0;
  for (uint32_t i = 0; i < w->pending_count; i++) at[n++] = w->pending[i].at;
  if (w->next_drop < w->s->drop_count) at[n++] = w->s->drops[w->next_drop].at;
  if (w->next_link_up < w->s->link_up_count) at[n++] = w->s->link_ups[w->next_link_up];
  for (uint32_t i = w->pending_count; i < n; i++) at[i] = tickretry_tick_after(w->s->start, at[i]);
  for (uint32_t i = 0; i < n; i++) {
    int32_t d = tickretry_ticks_until(w->now, at[i]);
    uint32_t until = d > 0 ? (uint32_t)d : 0;
    if (idle || until < wait) wait = until;
    idle = 0;
  }
  *none = idle;
  return wait;
}

/* failed(), for step: -1. */
static int step_failed(const char *scenario_name, const char *why) {
  failed(scenario_name, why);
  return -1;
}

/* One loop step of the scenario (its stalls and restores, then a pass, then the clock's
 * jump): 1 to go on, 0 once nothing is live, -1 on a failure (reported). */
static int step(sim *w, tickretry_loop *loop, uint32_t n) {
  const scenario *s = w->s;
  for (uint32_t i = 0; i < s->stall_count; i++) {
    if (s->stalls[i].step == n) w->now = tickretry_tick_after(w->now, s->stalls[i].ticks);
  }
  for (uint32_t i = 0; i < s->hold_count; i++) {
    const scenario_hold *h = &s->holds[i];
    if (h->step != n) continue;
    int32_t held = h->hold ? tickretry_hold_breaker(h->policy, w->now)
                           : tickretry_release_breaker(h->policy, w->now);
    if (held != TICKRETRY_RESULT_OK) return step_failed(s->name, "a breaker hold or release refused");
  }
  for (uint32_t i = 0; i < s->restore_count; i++) {
    if (s->restores[i].step == n && !restart(w, loop, &s->restores[i])) {
      return step_failed(s->name, "save or restore failed");
    }
  }
  uint32_t due = tickretry_loop_pass(loop);
  if (tickretry_loop_fault(loop) || tickretry_error()) return step_failed(s->name, "engine failed");
  print_pass(s, w->now, due); /* the two loops, pass by pass */
  if (w->overflow) return step_failed(s->name, "too many answers in flight");
  if (tickretry_loop_live(loop) == 0) return 0;
  int none;
  uint32_t wait = sim_wait(w, due, &none);
  if (none) return step_failed(s->name, "nothing left to wait for, yet operations are live");
  w->now = tickretry_tick_after(w->now, wait);
  return 1;
}

/* Runs one scenario; 1 on success. */
static int run(const scenario *s) {
  sim w = {.now = s->start, .s = s};
  const tickretry_loop_hal hal = {
      .ctx = &w,
      .ticks = sim_ticks,
      .start_attempt = sim_start,
      .collect = sim_collect,
      .sessions = &tickretry_loop_sessions,
      .dropped = sim_dropped,
      .link_up = sim_link_up,
      .on_event = print_event,
  };
  tickretry_loop loop;

  set_up(s);
  if (s->script_count > TICKRETRY_LIMIT_OPERATIONS) return failed(s->name, "too many scripts");
  tickretry_loop_init(&loop, &hal);
  int32_t ids[TICKRETRY_LIMIT_OPERATIONS];
  int refused = 0;
  for (uint32_t i = 0; i < s->script_count; i++) {
    w.handles[i] = tickretry_loop_begin(&loop, s->script_policies ? s->script_policies[i] : 0, w.now);
    refused |= w.handles[i] < 0;
    ids[i] = tickretry_operation_id(w.handles[i]);
  }
  if (refused) return failed(s->name, "begin refused");
  int going = 1;
  for (uint32_t n = 0; going > 0 && tickretry_loop_live(&loop) > 0; n++) {
    if (n >= MAX_STEPS) return failed(s->name, "no end after 10000 steps");
    going = step(&w, &loop, n);
  }
  if (going < 0) return 0;

  printf("ids");
  for (uint32_t i = 0; i < s->script_count; i++) printf(" %" PRId32, ids[i]);
  printf("\ncounters");
  for (uint32_t id = 0; id < TICKRETRY_COUNTER_COUNT; id++) printf(" %" PRId32, tickretry_counter(id));
  printf(" tokens %" PRId32 "\n", tickretry_tokens());
  return 1;
}

int main(void) {
  if (tickretry_open() != TICKRETRY_RESULT_OK) return !failed("open", "tickretry_open");
  /* One call per statement: argument evaluation order is unspecified in C. */
  int32_t poll = tickretry_poll(0);
  uint32_t next_due = tickretry_next_due(0);
  int32_t begin = tickretry_begin(0, 0);
  int32_t tokens = tickretry_tokens();
  printf("before-init poll=%" PRId32 " nextDue=%" PRIu32 " begin=%" PRId32 " tokens=%" PRId32 "\n",
         poll, next_due, begin, tokens);
  printf("classify");
  for (size_t i = 0; i < sizeof classify_statuses / sizeof classify_statuses[0]; i++) {
    int32_t status = classify_statuses[i];
    int32_t plain = tickretry_classify_http(status, 0);
    int32_t with_retry_after = tickretry_classify_http(status, 1);
    printf(" %" PRId32 ":%" PRId32 ",%" PRId32, status, plain, with_retry_after);
  }
  printf("\n");
  int ok = 1;
  for (uint32_t i = 0; i < SCENARIO_COUNT && ok; i++) ok = run(&scenarios[i]);
  tickretry_close();
  return ok ? 0 : 1;
}
