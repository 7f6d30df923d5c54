// The device's fault injection for the chaos run: --crash-at names a point of the pass and
// the how-many-th time; anything else is refused with a message naming what is wrong.
import { expect, it } from "vitest";
import { parseCrashAt } from "../../../../host/tools/src/device/app/kept.js";

it("reads point:n and refuses the rest", () => {
  expect(parseCrashAt("after-write:3")).toEqual({ point: "after-write", nth: 3 });
  expect(() => parseCrashAt("lunch:1")).toThrow(
    '--crash-at: no point "lunch"; one of before-write, after-write, answer',
  );
  expect(() => parseCrashAt("answer:0")).toThrow("n from 1");
  expect(() => parseCrashAt("answer")).toThrow("n from 1");
});
