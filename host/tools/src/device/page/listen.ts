// Listening like a dev server: the port asked for, or (by default) 8080 or the next
// free one, so a second `npm start` does not fail on a busy port.
import type { Server } from "node:net";
import type { AddressInfo } from "node:net";

export const DEFAULT_PORT = 8080;
const TRIES = 20;

function listenOnce(server: Server, port: number, host: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      server.off("listening", onListening);
      if (err.code === "EADDRINUSE") resolve(false);
      else reject(err);
    };
    const onListening = () => {
      server.off("error", onError);
      resolve(true);
    };
    server.once("error", onError);
    server.once("listening", onListening);
    server.listen(port, host);
  });
}

/** port undefined: DEFAULT_PORT or the next free of TRIES; a port given is taken or fails. */
export async function listen(server: Server, host: string, port?: number): Promise<AddressInfo> {
  const candidates = port === undefined ? Array.from({ length: TRIES }, (_, i) => DEFAULT_PORT + i) : [port];
  for (const p of candidates) {
    if (await listenOnce(server, p, host)) return server.address() as AddressInfo;
  }
  throw new Error(
    port === undefined
      ? `ports ${DEFAULT_PORT} to ${DEFAULT_PORT + TRIES - 1} are all in use; pass --port`
      : `port ${port} is in use`,
  );
}

/** The URL people open: IPv6 hosts in brackets. */
export function urlOf(address: AddressInfo): string {
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}/`;
}
