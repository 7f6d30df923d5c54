// The chaos run over MQTT (npm run chaos:device -- --transport mqtt runs the long one): a
// real mosquitto restarted at seeded moments while the device, killed with SIGKILL and
// restarted from its state file, publishes its readings; the consumer in a process of its
// own. No reading may be lost or stored under two operation ids.
import { expect, it } from "vitest";
import { runChaos } from "../../../../host/tools/src/chaos/run.js";
import { expectAccounted } from "../../../helpers/chaos.js";

it("loses no reading and stores none twice across SIGKILLs and broker restarts", async () => {
  const result = await runChaos({
    kills: 4,
    seed: 11,
    transport: "mqtt",
    brokerRestarts: 3,
    settleMs: 40_000,
  });
  expectAccounted(result);
  const restarts = result.kills.map((k) => Number(/restarted (\d+)x/.exec(k.scenario)?.[1] ?? 0));
  expect(restarts.reduce((a, b) => a + b, 0)).toBe(3);
}, 60_000);
