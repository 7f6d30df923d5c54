// The setup page's server under what issue 20 found (defects 1, 7, 8 and 18), over real
// sockets on loopback, bounded in count and time, asserting behaviour: every route of
// the contract refuses a foreign Host; HTTP/1.0 keep-alive floods are closed unparsed as
// HTTP/1.1 ones are; a new client still gets the page while tricklers or idle sockets
// hold every slot; and a kept-alive connection's answers carry a Content-Length (no
// chunked body whose last chunk waits for a delayed ACK).
import { connect, type Socket } from "node:net";
import { request, Agent } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { ROUTES } from "../../../../host/tools/src/device/page/routes.js";
import { MAX_CONNECTIONS } from "../../../../host/tools/src/device/page/server.js";
import { startSimulation, type Simulation } from "../../../../host/tools/src/device/simulation.js";
import { QUICK } from "../../../helpers/device.js";
import { raw } from "../../../helpers/page.js";

let sim: Simulation | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await sim?.close();
  sim = undefined;
});

const boot = async () =>
  (sim = await startSimulation({ port: 0, scenario: "healthy", policy: QUICK, uploadEveryMs: 0 }));

function open(s: Simulation): Socket {
  const { hostname, port } = new URL(s.url);
  const socket = connect(Number(port), hostname);
  socket.on("error", () => {});
  sockets.push(socket);
  return socket;
}

/** Everything the server sends on `socket` until it closes or `ms` pass. */
function received(socket: Socket, ms: number): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve) => {
    let text = "";
    socket.on("data", (c: Buffer) => (text += c.toString("latin1")));
    const timer = setTimeout(() => resolve({ text, closed: false }), ms);
    socket.once("close", () => {
      clearTimeout(timer);
      resolve({ text, closed: true });
    });
  });
}

describe("the contract's routes", () => {
  it("every one answers a Host that is not the device's with 421, and changes nothing", async () => {
    const s = await boot();
    for (const r of ROUTES) {
      const res = await raw(s.url, r.path, [["host", "rebound.example"]], r.method);
      expect([r.path, res.status]).toEqual([r.path, 421]);
    }
    expect(s.password.isSet).toBe(false);
  });
});

describe("pipelined floods", () => {
  it.each(["HTTP/1.0", "HTTP/1.1"])(
    "closes a connection that sends 50 %s keep-alive requests unread",
    async (v) => {
      const s = await boot();
      const socket = open(s);
      const one = `GET / ${v}\r\nHost: ${new URL(s.url).host}\r\nConnection: keep-alive\r\n\r\n`;
      let parsed = 0;
      s.http.on("request", () => parsed++);
      const answer = received(socket, 5000);
      socket.write(one.repeat(50));
      const { text, closed } = await answer;
      expect(closed).toBe(true);
      // Closed before the HTTP parser saw any of it: nothing parsed, nothing answered.
      expect([parsed, text]).toEqual([0, ""]);
      expect((await fetch(s.url)).status).toBe(200);
    },
  );
});

describe("one client holding every slot", () => {
  it("still lets a new client have the page: tricklers and idle sockets give way", async () => {
    const s = await boot();
    const host = new URL(s.url).host;
    // More than the slots: half trickle a request's headers, half say nothing at all.
    const tricklers: Socket[] = [];
    for (let i = 0; i < MAX_CONNECTIONS + 8; i++) {
      const socket = open(s);
      if (i % 2 === 0) {
        socket.write(`GET / HTTP/1.1\r\nHost: ${host}\r\nX-Slow: `);
        tricklers.push(socket);
      }
    }
    const trickle = setInterval(() => {
      for (const socket of tricklers) if (!socket.destroyed) socket.write("a");
    }, 200);
    try {
      await new Promise((resolve) => setTimeout(resolve, 500));
      for (let probe = 0; probe < 5; probe++) {
        const res = await fetch(s.url, { signal: AbortSignal.timeout(5000) });
        expect(res.status).toBe(200);
        await res.arrayBuffer();
      }
    } finally {
      clearInterval(trickle);
    }
  });
});

describe("a connection whose request is in progress (issue 34, item 11)", () => {
  it("is never the one a newcomer evicts: its answer comes whatever the churn", async () => {
    const s = await boot();
    const host = new URL(s.url).host;
    const busy = open(s);
    const answer = received(busy, 10_000);
    // A complete request head, its body still coming (the first setup reads it): the request is in progress.
    const body = "password=correct+horse+battery";
    busy.write(
      `POST /password HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\npassword`,
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (let i = 0; i < MAX_CONNECTIONS + 8; i++) open(s);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(busy.destroyed).toBe(false);
    busy.write(body.slice("password".length));
    const { text } = await answer;
    expect(text).toMatch(/^HTTP\/1\.1 200 /);
    // The newcomers took the idle slots: a new client still gets the page.
    for (const socket of sockets.splice(1)) socket.destroy();
    expect((await fetch(s.url, { signal: AbortSignal.timeout(5000) })).status).toBe(200);
  });
});

describe("a kept-alive connection", () => {
  it("gets the page and the status with a Content-Length, not chunked, on one socket", async () => {
    const s = await boot();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const seen = new Set<unknown>();
    try {
      for (const path of ["/status.json", "/status.json", "/", "/status.json"]) {
        const res = await new Promise<{ headers: Record<string, unknown>; socket: unknown; body: string }>(
          (resolve, reject) => {
            const req = request(new URL(path, s.url), { agent }, (r) => {
              let body = "";
              r.on("data", (c: Buffer) => (body += c));
              r.on("end", () => resolve({ headers: r.headers, socket: req.socket, body }));
            });
            req.on("error", reject);
            req.end();
          },
        );
        expect(res.headers["transfer-encoding"]).toBeUndefined();
        expect(Number(res.headers["content-length"])).toBe(Buffer.byteLength(res.body));
        seen.add(res.socket);
      }
      expect(seen.size).toBe(1);
    } finally {
      agent.destroy();
    }
  });
});
