// The TypeScript, AssemblyScript and C views and the tables of docs/ABI.md are generated
// from abi/constants.json; a stale one fails the run.
import { execFileSync } from "node:child_process";
import { expect, test } from "vitest";
import { ABI_VERSION } from "../host/abi.js";
import { create } from "../host/tickretry.js";

test("every generated view matches abi/constants.json", () => {
  expect(() =>
    execFileSync("npx", ["tsx", "scripts/gen-abi.ts", "--check"], { stdio: "pipe", encoding: "utf8" }),
  ).not.toThrow();
});

test("the module was built from the same ABI version", () => {
  expect(create().abiVersion()).toBe(ABI_VERSION);
});
