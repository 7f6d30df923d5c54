// The chaos run over MQTT (npm run chaos:device -- --transport mqtt runs the long one): a
// real mosquitto restarted at seeded moments while the device, killed with SIGKILL and
// restarted from its state file, publishes its readings; the consumer in a process of its
// own. No reading may be lost or stored under two operation ids.
import { expect, it } from "vitest";
import { runChaos } from "../../../../host/tools/src/chaos/run.js";

it("loses no reading and stores none twice across SIGKILLs and broker restarts", async () => {
  const result = await runChaos({
    kills: 4,
    seed: 11,
    transport: "mqtt",
    brokerRestarts: 3,
    settleMs: 40_000,
  });
  const t = result.tally;
  expect(result.problems).toEqual([]);
  expect(t.lost).toBe(0);
  expect(t.duplicates).toBe(0);
  expect(t.began).toBe(t.delivered + t.endedOther);
  expect(t.delivered).toBeGreaterThan(0);
  const restarts = result.kills.map((k) => Number(/restarted (\d+)x/.exec(k.scenario)?.[1] ?? 0));
  expect(restarts.reduce((a, b) => a + b, 0)).toBe(3);
}, 60_000);
