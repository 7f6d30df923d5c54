// The setup page's front door: a TCP server that hands each connection to the HTTP server
// as a Duplex it controls (Node documents emitting 'connection' with any Duplex). Node
// parses each chunk a socket delivers whole, request after request, before a handler can
// close the connection: 64 KiB of pipelined GETs is some 2,000 requests, which blocked
// the main loop for a second when a hundred such clients arrived at once. Here a chunk
// that carries more request lines than a client may have waiting closes its connection
// before any of it is parsed; no browser pipelines. Request lines of either HTTP/1.0 or
// HTTP/1.1 count: HTTP/1.0 keep-alive requests pipeline just as well.
//
// The slots are few, so one client must not hold them all: when every slot is taken, a
// new connection takes the slot of the one that has gone longest without starting a
// request (a trickling or idle one first), rather than being refused; a connection whose
// request is being answered is never the one (only when all are is the newcomer closed).
// A new client therefore reaches the page; a flood only churns its own connections.
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from "node:net";
import { Duplex } from "node:stream";
import type { Server as HttpServer } from "node:http";

const VERSION = Buffer.from(" HTTP/1.");

/** Request lines (" HTTP/1.0" or " HTTP/1.1" ending a line) in a chunk, counted up to `limit + 1`. */
function requestLines(chunk: Buffer, limit: number): number {
  let n = 0;
  for (let at = chunk.indexOf(VERSION); at >= 0 && n <= limit; at = chunk.indexOf(VERSION, at + 1)) {
    const minor = chunk[at + VERSION.length];
    const end = chunk[at + VERSION.length + 1];
    if ((minor === 0x30 || minor === 0x31) && (end === 0x0d || end === 0x0a)) n++;
  }
  return n;
}

/** A socket as the HTTP server sees it, fed only chunks that passed the check. */
class GuardedConnection extends Duplex {
  /** When it was accepted or last started a request (performance.now): the eviction order. */
  lastRequestAt = performance.now();
  /** Requests it has started and not yet been answered: such a connection is never evicted. */
  inProgress = 0;

  constructor(
    private readonly socket: Socket,
    maxPipelined: number,
  ) {
    super({ allowHalfOpen: false });
    socket.on("data", (chunk: Buffer) => {
      if (requestLines(chunk, maxPipelined) > maxPipelined) return socket.destroy();
      if (!this.push(chunk)) socket.pause();
    });
    socket.on("end", () => this.push(null));
    socket.on("timeout", () => this.emit("timeout"));
    socket.on("close", () => this.destroy());
    socket.on("error", () => this.destroy());
  }

  get remoteAddress(): string | undefined {
    return this.socket.remoteAddress;
  }

  _read(): void {
    this.socket.resume();
  }

  _write(chunk: Buffer, encoding: BufferEncoding, done: (err?: Error | null) => void): void {
    this.socket.write(chunk, encoding, done);
  }

  _final(done: () => void): void {
    this.socket.end(done);
  }

  _destroy(err: Error | null, done: (err: Error | null) => void): void {
    this.socket.destroy();
    done(err);
  }

  /** Node's HTTP server times idle keep-alive connections out through this. */
  setTimeout(ms: number, onTimeout?: () => void): this {
    this.socket.setTimeout(ms);
    if (onTimeout) this.once("timeout", onTimeout);
    return this;
  }

  setNoDelay(noDelay?: boolean): this {
    this.socket.setNoDelay(noDelay);
    return this;
  }

  setKeepAlive(enable?: boolean, delay?: number): this {
    this.socket.setKeepAlive(enable, delay);
    return this;
  }
}

/**
 * The connection that has gone longest without starting a request, of those with none in
 * progress: evicting one mid-request reset a kept-alive poll under 200 connects a second.
 */
function stalest(live: Set<GuardedConnection>): GuardedConnection | undefined {
  let oldest: GuardedConnection | undefined;
  for (const c of live) {
    if (c.inProgress === 0 && (oldest === undefined || c.lastRequestAt < oldest.lastRequestAt)) oldest = c;
  }
  return oldest;
}

/**
 * The TCP server to listen on for `http`: at most maxConnections at once (a new one takes
 * the stalest one's slot), floods closed unparsed, and answers sent without Nagle's delay.
 */
export function guardedServer(http: HttpServer, maxConnections: number, maxPipelined: number): TcpServer {
  const live = new Set<GuardedConnection>();
  const tcp = createTcpServer({ noDelay: true }, (socket) => {
    if (live.size >= maxConnections) {
      const idle = stalest(live);
      // Every slot is answering a request: the newcomer waits its turn by trying again.
      if (idle === undefined) return socket.destroy();
      idle.destroy();
    }
    const connection = new GuardedConnection(socket, maxPipelined);
    live.add(connection);
    connection.once("close", () => live.delete(connection));
    http.emit("connection", connection);
  });
  http.on("request", (req, res) => {
    const c = req.socket;
    if (!(c instanceof GuardedConnection)) return;
    c.lastRequestAt = performance.now();
    c.inProgress++;
    res.once("close", () => c.inProgress--);
  });
  // The HTTP server checks its header and request timeouts from 'listening' on.
  tcp.on("listening", () => http.emit("listening"));
  return tcp;
}
