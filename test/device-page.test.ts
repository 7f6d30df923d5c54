// The setup page over real HTTP: form checks, the body limit, escaping, the fault and
// power controls, and the loopback-only Host check.
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BODY_LIMIT } from "../host/device/form-body.js";
import { startSimulation, type Simulation } from "../host/device/simulation.js";
import { QUICK, waitFor } from "./helpers/device.js";

let sim: Simulation;
beforeAll(async () => {
  sim = await startSimulation({ port: 0, scenario: "healthy", policy: QUICK, uploadEveryMs: 0 });
});
afterAll(() => sim.close());

const GOOD = { ssid: "home", password: "", upstreamUrl: "http://127.0.0.1:1/upload" };

function post(path: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return fetch(new URL(path, sim.url), {
    method: "POST",
    body: new URLSearchParams(fields),
    redirect: "manual",
    headers,
  });
}

async function refused(fields: Record<string, string>, id: string): Promise<string> {
  const before = { ...sim.device.settings };
  const res = await post("/settings", { ...GOOD, ...fields });
  const html = await res.text();
  expect(res.status).toBe(400);
  expect(html).toContain(`id="${id}-error"`);
  expect(sim.device.settings).toEqual(before);
  return html;
}

describe("the settings form", () => {
  it("stores good settings and answers with a redirect to the page", async () => {
    const res = await post("/settings", { ...GOOD, password: "12345678" });
    expect([res.status, res.headers.get("location")]).toEqual([303, "/?done=saved"]);
    expect(sim.device.settings).toEqual({ ...GOOD, password: "12345678" });
    expect(await (await fetch(new URL("/?done=saved", sim.url))).text()).toContain("Settings saved.");
  });

  it("refuses an SSID that is empty or over 32 bytes (counted in UTF-8)", async () => {
    await refused({ ssid: "" }, "ssid");
    expect(await refused({ ssid: "€".repeat(11) }, "ssid")).toContain("this one is 33 bytes");
    await refused({ ssid: "x".repeat(33) }, "ssid");
  });

  it("refuses a password of 1 to 7 or over 63 characters", async () => {
    await refused({ password: "1234567" }, "password");
    await refused({ password: "p".repeat(64) }, "password");
  });

  it("refuses a URL that is not http or https", async () => {
    await refused({ upstreamUrl: "ftp://example.com/" }, "upstreamUrl");
    await refused({ upstreamUrl: "javascript:alert(1)" }, "upstreamUrl");
    await refused({ upstreamUrl: "not a url" }, "upstreamUrl");
  });

  it("refuses a body over the limit with 413 and stores nothing", async () => {
    const before = { ...sim.device.settings };
    const res = await post("/settings", { ...GOOD, ssid: "big", pad: "x".repeat(BODY_LIMIT) });
    expect(res.status).toBe(413);
    expect(await res.text()).toContain("nothing was stored");
    expect(sim.device.settings).toEqual(before);
  });

  it("refuses a post from another site with 403 and stores nothing", async () => {
    const before = { ...sim.device.settings };
    const fromElsewhere = await post(
      "/settings",
      { ...GOOD, ssid: "csrf" },
      { origin: "http://evil.example" },
    );
    expect(fromElsewhere.status).toBe(403);
    const crossSite = await post("/settings", { ...GOOD, ssid: "csrf" }, { "sec-fetch-site": "cross-site" });
    expect(crossSite.status).toBe(403);
    expect(sim.device.settings).toEqual(before);
    const fromPage = await post("/settings", { ...GOOD, ssid: "mine" }, { origin: new URL(sim.url).origin });
    expect(fromPage.status).toBe(303);
    expect(sim.device.settings.ssid).toBe("mine");
  });

  it("escapes what it renders: a stored SSID and the values of a refused form", async () => {
    const evil = `<img src=x onerror=alert(1)>"'&`;
    expect((await post("/settings", { ...GOOD, ssid: evil.slice(0, 32) })).status).toBe(303);
    const page = await (await fetch(sim.url)).text();
    expect(page).not.toContain("<img src=x");
    expect(page).toContain("&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;");
    const refusedPage = await refused({ ssid: `<script>alert(1)</script>${"x".repeat(30)}` }, "ssid");
    expect(refusedPage).not.toContain("<script>alert");
    expect(refusedPage).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
  });
});

describe("the fault controls", () => {
  it("switch the upstream scenario and refuse an unknown one", async () => {
    expect((await post("/fault/scenario", { scenario: "outage" })).status).toBe(303);
    expect(sim.upstream!.scenario()).toBe("outage");
    expect((await post("/fault/scenario", { scenario: "<b>nope</b>" })).status).toBe(400);
    expect(sim.upstream!.scenario()).toBe("outage");
    sim.upstream!.setScenario("healthy");
  });

  it("block the main loop for the time asked, and refuse a stall out of range", async () => {
    expect((await post("/fault/stall", { ms: "0" })).status).toBe(400);
    expect((await post("/fault/stall", { ms: "250" })).status).toBe(303);
    // The stall runs in the loop's next pass, which may come after this status answer.
    const loop = await waitFor("the stall", async () => {
      const status = await (await fetch(new URL("/status.json", sim.url))).json();
      return status.loop.maxStalledGapMs > 0 && status.loop;
    });
    expect(loop.stalls).toBe(1);
    expect(loop.maxStalledGapMs).toBeGreaterThanOrEqual(250);
  });
});

describe("the power controls", () => {
  it("Reboot brings the module back from the stored image at the next pass", async () => {
    const count = sim.device.boot.count;
    expect((await post("/power/reboot", {})).status).toBe(303);
    await waitFor("the reboot", () => sim.device.boot.count === count + 1);
    expect(sim.device.boot.kind).toBe("reboot");
  });

  it("Deep sleep refuses a time out of range, and sleeps for one in range", async () => {
    const count = sim.device.boot.count;
    expect((await post("/power/sleep", { s: "0" })).status).toBe(400);
    expect((await post("/power/sleep", { s: "3601" })).status).toBe(400);
    expect(sim.device.boot.count).toBe(count);
    expect((await post("/power/sleep", { s: "1" })).status).toBe(303);
    await waitFor("the sleep", async () => {
      const status = await (await fetch(new URL("/status.json", sim.url))).json();
      return status.power.asleepForMs > 0;
    });
    await waitFor("the wake", () => sim.device.boot.kind === "deep sleep");
  });
});

describe("the page server", () => {
  it("answers only to a loopback Host when bound to loopback", async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(sim.url, { headers: { host: "rebind.example:8080" } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on("error", reject);
      req.end();
    });
    expect(status).toBe(421);
  });

  it("serves the page with a content security policy and the status as JSON", async () => {
    const page = await fetch(sim.url);
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    const status = await (await fetch(new URL("/status.json", sim.url))).json();
    expect(Object.keys(status)).toEqual(
      expect.arrayContaining(["tick", "loop", "budget", "counters", "operations", "recent", "settings"]),
    );
    expect(status.settings).not.toHaveProperty("password");
  });
});
