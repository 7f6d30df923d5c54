// The flaky upstream over real HTTP: each scenario does what it says; its dedup store
// and control routes.
import { afterEach, describe, expect, it } from "vitest";
import { KEY_LIMIT_BYTES } from "../../../../host/tools/src/upstream/dedup-store.js";
import { startUpstream, type Upstream } from "../../../../host/tools/src/upstream/server.js";
import { raw } from "../../../helpers/page.js";
import { waitFor } from "../../../helpers/device.js";

let upstream: Upstream;
afterEach(() => upstream.close());

const upload = (key: string, signal?: AbortSignal) =>
  fetch(upstream.url, { method: "POST", headers: { "idempotency-key": key }, body: "{}", signal });

describe("upstream scenarios", () => {
  it("healthy stores an upload once and answers a repeated key as a replay", async () => {
    upstream = await startUpstream({ scenario: "healthy", timing: { latencyMs: 1 } });
    const first = await upload("k1");
    const again = await upload("k1");
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ key: "k1", replay: false });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(upstream.stats()).toMatchObject({ requests: 2, stored: 1, replays: 1 });
  });

  it.each([
    ["outage", 503, null],
    ["busy", 503, "2"],
    ["throttle", 429, "1"],
  ] as const)("%s answers %i with Retry-After %s", async (scenario, status, retryAfter) => {
    upstream = await startUpstream({ scenario, timing: { latencyMs: 1 } });
    const res = await upload("k");
    expect(res.status).toBe(status);
    expect(res.headers.get("retry-after")).toBe(retryAfter);
    expect(upstream.stats().stored).toBe(0);
  });

  it("reset runs the upload, then resets the connection", async () => {
    upstream = await startUpstream({ scenario: "reset" });
    await expect(upload("k")).rejects.toThrow();
    expect(upstream.stats()).toMatchObject({ resets: 1, stored: 1 });
  });

  it("hang holds the request until the client gives up, then lets it go", async () => {
    upstream = await startUpstream({ scenario: "hang" });
    await expect(upload("k", AbortSignal.timeout(300))).rejects.toThrow();
    await waitFor("the held request to be freed", () => upstream.stats().holding === 0);
    expect(upstream.stats().requests).toBe(1);
  });

  it("freeze holds requests, answers them and the backlog with 503 + Retry-After, then recovers", async () => {
    upstream = await startUpstream({
      scenario: "freeze",
      timing: { latencyMs: 1, freezeMs: 400, backlogMs: 1000 },
    });
    const t0 = performance.now();
    const held = await upload("a");
    expect(performance.now() - t0).toBeGreaterThanOrEqual(350);
    expect([held.status, held.headers.get("retry-after")]).toEqual([503, "2"]);
    expect((await upload("b")).status).toBe(503);
    await new Promise((r) => setTimeout(r, 1050));
    expect((await upload("c")).status).toBe(200);
  });

  it("switches scenario at run time", async () => {
    upstream = await startUpstream({ scenario: "outage", timing: { latencyMs: 1 } });
    expect((await upload("k")).status).toBe(503);
    upstream.setScenario("healthy");
    expect((await upload("k")).status).toBe(200);
    expect(upstream.log().map((s) => s.scenario)).toEqual(["outage", "healthy"]);
  });
});

describe("the dedup store and the control routes", () => {
  it("keeps the body that ran under each key, once, and hands it out", async () => {
    upstream = await startUpstream({ scenario: "healthy", timing: { latencyMs: 1 }, control: true });
    const send = (key: string, body: string) =>
      fetch(upstream.url, { method: "POST", headers: { "idempotency-key": key }, body });
    await send("a", '{"reading":1}');
    await send("a", '{"reading":1,"again":true}');
    await send("b", '{"reading":2}');
    const expected = [
      { key: "a", body: '{"reading":1}' },
      { key: "b", body: '{"reading":2}' },
    ];
    expect(upstream.stored()).toEqual(expected);
    const control = (route: string, init?: RequestInit) =>
      fetch(new URL(`/control/${route}`, upstream.url), init);
    expect(await (await control("stored")).json()).toEqual(expected);
    expect(await (await control("stats")).json()).toMatchObject({ stored: 2, replays: 1 });
    expect((await control("scenario", { method: "POST", body: "outage" })).status).toBe(200);
    expect(upstream.scenario()).toBe("outage");
    expect((await control("scenario", { method: "POST", body: "<nope>" })).status).toBe(400);
    expect(upstream.scenario()).toBe("outage");
  });

  it("answers no control route unless asked to", async () => {
    upstream = await startUpstream({ scenario: "healthy" });
    expect((await fetch(new URL("/control/stored", upstream.url))).status).toBe(404);
  });

  it("drives /control/ only from its own Host and never cross-site (issue 20, defect 16)", async () => {
    upstream = await startUpstream({ scenario: "healthy", control: true });
    const { port } = new URL(upstream.url);
    const post = (headers: [string, string][]) =>
      raw(upstream.url, "/control/scenario", headers, "POST", "outage");
    // A rebound Host, a cross-origin Origin, a cross-site fetch: each refused.
    const refused: [string, string][][] = [
      [["host", `rebound.example:${port}`]],
      [
        ["host", `127.0.0.1:${port}`],
        ["origin", "http://evil.example"],
      ],
      [
        ["host", `127.0.0.1:${port}`],
        ["sec-fetch-site", "cross-site"],
      ],
    ];
    for (const headers of refused) expect((await post(headers)).status, JSON.stringify(headers)).toBe(403);
    expect(upstream.scenario()).toBe("healthy");
    expect((await post([["host", `localhost:${port}`]])).status).toBe(200);
    expect(upstream.scenario()).toBe("outage");
  });
});

describe("the dedup store's limits (issue 20, defect 16)", () => {
  it("keeps the newest uploads in a bounded ring and counts what it evicted, on /control/stats too (issue 34, item 10)", async () => {
    upstream = await startUpstream({
      scenario: "healthy",
      timing: { latencyMs: 0 },
      storeLimitBytes: 64 * 1024,
      control: true,
    });
    const body = "x".repeat(16 * 1024);
    const send = (key: string, text: string) =>
      fetch(upstream.url, { method: "POST", headers: { "idempotency-key": key }, body: text });
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await send(`k${i}`, body);
      statuses.push(res.status);
      await res.arrayBuffer();
    }
    // Never full: every upload is taken (it used to answer 503 for good once full).
    expect(statuses).toEqual(Array(12).fill(200));
    const stats = upstream.stats();
    expect(stats.stored).toBe(3);
    expect(stats.evicted).toBe(9);
    expect(upstream.stored().map((s) => s.key)).toEqual(["k9", "k10", "k11"]);
    const control = await (await fetch(new URL("/control/stats", upstream.url))).json();
    expect(control).toMatchObject({ stored: 3, evicted: 9 });
    // The newest are still answered as replays; an evicted key runs again.
    expect((await (await send("k11", body)).json()).replay).toBe(true);
    expect((await (await send("k0", body)).json()).replay).toBe(false);
    expect(upstream.stats().evicted).toBe(10);
  });

  it("refuses a key over KEY_LIMIT_BYTES with 400 and stores nothing", async () => {
    upstream = await startUpstream({ scenario: "healthy", timing: { latencyMs: 0 } });
    const res = await upload("k".repeat(KEY_LIMIT_BYTES + 1));
    expect(res.status).toBe(400);
    expect(upstream.stats().stored).toBe(0);
  });
});
