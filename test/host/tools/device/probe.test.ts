// What a probe of `npm start` on loopback found, each as it was found: malformed request
// targets, pipelining floods, another loopback bind address, Ctrl-C with live operations,
// bad SSIDs and echoed credentials, loose number parsing and a repeated Host.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_CONNECTIONS, MAX_PIPELINED } from "../../../../host/tools/src/device/page/server.js";
import { startSimulation, type Simulation } from "../../../../host/tools/src/device/simulation.js";
import { tickretry } from "../../../helpers/cli.js";
import { QUICK, spawnDevice, waitFor } from "../../../helpers/device.js";
import { post, raw, setUp } from "../../../helpers/page.js";

let sim: Simulation | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const boot = async (options = {}) =>
  (sim = await startSimulation({
    port: 0,
    scenario: "healthy",
    policy: QUICK,
    uploadEveryMs: 0,
    ...options,
  }));
const hostOf = (s: Simulation) => new URL(s.url).host;

describe("request targets and Host headers", () => {
  it("answers 400 to absolute targets that do not parse, and keeps running", async () => {
    const s = await boot({ uploadEveryMs: 50 });
    for (const target of ["http://a:99999/", "http://%zz/", "http://[/"]) {
      expect([target, (await raw(s.url, target, [["host", hostOf(s)]])).status]).toEqual([target, 400]);
    }
    const stored = s.upstream!.stats().stored;
    await waitFor("uploads to go on", () => s.upstream!.stats().stored > stored + 2);
    expect((await fetch(s.url)).status).toBe(200);
  });

  it("refuses a repeated Host with 400", async () => {
    const s = await boot();
    const twice = await raw(s.url, "/", [
      ["host", hostOf(s)],
      ["host", "evil.example"],
    ]);
    expect(twice.status).toBe(400);
    expect((await raw(s.url, "/", [["host", hostOf(s)]])).status).toBe(200);
  });

  it("answers an absolute target naming another host with 421", async () => {
    const s = await boot();
    expect((await raw(s.url, "http://evil.example/", [["host", hostOf(s)]])).status).toBe(421);
  });

  it("keeps the DNS-rebinding check on another loopback address (--host 127.0.0.2)", async () => {
    const s = await boot({ host: "127.0.0.2" });
    expect(s.url).toMatch(/^http:\/\/127\.0\.0\.2:/);
    expect((await raw(s.url, "/", [["host", "evil.example"]])).status).toBe(421);
    expect((await raw(s.url, "/", [["host", "evil.example:80"]])).status).toBe(421);
    expect((await raw(s.url, "/", [["host", hostOf(s)]])).status).toBe(200);
  });

  it("lifts the check only for an explicit all-interfaces bind", async () => {
    const s = await boot({ host: "0.0.0.0" });
    const url = s.url.replace("0.0.0.0", "127.0.0.1");
    expect((await raw(url, "/", [["host", "evil.example"]])).status).toBe(200);
  });
});

describe("clients that send and never read", () => {
  /**
   * Connects, pipelines `count` GETs, reads nothing for a while, then reads what the
   * server kept for it until the connection ends: how many answers that was.
   */
  async function flood(s: Simulation, count: number): Promise<number> {
    const { hostname, port } = new URL(s.url);
    const socket = connect(Number(port), hostname);
    socket.on("error", () => {});
    socket.pause();
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.write(`GET / HTTP/1.1\r\nHost: ${hostOf(s)}\r\n\r\n`.repeat(count));
    await new Promise((r) => setTimeout(r, 1000));
    let text = "";
    socket.setEncoding("latin1");
    socket.on("data", (c: string) => (text += c));
    socket.resume();
    await Promise.race([
      new Promise((resolve) => socket.once("close", resolve)),
      new Promise((r) => setTimeout(r, 10_000)),
    ]);
    socket.destroy();
    return text.split("HTTP/1.1 ").length - 1;
  }

  it("closes a connection that piles up unread answers, and keeps serving others", async () => {
    const s = await boot({ uploadEveryMs: 100 });
    const answered = await Promise.all(Array.from({ length: 10 }, () => flood(s, 3000)));
    for (const n of answered) expect(n).toBeLessThanOrEqual(MAX_PIPELINED);
    expect((await fetch(s.url)).status).toBe(200);
    expect((await fetch(new URL("/status.json", s.url))).status).toBe(200);
  });

  it("still answers a few pipelined requests in one chunk", async () => {
    const s = await boot();
    const { hostname, port } = new URL(s.url);
    const socket = connect(Number(port), hostname);
    let text = "";
    socket.setEncoding("latin1");
    socket.on("data", (c: string) => (text += c));
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.write(`GET /icon.svg HTTP/1.1\r\nHost: ${hostOf(s)}\r\n\r\n`.repeat(MAX_PIPELINED));
    await waitFor("every answer", () => text.split("HTTP/1.1 200").length - 1 === MAX_PIPELINED);
    socket.destroy();
  });

  it("holds at most MAX_CONNECTIONS connections at once", async () => {
    const s = await boot();
    const { hostname, port } = new URL(s.url);
    const sockets = Array.from({ length: MAX_CONNECTIONS + 8 }, () => connect(Number(port), hostname));
    const closed = sockets.map((socket) => {
      socket.on("error", () => {});
      return new Promise<boolean>((resolve) => {
        socket.once("close", () => resolve(true));
        setTimeout(() => resolve(false), 2000);
      });
    });
    try {
      expect((await Promise.all(closed)).filter(Boolean).length).toBeGreaterThanOrEqual(8);
    } finally {
      for (const socket of sockets) socket.destroy();
    }
  });
});

