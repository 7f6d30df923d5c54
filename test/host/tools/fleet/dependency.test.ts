// The synthetic dependency's timeline: workers and service time, the bounded queue that
// answers 503 at once, a freeze that holds requests and a resume that sheds them.
import { describe, expect, it } from "vitest";
import {
  Dependency,
  type DependencyChange,
  type DependencySettings,
} from "../../../../host/tools/src/fleet/dependency.js";
import { EventQueue } from "../../../../host/tools/src/event-queue.js";
import { EventKind } from "../../../../host/tools/src/fleet/events.js";

interface Answer {
  id: number;
  status: number;
  time: number;
}

/** Runs a dependency: requests arrive at the given times (id = index), the script applies. */
function simulate(settings: Partial<DependencySettings>, arrivals: number[]): Answer[] {
  const full: DependencySettings = {
    workers: 1,
    serviceMs: 40,
    queueLimit: 100,
    holdLimit: Infinity,
    script: [],
    ...settings,
  };
  const events = new EventQueue();
  let tie = 0;
  const answers: Answer[] = [];
  const dependency = new Dependency(full, {
    schedule: (time, kind, arg) => events.push(time, tie++, kind, arg),
    answered: (id, status, time) => answers.push({ id, status, time }),
  });
  full.script.forEach((c, i) => events.push(c.at, tie++, EventKind.DEPENDENCY_CHANGE, i));
  // Arrivals ride the WAKE kind here: this harness has no devices.
  arrivals.forEach((at, id) => events.push(at, tie++, EventKind.WAKE, id));
  while (events.pop()) {
    const { time, kind, arg } = events.popped;
    if (kind === EventKind.DEPENDENCY_CHANGE) dependency.change(arg, time);
    else if (kind === EventKind.SERVICE_DONE) dependency.serviceDone(arg, time);
    else dependency.arrive(arg, time);
  }
  return answers;
}

const freeze = (from: number, to: number, after: Omit<DependencyChange, "at"> = {}): DependencyChange[] => [
  { at: from, frozen: true },
  { at: to, frozen: false, ...after },
];

describe("dependency", () => {
  it("serves in FIFO order, one service time per request per worker", () => {
    expect(simulate({ workers: 2 }, [0, 0, 0, 10])).toEqual([
      { id: 0, status: 200, time: 40 },
      { id: 1, status: 200, time: 40 },
      { id: 2, status: 200, time: 80 },
      { id: 3, status: 200, time: 80 },
    ]);
  });

  it("answers 503 at once when the workers and the queue are full", () => {
    const answers = simulate({ workers: 1, queueLimit: 2 }, [0, 0, 0, 0, 45]);
    expect(answers.slice(0, 2)).toEqual([
      { id: 3, status: 503, time: 0 },
      { id: 0, status: 200, time: 40 },
    ]);
    // At 45 the queue holds one again (id 2): id 4 is queued, not refused.
    expect(answers.filter((a) => a.status === 503)).toHaveLength(1);
    expect(answers.at(-1)).toEqual({ id: 4, status: 200, time: 160 });
  });

  it("holds every request during a freeze and answers the backlog 503 at the resume", () => {
    const answers = simulate(
      { workers: 1, queueLimit: 1, script: freeze(100, 1500) },
      [0, 100, 200, 300, 400, 1600],
    );
    expect(answers).toEqual([
      { id: 0, status: 200, time: 40 },
      // Held past the queue limit: a frozen server keeps accepting (holdLimit Infinity).
      { id: 1, status: 503, time: 1500 },
      { id: 2, status: 503, time: 1500 },
      { id: 3, status: 503, time: 1500 },
      { id: 4, status: 503, time: 1500 },
      { id: 5, status: 200, time: 1640 },
    ]);
  });

  it("lets requests in service when the freeze begins finish", () => {
    expect(simulate({ workers: 1, script: freeze(10, 500) }, [0, 5])).toEqual([
      { id: 0, status: 200, time: 40 },
      { id: 1, status: 503, time: 500 },
    ]);
  });

  it("refuses beyond a finite hold limit during a freeze", () => {
    const answers = simulate({ holdLimit: 1, script: freeze(0, 1000) }, [10, 20]);
    expect(answers).toEqual([
      { id: 1, status: 503, time: 20 },
      { id: 0, status: 503, time: 1000 },
    ]);
  });

  it("serves at reduced capacity after a capacity change, and at full capacity again", () => {
    const script = [
      { at: 0, workers: 1 },
      { at: 200, workers: 4 },
    ];
    const answers = simulate({ workers: 4, script }, [1, 1, 1, 1, 300, 300, 300, 300]);
    // One worker: 41, 81, 121, 161 (the fourth started at 121, before capacity came back).
    expect(answers.slice(0, 4).map((a) => a.time)).toEqual([41, 81, 121, 161]);
    // Four workers again: all four answered together.
    expect(answers.slice(4).map((a) => a.time)).toEqual([340, 340, 340, 340]);
  });

  it("with the resume's capacity drop, serves the requests after the backlog at the new rate", () => {
    const answers = simulate({ workers: 2, script: freeze(0, 100, { workers: 1 }) }, [50, 100, 100]);
    expect(answers).toEqual([
      { id: 0, status: 503, time: 100 },
      { id: 1, status: 200, time: 140 },
      { id: 2, status: 200, time: 180 },
    ]);
  });
});
