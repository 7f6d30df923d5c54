// Where the chaos run's devices upload, and what outlives their kills to be tallied: the
// HTTP upstream in a process of its own (its scenario switched from outage to flaky
// halfway), or for `--transport mqtt` a real mosquitto owned by the runner, restarted at
// seeded moments while a device runs, with the consumer in a process of its own.
import { setTimeout as sleep } from "node:timers/promises";
import type { Rng } from "../random.js";
import { startMosquitto } from "../mqtt/mosquitto.js";
import type { ScenarioName } from "../upstream/scenarios.js";
import type { StoredUpload } from "../upstream/server.js";
import { startTickretry, stop } from "./processes.js";

export interface Sink {
  /** The device's options that point it here. */
  deviceArgs: string[];
  /** Before device number `i` starts. */
  before(i: number): Promise<void>;
  /** What the sink does while device number `i` lives, up to its kill; says what it was, for people. */
  during(i: number): Promise<string>;
  /** Before the runs in a window and the settling run; says what it is. */
  calm(): Promise<string>;
  stored(): Promise<StoredUpload[]>;
  close(): Promise<void>;
}

/** A restarted broker stays down up to this long. */
const MAX_DOWN_MS = 400;

export async function httpSink(kills: number, seed: number): Promise<Sink> {
  const upstream = await startTickretry(
    ["upstream", "--port", "0", "--scenario", "outage", "--seed", String(seed), "--latency-ms", "5"],
    /upstream (http:\S+) /,
  );
  const uploadUrl = upstream.ready[1];
  const scenarioOf = (i: number): ScenarioName => (i < Math.ceil(kills / 2) ? "outage" : "flaky");
  const control = (route: string) => new URL(`/control/${route}`, uploadUrl);
  const setScenario = async (name: ScenarioName) => {
    const res = await fetch(control("scenario"), { method: "POST", body: name });
    if (!res.ok) throw new Error(`the upstream refused scenario ${name}: HTTP ${res.status}`);
  };
  return {
    deviceArgs: ["--upstream-url", uploadUrl],
    before: (i) => setScenario(scenarioOf(i)),
    during: async (i) => scenarioOf(i),
    async calm() {
      await setScenario("flaky");
      return "flaky";
    },
    stored: async () => (await (await fetch(control("stored"))).json()) as StoredUpload[],
    close: async () => void (await stop(upstream, "SIGTERM")),
  };
}

/**
 * `restarts` broker restarts spread over the device lives that end at `moments` (ms after
 * each start): each restart picks a life, a moment before that life's kill and a time
 * down, all from `rng`.
 */
export async function mqttSink(
  moments: readonly number[],
  restarts: number,
  rng: Rng,
  progress: (line: string) => void,
): Promise<Sink> {
  const plan = Array.from({ length: restarts }, () => {
    const life = Math.floor(rng.next() * moments.length);
    return {
      life,
      atMs: Math.round(rng.next() * moments[life]),
      downMs: Math.round(rng.next() * MAX_DOWN_MS),
    };
  });
  progress(
    `broker restarts (life@ms+down): ${plan.map((r) => `${r.life + 1}@${r.atMs}+${r.downMs}`).join(", ") || "none"}`,
  );
  const broker = await startMosquitto();
  let consumer;
  try {
    consumer = await startTickretry(["consumer", "--broker", broker.url], /consumer (http:\S+) /);
  } catch (err) {
    await broker.close();
    throw err;
  }
  const control = new URL("stored", consumer.ready[1]);
  return {
    deviceArgs: ["--transport", "mqtt", "--broker", broker.url],
    async during(i) {
      const mine = plan.filter((r) => r.life === i).sort((a, b) => a.atMs - b.atMs);
      let at = 0;
      for (const r of mine) {
        await sleep(r.atMs - at);
        await broker.restart(r.downMs);
        at = r.atMs;
      }
      return mine.length === 0
        ? "broker up"
        : `broker restarted ${mine.length}x (${broker.restarts()} so far)`;
    },
    before: async () => {},
    calm: async () => "broker up",
    stored: async () => (await (await fetch(control)).json()) as StoredUpload[],
    async close() {
      await stop(consumer, "SIGTERM");
      await broker.close();
    },
  };
}
