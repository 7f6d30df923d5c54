// What the device, the consumer and the tests need of an MQTT broker, whichever runs it:
// the embedded aedes one (aedes.ts, for `npm start` with nothing installed) or a real
// mosquitto (mosquitto.ts, for the tests and the chaos run). A restart drops every client
// and comes back on the same port with its sessions, as a broker with persistence does.
import { createConnection } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

export interface Broker {
  kind: "aedes" | "mosquitto";
  /** mqtt://127.0.0.1:PORT */
  url: string;
  port: number;
  /** Stops the broker (every client drops), waits `downMs` (default 0) and starts it again on the same port. */
  restart(downMs?: number): Promise<void>;
  /** Restarts so far. */
  restarts(): number;
  close(): Promise<void>;
}

/**
 * The Broker on loopback `port` whose `stop` drops every client and `start` listens again:
 * a restart is stop, `downMs`, start; close is stop, then `release` (what outlives the
 * restarts: the persistence directory, the broker instance).
 */
export function restartable(
  kind: Broker["kind"],
  port: number,
  stop: () => Promise<void>,
  start: () => Promise<void>,
  release: () => Promise<void> | void,
): Broker {
  let restarts = 0;
  return {
    kind,
    url: `mqtt://127.0.0.1:${port}`,
    port,
    async restart(downMs = 0) {
      await stop();
      await sleep(downMs);
      await start();
      restarts++;
    },
    restarts: () => restarts,
    async close() {
      await stop();
      await release();
    },
  };
}

/** A username and password the broker requires; without them it takes anonymous clients. */
export interface BrokerCredentials {
  username: string;
  password: string;
}

/** Resolves true once something accepts a TCP connection on 127.0.0.1:port. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/**
 * Waits until the port accepts connections, polling every 20 ms; throws after `timeoutMs`,
 * or as soon as `failed()` names a reason (the broker process exited).
 */
export async function waitForPort(
  port: number,
  timeoutMs: number,
  failed: () => string | undefined = () => undefined,
): Promise<void> {
  const end = performance.now() + timeoutMs;
  for (;;) {
    const why = failed();
    if (why !== undefined) throw new Error(why);
    if (await accepts(port)) return;
    if (performance.now() > end)
      throw new Error(`nothing listens on 127.0.0.1:${port} after ${timeoutMs} ms`);
    await sleep(20);
  }
}