describe("the settings", () => {
  /** Posts a body exactly as given (percent-escapes and all). */
  const rawForm = (s: Simulation, body: string | Buffer) =>
    fetch(new URL("/settings", s.url), {
      method: "POST",
      body: typeof body === "string" ? body : new Uint8Array(body),
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        origin: new URL(s.url).origin,
        "x-device-password": "correct horse battery",
      },
    });
  const url = encodeURIComponent("http://127.0.0.1:1/upload");

  it("refuses an SSID that is not UTF-8, or holds NUL, CR/LF or ESC, with a clear message", async () => {
    const s = await boot();
    await setUp(s);
    const before = { ...s.device.settings.current };
    const cases: [string, RegExp][] = [
      ["%FF%FEnet", /SSID must be UTF-8 text/],
      ["home%00net", /control characters/],
      ["home%0D%0Anet", /control characters/],
      ["home%1B%5B31mnet", /control characters/],
    ];
    for (const [ssid, message] of cases) {
      const res = await rawForm(s, `ssid=${ssid}&password=&upstreamUrl=${url}`);
      const answer = await res.json();
      expect([ssid, res.status]).toEqual([ssid, 400]);
      expect(answer.fields.ssid).toMatch(message);
    }
    // Bytes that are no UTF-8 sent as they are, not percent-escaped.
    const bytes = Buffer.concat([
      Buffer.from("ssid=home"),
      Buffer.from([0xff]),
      Buffer.from(`&upstreamUrl=${url}`),
    ]);
    const res = await rawForm(s, bytes);
    expect([res.status, (await res.json()).fields.ssid]).toEqual([
      400,
      "SSID must be UTF-8 text; these bytes are not.",
    ]);
    expect(s.device.settings.current).toEqual(before);
  });

  it("never echoes credentials in the upstream URL, and keeps them when the shown URL is saved back", async () => {
    const s = await boot();
    await setUp(s);
    const withCredentials = "http://user:s3cret@127.0.0.1:1/upload";
    expect(
      (await post(s, "/settings", { ssid: "home", password: "", upstreamUrl: withCredentials })).status,
    ).toBe(200);
    const text = await (await fetch(new URL("/status.json", s.url))).text();
    expect(text).not.toContain("s3cret");
    expect(text).not.toContain("user:");
    const shown = JSON.parse(text).settings.upstreamUrl;
    expect(shown).toBe("http://***@127.0.0.1:1/upload");
    expect((await post(s, "/settings", { ssid: "home2", password: "", upstreamUrl: shown })).status).toBe(
      200,
    );
    expect(s.device.settings.current.upstreamUrl).toBe(withCredentials);
  });
});

describe("numbers", () => {
  it("take a stall in plain decimal only", async () => {
    const s = await boot();
    await setUp(s);
    for (const ms of ["0x10", "0b101", "1e2", " 100", "100 ", "+100", "100.0"]) {
      expect([ms, (await post(s, "/fault/stall", { ms })).status]).toEqual([ms, 400]);
    }
    expect((await post(s, "/fault/stall", { ms: "100" })).status).toBe(200);
  });

  it("take --port and the other options in plain decimal only", async () => {
    for (const args of [
      ["--port", "0x1F90"],
      ["--port", " 8080"],
      ["--port", "8e3"],
      ["--port", "0b1"],
      ["--stall-ms", "0x10"],
      ["--seed", "0x10"],
      ["--scale", "1e0"],
    ]) {
      const r = tickretry("device", ...args);
      expect([args.join(" "), r.code]).toEqual([args.join(" "), 2]);
      expect(r.stderr).toMatch(/decimal|wants/);
    }
  });
});

describe("Ctrl-C", () => {
  async function interrupted(
    stall: boolean,
    state = ["--state", "none"],
  ): Promise<{ out: string; live: number[] }> {
    const { child, exited, out } = spawnDevice(["--scenario", "hang", "--upload-every", "300", ...state]);
    try {
      const url = await waitFor("the page's URL", () => /setup page (http:\S+)/.exec(out())?.[1], 20_000);
      const status = async () => (await fetch(new URL("/status.json", url))).json();
      const live = await waitFor("two live operations", async () => {
        const ops = (await status()).operations;
        return ops.length >= 2 && ops.map((o: { operationId: number }) => o.operationId);
      });
      if (stall) {
        const headers = { "content-type": "application/x-www-form-urlencoded", origin: new URL(url).origin };
        await fetch(new URL("/password", url), { method: "POST", body: "password=correct+horse", headers });
        const asked = await fetch(new URL("/fault/stall", url), {
          method: "POST",
          body: "ms=1500",
          headers: { ...headers, "x-device-password": "correct horse" },
        });
        expect(asked.status).toBe(200);
        await new Promise((r) => setTimeout(r, 300));
      }
      child.kill("SIGINT");
      expect(await exited).toBe(0);
      return { out: out(), live };
    } finally {
      child.kill("SIGKILL");
    }
  }

  it("without a state file, cancels every live operation and prints its end", async () => {
    const { out, live } = await interrupted(false);
    for (const id of live)
      expect(out).toMatch(new RegExp(`op ${id} \\(reading \\d+\\) CANCELLED after \\d+ attempt`));
  }, 30_000);

  it("does so during a stall too", async () => {
    const { out, live } = await interrupted(true);
    for (const id of live)
      expect(out).toMatch(new RegExp(`op ${id} \\(reading \\d+\\) CANCELLED after \\d+ attempt`));
  }, 30_000);

  it("with a state file, keeps every live operation there for the next start, with a line each", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "tickretry-probe-")), "state.json");
    const { out, live } = await interrupted(false, ["--state", file]);
    for (const id of live)
      expect(out).toContain(`op ${id} kept in state file ${file}: it goes on at the next start`);
    expect(out).not.toContain("CANCELLED");
  }, 30_000);
});
