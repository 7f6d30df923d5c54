// The flaky upstream's scenarios: what the next request meets, as data, so the server
// stays a dumb executor and tests can name a scenario and know what it does.

/** What the upstream does with one request. */
export type Action =
  /** Answer `status` after `delayMs` (a hang is a long delay); Retry-After in seconds. */
  | { kind: "answer"; status: number; delayMs: number; retryAfterS?: number }
  /** Read the whole request, then reset the connection: the client cannot know whether it ran. */
  | { kind: "reset" };

export interface Timing {
  /** Processing time of a normal answer, ms (default 20). */
  latencyMs: number;
  /** How long a hung request is held before it is answered (far past any attempt timeout). */
  hangMs: number;
  /** The freeze scenario: how long the upstream holds every request. */
  freezeMs: number;
  /** The freeze scenario: how long, after the freeze, it sheds the backlog with 503s. */
  backlogMs: number;
}

export const DEFAULT_TIMING: Timing = { latencyMs: 20, hangMs: 60_000, freezeMs: 10_000, backlogMs: 10_000 };

export interface Scenario {
  summary: string;
  /** elapsedMs: since the scenario was switched on; rand: uniform in [0, 1). */
  decide(elapsedMs: number, rand: () => number, t: Timing): Action;
}

const ok = (t: Timing): Action => ({ kind: "answer", status: 200, delayMs: t.latencyMs });

export const SCENARIOS = {
  healthy: { summary: "200 after the normal latency", decide: (_e, _r, t) => ok(t) },
  flaky: {
    summary: "a seeded mix: 55% 200, 10% 503, 10% 503 + Retry-After, 10% 429, 10% reset, 5% hang",
    decide(_e, rand, t) {
      const x = rand();
      if (x < 0.55) return ok(t);
      if (x < 0.65) return { kind: "answer", status: 503, delayMs: t.latencyMs };
      if (x < 0.75) return { kind: "answer", status: 503, delayMs: t.latencyMs, retryAfterS: 1 };
      if (x < 0.85) return { kind: "answer", status: 429, delayMs: t.latencyMs, retryAfterS: 1 };
      if (x < 0.95) return { kind: "reset" };
      return { kind: "answer", status: 200, delayMs: t.hangMs };
    },
  },
  outage: {
    summary: "503 without Retry-After to everything (TRANSIENT: retried with backoff)",
    decide: (_e, _r, t) => ({ kind: "answer", status: 503, delayMs: t.latencyMs }),
  },
  busy: {
    summary: "503 with Retry-After: 2 (THROTTLED: the next attempt waits at least 2 s)",
    decide: (_e, _r, t) => ({ kind: "answer", status: 503, delayMs: t.latencyMs, retryAfterS: 2 }),
  },
  throttle: {
    summary: "429 with Retry-After: 1 (THROTTLED)",
    decide: (_e, _r, t) => ({ kind: "answer", status: 429, delayMs: t.latencyMs, retryAfterS: 1 }),
  },
  hang: {
    summary: "holds every request far past the attempt timeout, then answers 200 (the device gave up)",
    decide: (_e, _r, t) => ({ kind: "answer", status: 200, delayMs: t.hangMs }),
  },
  reset: {
    summary: "stores the upload, then resets the connection (AMBIGUOUS: retried with the same key)",
    decide: () => ({ kind: "reset" }),
  },
  freeze: {
    summary:
      "holds every request for the freeze, answers the backlog with 503 + Retry-After: 2, then recovers",
    decide(elapsed, _r, t) {
      if (elapsed < t.freezeMs) {
        return { kind: "answer", status: 503, delayMs: t.freezeMs - elapsed, retryAfterS: 2 };
      }
      if (elapsed < t.freezeMs + t.backlogMs) {
        return { kind: "answer", status: 503, delayMs: t.latencyMs, retryAfterS: 2 };
      }
      return ok(t);
    },
  },
} satisfies Record<string, Scenario>;

export type ScenarioName = keyof typeof SCENARIOS;

export const SCENARIO_NAMES = Object.keys(SCENARIOS) as ScenarioName[];

export function isScenarioName(name: string): name is ScenarioName {
  return Object.hasOwn(SCENARIOS, name);
}

/** The message for a name that is not a scenario, listing those that are. */
export function unknownScenario(name: string): string {
  return `--scenario: no scenario "${name}"; want one of ${SCENARIO_NAMES.join(", ")}`;
}
