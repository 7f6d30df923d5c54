// The application's differential (issue 32): every scenario of test/app-scenarios/ run by the
// firmware's application built for this machine (test/boards/app_host/) and by the
// simulator's Device (test/boards/app_sim/sim.ts), and their traces held byte-identical, less
// the side-only kinds the scenarios' README names in one place. Both traces are also held to
// the accounting every reading is owed (test/helpers/app-trace.ts). Where the two differ by
// design (a power cut: the board takes up NVS's older copy, the simulator its one state
// file) they agree up to the cut and each holds its invariants after it.
import { beforeAll, describe, expect, it } from "vitest";
import { EndReason } from "../../host/library/src/generated/abi.js";
import {
  holdsInvariants,
  runApp,
  scenario,
  scenarioNames,
  shared,
  sideOnlyKinds,
} from "../helpers/app-trace.js";
import { makeBoards } from "../helpers/command.js";
import { runSim } from "./app_sim/sim.js";

/** Scenarios whose traces part at a line by design, as the README says: that line's text. */
const PARTS_AT: Record<string, string> = { "power-cut": "boot power-on" };

const both = async (name: string) => ({ board: runApp(scenario(name)), sim: await runSim(scenario(name)) });

/** The lines before the second `text` (the boot after the cut). */
function untilSecond(trace: string[], text: string): string[] {
  const first = trace.findIndex((line) => line.endsWith(` ${text}`));
  const second = trace.findIndex((line, i) => i > first && line.endsWith(` ${text}`));
  expect(second, `no second "${text}"`).toBeGreaterThan(first);
  return trace.slice(0, second);
}

beforeAll(() => {
  makeBoards("app-host");
}, 300_000);

describe("the firmware's application and the simulator's, scenario by scenario", () => {
  const names = scenarioNames().filter((name) => !(name in PARTS_AT));

  it.each(names)("%s: the same trace on both", async (name) => {
    const { board, sim } = await both(name);
    expect(shared(sim).join("\n")).toBe(shared(board).join("\n"));
    holdsInvariants(board);
    holdsInvariants(sim);
  });

  it.each(Object.entries(PARTS_AT))(
    "%s: the same trace up to %s, then each keeps its own store",
    async (name, text) => {
      const { board, sim } = await both(name);
      expect(shared(untilSecond(sim, text)).join("\n")).toBe(shared(untilSecond(board, text)).join("\n"));
      // The board ends again what ended after NVS's last write; the server stores it once.
      holdsInvariants(board, false);
      const a = holdsInvariants(sim);
      expect([...a.ended.values()].flat().every((r) => r === EndReason.SUCCEEDED)).toBe(true);
    },
  );

  it("names as side-only only kinds that one side alone prints", async () => {
    const kinds = (trace: string[]) => new Set(trace.map((line) => line.split(" ")[1]));
    const board = new Set<string>();
    const sim = new Set<string>();
    for (const name of scenarioNames()) {
      const t = await both(name);
      kinds(t.board).forEach((k) => board.add(k));
      kinds(t.sim).forEach((k) => sim.add(k));
    }
    for (const kind of sideOnlyKinds()) expect(board.has(kind) !== sim.has(kind), kind).toBe(true);
  });
});
