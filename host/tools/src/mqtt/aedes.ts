// The embedded broker: aedes (pure JavaScript, a dependency of this package) on loopback,
// so `npm start -- --transport mqtt` needs nothing beyond `npm ci`. aedes speaks MQTT
// 3.1.1 only, which is why the operation id travels in the payload (docs/device.md). A
// restart closes the listener and every client's socket but keeps the one Aedes instance,
// whose in-memory persistence then plays the part of a broker's persistence file.
import { createServer, type Server, type Socket } from "node:net";
import { Aedes, type AuthenticateError } from "aedes";
import { restartable, type Broker, type BrokerCredentials } from "./broker.js";

export interface AedesOptions {
  /** 0 (the default): any free port. */
  port?: number;
  credentials?: BrokerCredentials;
}

function listenOn(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve((server.address() as { port: number }).port);
    });
  });
}

/** A refusal as a real broker sends it: CONNACK 4 for bad credentials. */
function badCredentials(): AuthenticateError {
  return Object.assign(new Error("bad username or password"), { returnCode: 4 }) as AuthenticateError;
}

export async function startAedes(options: AedesOptions = {}): Promise<Broker> {
  const broker = await Aedes.createBroker();
  const wanted = options.credentials;
  if (wanted !== undefined) {
    broker.authenticate = (_client, username, password, done) =>
      username === wanted.username && password?.toString() === wanted.password
        ? done(null, true)
        : done(badCredentials(), null);
  }
  const sockets = new Set<Socket>();
  const serve = () =>
    createServer((socket) => {
      sockets.add(socket);
      socket.once("close", () => sockets.delete(socket));
      broker.handle(socket);
    });
  let server = serve();
  const port = await listenOn(server, options.port ?? 0);
  const stopListening = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return restartable(
    "aedes",
    port,
    stopListening,
    async () => {
      server = serve();
      await listenOn(server, port);
    },
    () => new Promise<void>((resolve) => broker.close(() => resolve())),
  );
}
