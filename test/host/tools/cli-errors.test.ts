// The commands' own messages for a bad argument, exit code 2: an unknown choice lists the
// valid ones, and a negative number gets the option's range, not parseArgs' "ambiguous".
import { expect, test } from "vitest";
import { runDevice } from "../../../host/tools/src/device/command.js";
import { run as runUpstream } from "../../../host/tools/src/upstream/command.js";
import { run as runContention } from "../../../host/tools/src/contention/cli.js";
import { SCENARIO_NAMES } from "../../../host/tools/src/upstream/scenarios.js";
import { joinNegativeValues } from "../../../host/tools/src/usage.js";
import { commandHere } from "../../helpers/cli.js";

test.each([
  ["device", runDevice],
  ["upstream", runUpstream],
] as const)("%s --scenario outgae lists the scenarios", async (_, run) => {
  const r = await commandHere(run, ["--scenario", "outgae"]);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain(`no scenario "outgae"; want one of ${SCENARIO_NAMES.join(", ")}`);
});

test.each([
  [runDevice, ["--scale", "-1"], '--scale wants a number from 0.001 to 1000, got "-1"'],
  [runUpstream, ["--latency-ms", "-5"], '--latency-ms wants an integer from 0 to 60000, got "-5"'],
  [runContention, ["--clients", "-1"], '--clients "-1": want a whole number from 1 to 255'],
] as const)("a negative number gets the option's own message: %#", async (run, args, message) => {
  const r = await commandHere(run, [...args]);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain(message);
  expect(r.stderr).not.toMatch(/ambiguous/);
});

test("only a negative number after an option is joined to it", () => {
  expect(joinNegativeValues(["--scale", "-1", "--quiet", "--seed", "4", "-h"])).toEqual([
    "--scale=-1",
    "--quiet",
    "--seed",
    "4",
    "-h",
  ]);
  expect(joinNegativeValues(["--x=1", "-2", "--y", "-.5"])).toEqual(["--x=1", "-2", "--y=-.5"]);
});
