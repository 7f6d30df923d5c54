/* The C shape of one differential scenario (test/boards/scenarios.json); the data
 * itself is generated into build/native/scenarios.h by scripts/gen/scenarios.ts. */
#ifndef SCENARIO_H
#define SCENARIO_H

#include <stddef.h>
#include <stdint.h>

#include "tickretry.h"

/* One attempt's fate: an outcome after `latency` ticks, or a hang (never answers). */
typedef struct scenario_fate {
  int32_t outcome;
  uint32_t latency;
  uint32_t retry_after;
  int hang;
} scenario_fate;

/* Fates taken in order; the last repeats once they run out (host/library/src/faults.ts). */
typedef struct scenario_script {
  const scenario_fate *fates;
  uint32_t count;
} scenario_script;

/* Before loop step `step`, the clock moves on by `ticks`. */
typedef struct scenario_stall {
  uint32_t step;
  uint32_t ticks;
} scenario_stall;

/* Before loop step `step` (after its stall), the image is saved, the instance closed, a
 * fresh one opened and the image restored into it `elapsed` ticks later; attempts_lost:
 * the answers in flight are lost with the old instance (a reboot), else they come. */
typedef struct scenario_restore {
  uint32_t step;
  uint32_t elapsed;
  int attempts_lost;
} scenario_restore;

/* `at` ticks after the start, the session of script `script` loses its connection. */
typedef struct scenario_drop {
  uint32_t at;
  uint32_t script;
} scenario_drop;

typedef struct scenario {
  const char *name;
  uint32_t seed_lo, seed_hi;
  uint32_t start;
  tickretry_policy policy; /* policy 0 */
  const tickretry_policy *extra_policies; /* policies 1, 2, ... */
  uint32_t extra_policy_count;
  int has_budget;
  tickretry_budget budget;
  const scenario_script *scripts;
  uint32_t script_count;
  const uint32_t *script_policies; /* each script's policy; NULL: 0 for all */
  const scenario_drop *drops;      /* in the order of `at` */
  uint32_t drop_count;
  const uint32_t *link_ups; /* ticks after the start at which the link comes back, in order */
  uint32_t link_up_count;
  const scenario_stall *stalls;
  uint32_t stall_count;
  const scenario_restore *restores;
  uint32_t restore_count;
} scenario;

#endif
