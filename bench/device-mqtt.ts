// bench:device's MQTT scenario: the device uploads through a real mosquitto (started here
// on loopback), a reading every 250 ms; first with the broker healthy, then with it down
// for the whole phase while the device's broker session backs off and readings wait. The
// page and status are timed as in the HTTP phases (device.ts); the goal is the same: the
// page's p99 with the broker down at most 1.5 times the healthy p99.
import { startMosquitto } from "../host/tools/src/mqtt/mosquitto.js";
import type { PhaseFigures } from "./phase-figures.js";

/** What device.ts lends this scenario (passed in, so the two files do not import each other). */
export interface PhaseTools {
  startDevice(args: string[]): Promise<{ child: { kill(signal: NodeJS.Signals): unknown }; url: string }>;
  postForm(url: string, path: string, fields: Record<string, string>): Promise<void>;
  timePage(url: string, ms: number, tick: (elapsed: number) => void): Promise<unknown>;
  measure(url: string, phaseMs: number, tick: (elapsed: number) => void): Promise<PhaseFigures>;
  password: string;
}

export interface MqttBench {
  healthy: PhaseFigures;
  brokerDown: PhaseFigures;
}

export async function benchMqtt(
  phaseMs: number,
  warmupMs: number,
  progress: (phase: string, elapsed: number) => void,
  t: PhaseTools,
): Promise<MqttBench> {
  const broker = await startMosquitto();
  let device;
  try {
    device = await t.startDevice([
      "--port",
      "0",
      "--quiet",
      "--transport",
      "mqtt",
      "--broker",
      broker.url,
      "--upload-every",
      "250",
      "--budget",
      "off",
    ]);
    const { url } = device;
    await t.postForm(url, "/password", { password: t.password });
    await t.timePage(url, warmupMs, (e) => progress("mqtt warm-up", e));
    const healthy = await t.measure(url, phaseMs, (e) => progress("mqtt healthy", warmupMs + e));
    await broker.close();
    const brokerDown = await t.measure(url, phaseMs, (e) =>
      progress("mqtt broker down", warmupMs + phaseMs + e),
    );
    return { healthy, brokerDown };
  } finally {
    device?.child.kill("SIGTERM");
    await broker.close();
  }
}

export function formatMqttTable(b: MqttBench): string {
  const line = (a: string, h: string, o: string) => `${a.padEnd(24)} ${h.padStart(10)} ${o.padStart(10)}`;
  const rows: [string, keyof PhaseFigures][] = [
    ["page p50 (ms)", "pageP50Ms"],
    ["page p99 (ms)", "onlyPageP99Ms"],
    ["status p99 (ms)", "statusP99Ms"],
    ["page max (ms)", "pageMaxMs"],
    ["loop max gap (ms)", "loopMaxGapMs"],
    ["write max so far (ms)", "maxWriteMs"],
    ["page requests", "samples"],
    ["retries scheduled", "retries"],
  ];
  return [
    line("mqtt", "healthy", "broker down"),
    ...rows.map(([label, key]) => line(label, String(b.healthy[key]), String(b.brokerDown[key]))),
    "",
    `broker down p99 / healthy p99: ${(b.brokerDown.pageP99Ms / b.healthy.pageP99Ms).toFixed(2)} (page and status; goal: at most 1.5)`,
  ].join("\n");
}
