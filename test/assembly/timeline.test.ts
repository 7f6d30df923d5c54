// Replays the "Timeline of one operation" table of docs/ABI.md against the module, so
// the documented timeline is the module's real behaviour.
import { readFileSync } from "node:fs";
import { expect, test } from "vitest";
import { EndReason, Jitter, Outcome, State } from "../../host/library/src/generated/abi.js";
import { create } from "../../host/library/src/tickretry.js";
import { setPolicy } from "../helpers/policies.js";

const doc = readFileSync(new URL("../../docs/ABI.md", import.meta.url), "utf8");
const section = doc.slice(doc.indexOf("## Timeline of one operation"));
const rows = section
  .slice(section.indexOf("```\n") + 4, section.indexOf("\n```", section.indexOf("```\n") + 4))
  .split("\n")
  .slice(1);

test("the timeline in docs/ABI.md is what the module does", () => {
  expect(rows.length).toBeGreaterThan(5);
  const api = create(1n);
  setPolicy(api, 0, {
    maxAttempts: 4,
    attemptTimeout: 2000,
    baseDelay: 500,
    maxDelay: 4000,
    deadline: 9000,
    jitter: Jitter.NONE,
  });
  let handle = -1;
  for (const row of rows) {
    const m = /^(\d+)\s+(\w+)\(([^)]*)\)\s+(\S+)\s*(.*)$/.exec(row);
    expect(m, row).not.toBeNull();
    const [, tick, call, , result, rest] = m!;
    const now = Number(tick);
    let got: number;
    if (call === "begin") got = handle = api.begin(0, now);
    else if (call === "poll") got = api.poll(now);
    else {
      const [, attempt, outcome] = /report\(\d+, (\d+), (\w+)/.exec(row)!;
      got = api.report(handle, Number(attempt), Outcome[outcome as keyof typeof Outcome], 0, now);
    }
    const want = result === "OK" ? 0 : Number(result.replace("h=", ""));
    expect(got, row).toBe(want);
    for (const [, field, value] of rest.matchAll(/(attemptDeadline|nextAttemptAt|deadline) = (\d+)/g)) {
      expect(api[field as "deadline"](handle), `${row}: ${field}`).toBe(Number(value));
    }
    const state = /\b(WAITING|IN_FLIGHT|DONE)\b/.exec(rest)?.[1];
    if (state) expect(api.state(handle), row).toBe(State[state as keyof typeof State]);
    const attempt = /\ba=(\d+)/.exec(rest)?.[1];
    if (attempt) expect(api.attempt(handle), row).toBe(Number(attempt));
    if (/TIMEOUT/.test(rest)) expect(api.lastOutcome(handle), row).toBe(Outcome.TIMEOUT);
  }
  expect(api.endReason(handle)).toBe(EndReason.SUCCEEDED);
  expect(api.attempt(handle)).toBe(4);
});
