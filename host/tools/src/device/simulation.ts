// One simulated device with everything around it, in one process: the flaky upstream
// (unless the device is pointed at one that runs elsewhere), the device's main loop, and
// its setup page. The CLI, the tests and the bench all start it through here.
import type { ScenarioName } from "../upstream/scenarios.js";
import { startUpstream, type Upstream } from "../upstream/server.js";
import { listen, urlOf } from "./page/listen.js";
import { Device, type DeviceOptions } from "./device.js";
import type { KeyObject } from "node:crypto";
import type { Server } from "node:http";
import type { DevicePassword } from "./app/password.js";
import { loadBuildKey } from "./module-signature.js";
import { guardedServer } from "./page/connection-guard.js";
import type { GuessLimit } from "./app/password.js";
import { createSetupServer, MAX_CONNECTIONS, MAX_PIPELINED } from "./page/server.js";
import type { MqttOptions, MqttSide } from "./link/mqtt-simulation.js";

export interface SimulationOptions extends Omit<DeviceOptions, "upstreamUrl" | "mqtt" | "world"> {
  /** Upload over MQTT instead of HTTP (the upstream is then not started). */
  mqtt?: MqttOptions;
  /** Setup page port: undefined for 8080 or the next free one, 0 for any free port. */
  port?: number;
  /** Address the setup page binds (default 127.0.0.1). */
  host?: string;
  /** An upstream that runs elsewhere; without it, one is started here. */
  upstreamUrl?: string;
  scenario?: ScenarioName;
  upstreamPort?: number;
  /** Block the main loop for stallMs every stallEveryMs (both > 0), like periodic flash writes. */
  stallMs?: number;
  stallEveryMs?: number;
  /** The build key an uploaded module must be signed with (default boards/keys/build-key.pub; null: none). */
  buildKey?: KeyObject | null;
  /** The device password's brute-force limit (default: the real one on performance.now). */
  guessLimit?: GuessLimit;
}

export interface Simulation {
  /** The setup page's URL. */
  url: string;
  /** The upstream started here (undefined with options.upstreamUrl). */
  upstream: Upstream | undefined;
  device: Device;
  /** The device password, as the device keeps it (hashed). */
  password: DevicePassword;
  /** The MQTT side: the broker (embedded unless one was named) and the consumer started here. */
  mqtt: MqttSide | undefined;
  /** The setup page's HTTP server (behind the connection guard), for tests that watch its requests. */
  http: Server;
  close(): Promise<void>;
}

/** The device and its setup server, listening; on a failure the upstream and broker are closed. */
async function serveDevice(options: SimulationOptions, host: string, upstream?: Upstream, mqtt?: MqttSide) {
  const buildKey = options.buildKey === undefined ? loadBuildKey() : (options.buildKey ?? undefined);
  try {
    const device = new Device({
      ...options,
      upstreamUrl: options.upstreamUrl ?? upstream?.url ?? "",
      mqtt: mqtt?.transport,
      world: { upstream, mqtt },
    });
    const server = createSetupServer({ device, bindHost: host, guessLimit: options.guessLimit, buildKey });
    const front = guardedServer(server, MAX_CONNECTIONS, MAX_PIPELINED);
    const address = await listen(front, host, options.port);
    return { device, server, front, address };
  } catch (err) {
    await upstream?.close();
    await mqtt?.close();
    throw err;
  }
}

export async function startSimulation(options: SimulationOptions = {}): Promise<Simulation> {
  const host = options.host ?? "127.0.0.1";
  // MQTT.js and aedes load only for an MQTT device: an HTTP one starts as fast as before.
  const mqtt = options.mqtt && (await (await import("./link/mqtt-simulation.js")).startMqtt(options.mqtt));
  const upstream =
    options.upstreamUrl === undefined && mqtt === undefined
      ? await startUpstream({ port: options.upstreamPort, scenario: options.scenario ?? "flaky" })
      : undefined;
  const { device, server, front, address } = await serveDevice(options, host, upstream, mqtt);
  device.start();
  const stalls =
    (options.stallMs ?? 0) > 0 && (options.stallEveryMs ?? 0) > 0
      ? setInterval(() => device.requests.stall(options.stallMs!), options.stallEveryMs)
      : undefined;

  return {
    url: urlOf(address),
    upstream,
    device,
    password: device.password,
    mqtt,
    http: server,
    async close() {
      clearInterval(stalls);
      device.stop();
      server.closeAllConnections();
      server.close();
      await new Promise<void>((resolve) => front.close(() => resolve()));
      await upstream?.close();
      await mqtt?.close();
    },
  };
}
