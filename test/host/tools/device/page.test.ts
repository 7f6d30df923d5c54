// The setup page's posts over real HTTP: form checks, the body limit, the fault, breaker and
// power controls, and what the page serves (its files from boards/page/, gzip when asked, the module).
import { readFileSync } from "node:fs";
import { Breaker } from "../../../../host/library/src/generated/abi.js";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BROKER_MEANINGS, DEFAULT_BROKER } from "../../../../host/tools/src/device/app/broker.js";
import { BODY_LIMIT } from "../../../../host/tools/src/device/page/form-body.js";
import { pageFiles, ROOT } from "../../../../scripts/embed/page-files.js";
import { startSimulation, type Simulation } from "../../../../host/tools/src/device/simulation.js";
import { WASM_PATH } from "../../../../host/library/src/tickretry.js";
import { QUICK, waitFor } from "../../../helpers/device.js";
import { post as postTo, setUp } from "../../../helpers/page.js";

let sim: Simulation;
beforeAll(async () => {
  sim = await startSimulation({ port: 0, scenario: "healthy", policy: QUICK, uploadEveryMs: 0 });
  await setUp(sim);
});
afterAll(() => sim.close());

const GOOD = { ssid: "home", password: "", upstreamUrl: "http://127.0.0.1:1/upload" };
const post = (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  postTo(sim, path, fields, headers);

async function refused(fields: Record<string, string>, field: string): Promise<string> {
  const before = { ...sim.device.settings.current };
  const res = await post("/settings", { ...GOOD, ...fields });
  const answer = await res.json();
  expect(res.status).toBe(400);
  expect(answer.ok).toBe(false);
  expect(Object.keys(answer.fields)).toContain(field);
  expect(sim.device.settings.current).toEqual(before);
  return answer.fields[field];
}

describe("the settings form", () => {
  it("stores good settings and says so", async () => {
    const res = await post("/settings", { ...GOOD, password: "12345678" });
    expect([res.status, await res.json()]).toEqual([
      200,
      { ok: true, message: "Settings saved; restarting." },
    ]);
    expect(sim.device.settings.current).toEqual({ ...DEFAULT_BROKER, ...GOOD, password: "12345678" });
  });

  it("stores the broker settings and shows them, the password only as set", async () => {
    const broker = {
      brokerUrl: "mqtt://192.168.1.10:1883",
      brokerClientId: "board-7",
      brokerUsername: "board",
      brokerPassword: "broker-secret",
      brokerTopic: "site/readings",
    };
    expect((await post("/settings", { ...GOOD, ...broker })).status).toBe(200);
    expect(sim.device.settings.current).toMatchObject(broker);
    const status = await (await fetch(new URL("/status.json", sim.url))).json();
    const { brokerPassword: _, ...shown } = broker;
    expect(status.settings).toMatchObject({ ...shown, brokerPasswordSet: true });
    expect(JSON.stringify(status)).not.toContain("broker-secret");
  });

  it("refuses a broker URL it cannot parse, or one with credentials, saying what is wrong", async () => {
    for (const brokerUrl of [
      "mqtt//h:1883",
      "http://h:1883",
      "mqtt://u:p@h:1883",
      "mqtt://h:99999",
      "mqtt://h/x",
    ]) {
      expect(await refused({ brokerUrl }, "brokerUrl")).toBe(BROKER_MEANINGS.brokerUrl);
    }
    expect(await refused({ brokerTopic: "a/#" }, "brokerTopic")).toContain("without the wildcards");
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

  it("refuses a URL that is not http (https too: the board has no stack for TLS)", async () => {
    await refused({ upstreamUrl: "https://example.com/" }, "upstreamUrl");
    await refused({ upstreamUrl: "ftp://example.com/" }, "upstreamUrl");
    await refused({ upstreamUrl: "javascript:alert(1)" }, "upstreamUrl");
    await refused({ upstreamUrl: "not a url" }, "upstreamUrl");
  });

  it("refuses a body over the limit with 413 and stores nothing", async () => {
    const before = { ...sim.device.settings.current };
    const res = await post("/settings", { ...GOOD, ssid: "big", pad: "x".repeat(BODY_LIMIT) });
    expect(res.status).toBe(413);
    expect((await res.json()).error).toContain("nothing was stored");
    expect(sim.device.settings.current).toEqual(before);
  });

  it("hands a stored SSID back as data in the status, never as markup", async () => {
    const evil = `<img src=x onerror=alert(1)>"'&`;
    expect((await post("/settings", { ...GOOD, ssid: evil.slice(0, 32) })).status).toBe(200);
    const status = await (await fetch(new URL("/status.json", sim.url))).json();
    expect(status.settings.ssid).toBe(evil.slice(0, 32));
    // The page is a fixed file: nothing stored ever reaches its HTML.
    expect(await (await fetch(sim.url)).text()).toBe(readFileSync(ROOT + "boards/page/index.html", "utf8"));
  });
});

describe("the fault controls", () => {
  it("switch the upstream scenario and refuse an unknown one", async () => {
    expect((await post("/fault/scenario", { scenario: "outage" })).status).toBe(200);
    expect(sim.upstream!.scenario()).toBe("outage");
    expect((await post("/fault/scenario", { scenario: "<b>nope</b>" })).status).toBe(400);
    expect(sim.upstream!.scenario()).toBe("outage");
    sim.upstream!.setScenario("healthy");
  });

  it("block the main loop for the time asked, and refuse a stall out of range", async () => {
    expect((await post("/fault/stall", { ms: "0" })).status).toBe(400);
    expect((await post("/fault/stall", { ms: "250" })).status).toBe(200);
    // The stall runs in the loop's next pass, which may come after this status answer.
    const loop = await waitFor("the stall", async () => {
      const status = await (await fetch(new URL("/status.json", sim.url))).json();
      return status.loop.maxStalledGapMs > 0 && status.loop;
    });
    expect(loop.stalls).toBe(1);
    expect(loop.maxStalledGapMs).toBeGreaterThanOrEqual(250);
  });
});

describe("the breaker control", () => {
  it("refuses a bad policy or action, and a policy the device has not, saying which; changes nothing", async () => {
    const answer = async (fields: Record<string, string>) => {
      const res = await post("/breaker", fields);
      return [res.status, (await res.json()).error];
    };
    const bad: Record<string, string>[] = [
      { policy: "x", action: "hold" },
      { policy: "0", action: "open" },
      { action: "hold" },
    ];
    for (const fields of bad) {
      expect(await answer(fields)).toEqual([400, "Choose a policy id (one digit) and hold or release."]);
    }
    expect(await answer({ policy: "7", action: "hold" })).toEqual([400, "No such policy on this device."]);
    expect(await answer({ policy: "0", action: "release" })).toEqual([
      409,
      "That breaker is not held; nothing was changed.",
    ]);
    expect(sim.device.running.api.breakerState(0)).toBe(Breaker.CLOSED);
  });
});

describe("the power controls", () => {
  it("Reboot brings the module back from the stored image at the next pass", async () => {
    const count = sim.device.boot.count;
    expect((await post("/power/reboot", {})).status).toBe(200);
    await waitFor("the reboot", () => sim.device.boot.count === count + 1);
    expect(sim.device.boot.kind).toBe("reboot");
  });

  it("Deep sleep refuses a time out of range or not in plain digits, and sleeps for one in range", async () => {
    const count = sim.device.boot.count;
    for (const s of ["0", "3601", "0x10", "1e1", " 5"]) {
      expect([s, (await post("/power/sleep", { s })).status]).toEqual([s, 400]);
    }
    expect(sim.device.boot.count).toBe(count);
    expect((await post("/power/sleep", { s: "1" })).status).toBe(200);
    await waitFor("the sleep", async () => {
      const status = await (await fetch(new URL("/status.json", sim.url))).json();
      return status.power.asleepForMs > 0;
    });
    await waitFor("the wake", () => sim.device.boot.kind === "deep sleep");
  });
});

describe("the page server", () => {
  it("serves every page file from its one source, gzip when asked, with a content security policy", async () => {
    for (const asset of pageFiles().values()) {
      const source = asset.raw;
      const plain = await fetch(new URL(asset.path, sim.url), { headers: { "accept-encoding": "identity" } });
      expect(Buffer.from(await plain.arrayBuffer()).equals(source)).toBe(true);
      expect(plain.headers.get("content-type")).toBe(asset.type);
      expect(plain.headers.get("content-security-policy")).toContain("script-src 'self' 'wasm-unsafe-eval'");
      const gz = await new Promise<Buffer>((resolve, reject) => {
        import("node:http").then(({ get }) =>
          get(new URL(asset.path, sim.url), { headers: { "accept-encoding": "gzip" } }, (res) => {
            const chunks: Buffer[] = [];
            res.on("data", (c: Buffer) => chunks.push(c));
            res.on("end", () =>
              res.headers["content-encoding"] === "gzip"
                ? resolve(Buffer.concat(chunks))
                : reject(new Error("not gzip")),
            );
          }).on("error", reject),
        );
      });
      expect(gunzipSync(gz).equals(source)).toBe(true);
    }
  });

  it("serves the module it runs for the playground", async () => {
    const res = await fetch(new URL("/tickretry.wasm", sim.url));
    expect(res.headers.get("content-type")).toBe("application/wasm");
    expect(Buffer.from(await res.arrayBuffer()).equals(readFileSync(WASM_PATH))).toBe(true);
  });

  it("serves the status as JSON without the Wi-Fi password", async () => {
    const status = await (await fetch(new URL("/status.json", sim.url))).json();
    expect(status.settings).not.toHaveProperty("password");
    expect(JSON.stringify(status)).not.toContain("12345678");
  });
});

describe("the Policy view's Apply (POST /policy)", () => {
  const DRAFT = {
    maxAttempts: "4",
    attemptTimeout: "900",
    baseDelay: "70",
    maxDelay: "350",
    throttleBaseDelay: "120",
    deadline: "5000",
    jitter: "EQUAL",
    idempotent: "on",
  };
  const shown = async () => (await (await fetch(new URL("/status.json", sim.url))).json()).policy;

  it("sets the draft on the module in the next pass, keeps it, and the status shows it", async () => {
    const res = await post("/policy", DRAFT);
    expect(await res.json()).toEqual({
      ok: true,
      message: "Applied: the device's upload policy is now the draft; its next state write keeps it.",
    });
    const kept = sim.device.kept.policy;
    expect(kept).toMatchObject({
      maxAttempts: 4,
      attemptTimeout: 900,
      baseDelay: 70,
      maxDelay: 350,
      jitter: "EQUAL",
    });
    // What the form has no field for stays the device's.
    expect(kept.maxRetryAfter).toBe(QUICK.maxRetryAfter);
    expect(await shown()).toMatchObject({
      maxAttempts: 4,
      attemptTimeout: 900,
      jitter: "EQUAL",
      idempotent: true,
    });
  });

  it("refuses a field out of range in words, and changes nothing", async () => {
    const before = { ...sim.device.kept.policy };
    const res = await post("/policy", { ...DRAFT, baseDelay: "400" });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe(
      "Not applied, nothing was changed: baseDelay is 400; allowed: 0 to maxDelay (350).",
    );
    expect(sim.device.kept.policy).toEqual(before);
  });

  it("refuses a post without the device password", async () => {
    const before = { ...sim.device.kept.policy };
    const res = await post(
      "/policy",
      { ...DRAFT, maxAttempts: "9" },
      { "x-device-password": "wrong password" },
    );
    expect(res.status).toBe(401);
    expect(sim.device.kept.policy).toEqual(before);
  });
});
