// `tickretry consumer`: the consumer (consumer.ts) in a process of its own, the MQTT twin
// of `tickretry upstream`: a device killed and restarted elsewhere publishes to the
// broker, this stores what arrives, and whoever drives the test reads its store over
// GET /control/stats, GET /control/stored and GET /control/unparseable on loopback.
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { readCommandLine, startOrReport, untilStopped } from "../long-running.js";
import { numberOption } from "../number-option.js";
import { parseBrokerUrl } from "./broker-url.js";
import { startConsumer, type Consumer } from "./consumer.js";
import { TOPIC } from "./payload.js";

const HELP = `usage: tickretry consumer --broker mqtt://host:port [options]

Subscribes to ${TOPIC} with QoS 1 under a persistent session, stores each reading by
the operation id its payload carries, counts replays (an id again), duplicates (a reading
under two ids) and payloads it cannot parse, and serves GET /control/stats,
GET /control/stored and GET /control/unparseable on loopback. Runs until Ctrl-C.

options:
  --broker URL   the broker (mqtt://[user:password@]host:port); required
  --port N       control port (default 0: any free port)
  --client-id ID the persistent session's client id (default tickretry-consumer)
  -h, --help     this text
`;

function controlServer(consumer: Consumer) {
  return createServer((req, res: ServerResponse) => {
    const json = (value: unknown) =>
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(value));
    if (req.method === "GET" && req.url === "/control/stats") return json(consumer.stats());
    if (req.method === "GET" && req.url === "/control/stored") return json(consumer.stored());
    if (req.method === "GET" && req.url === "/control/unparseable") return json(consumer.unparseable());
    res.writeHead(404, { "content-type": "text/plain" }).end("GET /control/{stats,stored,unparseable}\n");
  });
}

/** The consumer's options and control port the arguments ask for, or "help"; throws what
 * is wrong with them. */
function consumerOptions(args: string[]) {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      broker: { type: "string" },
      port: { type: "string" },
      "client-id": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) return "help";
  if (values.broker === undefined) throw new Error("--broker is required");
  const broker = parseBrokerUrl(values.broker);
  const options = { ...broker, clientId: values["client-id"] };
  return { options, port: numberOption("port", values.port, 0, 65535) ?? 0 };
}

export async function run(args: string[]): Promise<number> {
  const read = readCommandLine("tickretry consumer", HELP, () => consumerOptions(args));
  if (typeof read === "number") return read;
  const { options, port } = read;
  const consumer = await startOrReport("consumer", () => startConsumer(options));
  if (consumer === undefined) return 2;
  const server = controlServer(consumer);
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const control = (server.address() as AddressInfo).port;
  const stopped = untilStopped();
  console.log(`consumer http://127.0.0.1:${control}/control/ subscribed to ${TOPIC} at ${options.url}`);
  await stopped;
  server.close();
  await consumer.close();
  return 0;
}
