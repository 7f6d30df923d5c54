// bench:fleet's chart (`--chart FILE`): the simulator's cost per device-second against fleet
// size beside the memory floor at each size, with the goal's 1.5 times 1,000 devices' cost,
// all from one run.
import type { TopLevelSpec } from "vega-lite";
import type { MemoryFloor } from "./memory-floor.js";

/** What the chart needs of a run: its sizes' cost, and the floor at each. */
export interface SpeedRun {
  scale: { devices: number; usPerDeviceSecond: number }[];
  memoryFloor: MemoryFloor;
}

/** The goal: the cost per device-second at most this times 1,000 devices'. */
export const GROWTH_GOAL = 1.5;

/** The three lines, in the legend's order, each with its dash. */
const SIMULATOR = "the simulator";
const FLOOR = "memory floor: one random touch per device event";
const GOAL = `goal: ${GROWTH_GOAL} x 1,000 devices' cost`;
const SERIES = [SIMULATOR, FLOOR, GOAL];
const DASHES = [
  [1, 0],
  [6, 3],
  [2, 3],
];

/** The chart of `run`, whose fleets ran strategy C with `seed`. */
export function speedSpec(run: SpeedRun, seed: number): TopLevelSpec {
  const base = run.scale[0].usPerDeviceSecond;
  const values = [
    ...run.scale.map((r) => ({ devices: r.devices, us: r.usPerDeviceSecond, series: SIMULATOR })),
    ...run.memoryFloor.bySize.map((p) => ({ devices: p.devices, us: p.usPerDeviceSecond, series: FLOOR })),
    ...run.scale.map((r) => ({ devices: r.devices, us: base * GROWTH_GOAL, series: GOAL })),
  ];
  const series = { field: "series", type: "nominal", title: null, sort: SERIES } as const;
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    background: "white",
    title: {
      text: `Cost per device-second against fleet size, strategy C, seed ${seed}`,
      subtitle: "wall µs per device-second of virtual time; one run of npm run bench:fleet",
    },
    width: 560,
    height: 300,
    config: { legend: { labelLimit: 400, orient: "bottom", direction: "vertical" } },
    data: { values },
    mark: { type: "line", point: true },
    encoding: {
      x: { field: "devices", type: "quantitative", scale: { type: "log" }, title: "devices" },
      y: { field: "us", type: "quantitative", scale: { zero: true }, title: "µs per device-second" },
      color: { ...series, scale: { domain: SERIES } },
      strokeDash: { ...series, scale: { domain: SERIES, range: DASHES } },
    },
  };
}
