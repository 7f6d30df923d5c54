// The device's locks in the simulator, as the firmware has them: a device password set on
// first setup and needed for every change, stored only hashed; posts from other sites
// refused; an uploaded module accepted only with the build key's Ed25519 signature.
import { generateKeyPairSync, sign, type KeyObject } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { request } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import {
  FREE_WRONG_GUESSES,
  GUESS_WINDOW_MS,
  GuessLimit,
  OWNER_BOUND_MS,
} from "../../../../host/tools/src/device/app/password.js";
import { checkPassword } from "../../../../host/tools/src/device/app/password.js";
import { startSimulation, type Simulation } from "../../../../host/tools/src/device/simulation.js";
import { fileStore } from "../../../../host/tools/src/device/app/kept.js";
import { WASM_PATH } from "../../../../host/library/src/tickretry.js";
import { QUICK, waitFor } from "../../../helpers/device.js";
import { DEVICE_PASSWORD, post, setUp } from "../../../helpers/page.js";
import { stubModule } from "../../../helpers/stub-module.js";
import { withVersion } from "../../../../scripts/sign/version-section.js";
import { TRIAL_LIMIT_MS } from "../../../../host/tools/src/device/module.js";

let sim: Simulation;
let buildKey: { privateKey: KeyObject; publicKey: KeyObject };
const GOOD = { ssid: "home", password: "", upstreamUrl: "http://127.0.0.1:1/upload" };

/** The brute-force limit's clock: a test moves it past the window instead of waiting. */
let clock = 0;

async function boot(uploadEveryMs = 0, policy = QUICK): Promise<Simulation> {
  buildKey = generateKeyPairSync("ed25519");
  sim = await startSimulation({
    guessLimit: new GuessLimit(() => clock),
    port: 0,
    scenario: "healthy",
    policy,
    uploadEveryMs,
    buildKey: buildKey.publicKey,
  });
  return sim;
}
afterEach(() => sim?.close());

const signed = (module: Buffer, key = buildKey.privateKey) =>
  Buffer.concat([module, sign(null, module, key)]);
/** A post of /upload from the loopback address `from` with `password`: its status and Retry-After, s. */
function postFrom(from: string, password: string): Promise<{ status: number; retryAfter: number }> {
  const url = new URL("/upload", sim.url);
  const headers = { origin: url.origin, "x-device-password": password, "content-length": "0" };
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", localAddress: from, headers, agent: false }, (res) => {
      res.resume();
      const retryAfter = Number(res.headers["retry-after"] ?? 0);
      res.on("end", () => resolve({ status: res.statusCode!, retryAfter }));
    });
    req.on("error", reject);
    req.end();
  });
}
const answer = async (res: Response) => [res.status, (await res.json()).error ?? "ok"];

describe("the device password", () => {
  it("must be set first; until then every change is refused", async () => {
    await boot();
    const before = { ...sim.device.settings.current };
    expect(await answer(await post(sim, "/settings", GOOD))).toEqual([
      403,
      "Set a device password first; nothing was changed.",
    ]);
    expect(sim.device.settings.current).toEqual(before);
    expect((await post(sim, "/password", { password: "short" })).status).toBe(400);
    expect(sim.password.isSet).toBe(false);
    await setUp(sim);
    expect((await post(sim, "/settings", GOOD)).status).toBe(200);
  });

  it("is stored as a salted PBKDF2 hash, never as itself", async () => {
    await boot();
    await setUp(sim);
    const stored = sim.password.hash!;
    expect(stored).toMatch(/^pbkdf2-sha256\$10000\$[0-9a-f]{32}\$[0-9a-f]{64}$/);
    expect(stored).not.toContain(DEVICE_PASSWORD);
    expect(await checkPassword(stored, DEVICE_PASSWORD)).toBe(true);
    expect(await checkPassword(stored, "wrong horse battery")).toBe(false);
  });

  it("is needed for every change: a wrong or missing one changes nothing", async () => {
    await boot();
    await setUp(sim);
    const before = { ...sim.device.settings.current };
    const paths: [string, Record<string, string>][] = [
      ["/settings", GOOD],
      ["/fault/scenario", { scenario: "outage" }],
      ["/fault/stall", { ms: "100" }],
      ["/upload", {}],
      ["/loop/reset", {}],
      ["/password", { password: "a new password" }],
    ];
    for (const [path, form] of paths) {
      for (const headers of [{ "x-device-password": "wrong horse battery" }, { "x-device-password": "" }]) {
        clock += GUESS_WINDOW_MS; // past the brute-force limit (tested below)
        expect([path, ...(await answer(await post(sim, path, form, headers)))]).toEqual([
          path,
          401,
          "Wrong or missing device password; nothing was changed.",
        ]);
      }
    }
    expect(sim.device.settings.current).toEqual(before);
    expect(sim.upstream!.scenario()).toBe("healthy");
    expect(await sim.password.check(DEVICE_PASSWORD)).toBe(true);
    expect(sim.device.loopStats.snapshot().stalls).toBe(0);
  });

  it("is set by exactly one of two concurrent first setups", async () => {
    await boot();
    const [a, b] = await Promise.all([
      post(sim, "/password", { password: "first password" }),
      post(sim, "/password", { password: "second password" }),
    ]);
    const answers = [await answer(a), await answer(b)];
    expect(answers).toContainEqual([200, "ok"]);
    // The other is refused: 409 while both were in flight; on a loaded machine the first
    // may be done before the second arrives, which then needs the password like any change.
    const refused = answers.find(([status]) => status !== 200);
    expect([
      [409, "A device password was set meanwhile; give it to change it. Nothing was changed."],
      [401, "Wrong or missing device password; nothing was changed."],
    ]).toContainEqual(refused);
    const winner = a.status === 200 ? "first password" : "second password";
    const loser = a.status === 200 ? "second password" : "first password";
    expect([await sim.password.check(winner), await sim.password.check(loser)]).toEqual([true, false]);
  });

  it("is guessed FREE_WRONG_GUESSES times from one address; past that even the right one from it waits", async () => {
    await boot();
    await setUp(sim);
    clock += GUESS_WINDOW_MS;
    // A flood at once: one check runs at a time, the rest are refused unhashed.
    const flood = await Promise.all(
      Array.from({ length: 20 }, () => post(sim, "/upload", {}, { "x-device-password": "wrong guess 1" })),
    );
    const statuses = flood.map((r) => r.status);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(FREE_WRONG_GUESSES);
    expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
    for (let i = 0; i < FREE_WRONG_GUESSES; i++)
      await post(sim, "/upload", {}, { "x-device-password": "wrong" });
    const locked = await post(sim, "/settings", { ...GOOD, ssid: "locked out" });
    expect(await answer(locked)).toEqual([
      429,
      "Too many wrong device passwords; wait a minute and try again. Nothing was changed.",
    ]);
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(sim.device.settings.current.ssid).not.toBe("locked out");
    clock += GUESS_WINDOW_MS;
    expect((await post(sim, "/settings", { ...GOOD, ssid: "after the window" })).status).toBe(200);
  });

  it("lets the owner in within OWNER_BOUND_MS while another address trickles wrong guesses (issue 34, item 7)", async () => {
    // The real clock: the delays pass as they do on a device.
    sim = await startSimulation({ port: 0, scenario: "healthy", policy: QUICK, uploadEveryMs: 0 });
    await setUp(sim);
    let trickling = true;
    const guesser = (async () => {
      const statuses: number[] = [];
      for (; trickling; await sleep(200)) statuses.push((await postFrom("127.0.0.2", "wrong guess")).status);
      return statuses;
    })();
    await sleep(1500); // past the guesser's free guesses: the device-wide limit locked everyone out here
    const owner: { status: number; retryAfter: number }[] = [];
    for (let waited = 0; owner.length < 5;) {
      owner.push(await postFrom("127.0.0.1", DEVICE_PASSWORD));
      const last = owner[owner.length - 1];
      if (last.status !== 429) break;
      waited += last.retryAfter * 1000;
      if (waited > OWNER_BOUND_MS) break;
      await sleep(last.retryAfter * 1000);
    }
    trickling = false;
    const guessed = await guesser;
    expect(owner.at(-1)!.status).toBe(200);
    expect(owner.reduce((ms, o) => ms + o.retryAfter * 1000, 0)).toBeLessThanOrEqual(OWNER_BOUND_MS);
    // The guesser had its free guesses and was then held to its delays.
    expect(guessed.filter((s) => s === 401).length).toBeGreaterThanOrEqual(FREE_WRONG_GUESSES);
    expect(guessed.filter((s) => s === 401).length).toBeLessThan(FREE_WRONG_GUESSES + 3);
    expect(guessed.filter((s) => s === 429).length).toBeGreaterThan(0);
  });

  it("changes only with the current one, and the old one stops working", async () => {
    await boot();
    await setUp(sim);
    expect(await answer(await post(sim, "/password", { password: "a new password" }))).toEqual([200, "ok"]);
    const old = await post(sim, "/upload", {});
    expect(old.status).toBe(401);
    expect((await post(sim, "/upload", {}, { "x-device-password": "a new password" })).status).toBe(200);
  });

  it("is kept across a restart, beside the state file (NVS on a board), and a bad stored hash is refused", async () => {
    const state = join(mkdtempSync(join(tmpdir(), "tickretry-password-")), "state.json");
    const start = () =>
      startSimulation({ port: 0, scenario: "healthy", policy: QUICK, store: fileStore(state) });
    sim = await start();
    await setUp(sim);
    await sim.close();
    sim = await start();
    expect(sim.password.isSet).toBe(true);
    expect((await post(sim, "/password", { password: "short" })).status).toBe(400);
    expect((await post(sim, "/upload", {}, { "x-device-password": "wrong horse battery" })).status).toBe(401);
    expect((await post(sim, "/upload", {})).status).toBe(200);
    await sim.close();
    writeFileSync(`${state}.password`, "correct horse battery\n");
    await expect(start()).rejects.toThrow(/password file .*not a stored password hash/);
  });

  it("is shown as set in the status, never its hash", async () => {
    await boot();
    await setUp(sim);
    const text = await (await fetch(new URL("/status.json", sim.url))).text();
    expect(JSON.parse(text).security.devicePasswordSet).toBe(true);
    expect(text).not.toContain(sim.password.hash!.split("$")[3]);
  });
});

describe("cross-site posts", () => {
  it("are refused by Origin, Referer or Sec-Fetch-Site, even with the password", async () => {
    await boot();
    await setUp(sim);
    const before = { ...sim.device.settings.current };
    const own = new URL(sim.url).origin;
    const cases: Record<string, string>[] = [
      { origin: "http://evil.example" },
      { origin: "null" },
      { origin: `${own}.evil.example` },
      { origin: "", referer: "http://evil.example/page" },
      { origin: own, "sec-fetch-site": "cross-site" },
      { origin: own, "sec-fetch-site": "same-site" },
    ];
    for (const headers of cases) {
      const res = await post(sim, "/settings", { ...GOOD, ssid: "csrf" }, headers);
      expect([JSON.stringify(headers), res.status]).toEqual([JSON.stringify(headers), 403]);
    }
    expect(sim.device.settings.current).toEqual(before);
    const fromPage = await post(
      sim,
      "/settings",
      { ...GOOD, ssid: "mine" },
      { origin: "", referer: `${own}/` },
    );
    expect(fromPage.status).toBe(200);
    expect(sim.device.settings.current.ssid).toBe("mine");
  });
});

describe("module upload", () => {
  const module = readFileSync(WASM_PATH);

  it("refuses an unsigned, a tampered and a foreign-signed module, and keeps running its own", async () => {
    await boot();
    await setUp(sim);
    const api = sim.device.running.api;
    const tampered = signed(module);
    tampered[100] ^= 1;
    const foreign = signed(module, generateKeyPairSync("ed25519").privateKey);
    for (const body of [module, tampered, foreign, Buffer.from("short")]) {
      const [status, error] = await answer(await post(sim, "/module", body));
      expect(status).toBe(422);
      expect(error).toMatch(/^Module refused: /);
    }
    expect(sim.device.running.api).toBe(api);
  });

  it("refuses a signed module whose trial run traps or loops, and keeps running its own (issue 20, defect 15)", async () => {
    await boot(50);
    await setUp(sim);
    const api = sim.device.running.api;
    const traps = stubModule({ poll: "unreachable" });
    const loops = stubModule({ poll: "(loop $forever (br $forever)) i32.const -1" });
    expect(await answer(await post(sim, "/module", signed(traps)))).toEqual([
      422,
      expect.stringMatching(/^Module refused: it trapped in its trial run \(unreachable/),
    ]);
    expect(await answer(await post(sim, "/module", signed(loops)))).toEqual([
      422,
      `Module refused: it was still running after ${TRIAL_LIMIT_MS} ms of its trial run (a loop?).`,
    ]);
    expect(sim.device.running.api).toBe(api);
    const stored = sim.upstream!.stats().stored;
    await waitFor("uploads to go on", () => sim.upstream!.stats().stored > stored + 2);
  });

  it("refuses a module that loops in its start function or in abiVersion(), or lacks an export, serving all along (issue 34, item 3)", async () => {
    await boot(50);
    await setUp(sim);
    const api = sim.device.running.api;
    const spins = "(loop $forever (br $forever))";
    const cases: [Buffer, string][] = [
      [
        stubModule({}, `  (func $spin ${spins})\n  (start $spin)\n`),
        `its instantiation (a loop in its start function?)`,
      ],
      [stubModule({ abiVersion: `${spins} i32.const 0` }), "abiVersion() (a loop?)"],
    ];
    for (const [module, step] of cases) {
      const refused = post(sim, "/module", signed(module));
      // The page answers while the module under trial spins: its loop is not the device's.
      let served = 0;
      const polling = (async () => {
        for (let done = false; !done; served++) {
          const res = await fetch(new URL("/status.json", sim.url), { signal: AbortSignal.timeout(1000) });
          expect(res.status).toBe(200);
          await res.arrayBuffer();
          done = await Promise.race([
            refused.then(() => true),
            new Promise<boolean>((r) => setTimeout(r, 100, false)),
          ]);
        }
      })();
      expect(await answer(await refused)).toEqual([
        422,
        `Module refused: it was still running after ${TRIAL_LIMIT_MS} ms of ${step}.`,
      ]);
      await polling;
      expect(served).toBeGreaterThan(3);
    }
    expect(await answer(await post(sim, "/module", signed(stubModule({}, "", ["nextDue"]))))).toEqual([
      422,
      "Module refused: it does not export nextDue with 1 parameter(s).",
    ]);
    expect(sim.device.running.api).toBe(api);
    expect((await fetch(new URL("/status.json", sim.url))).status).toBe(200);
    const stored = sim.upstream!.stats().stored;
    await waitFor("uploads to go on", () => sim.upstream!.stats().stored > stored + 2);
  });

  it("drops an uploaded module that traps at run time for the built one, and runs on", async () => {
    await boot(50);
    await setUp(sim);
    // Passes its trial (one call of ended per tick), then traps on the device, whose pass
    // calls ended twice at one tick.
    const later = stubModule(
      {
        ended:
          "global.get $calls (if (then local.get 0 global.get $last i32.eq (if (then unreachable)))) " +
          "local.get 0 global.set $last i32.const 1 global.set $calls i32.const -1",
      },
      "  (global $calls (mut i32) (i32.const 0))\n  (global $last (mut i32) (i32.const 0))\n",
    );
    expect(await answer(await post(sim, "/module", signed(later)))).toEqual([200, "ok"]);
    await waitFor("the fallback", () => sim.device.module.traps === 1);
    expect(sim.device.module.bytes.equals(module)).toBe(true);
    expect(sim.device.boot.kind).toBe("reboot");
    const stored = sim.upstream!.stats().stored;
    await waitFor("uploads to go on", () => sim.upstream!.stats().stored > stored + 2);
  });

  it("never takes a module older than one it took, across a restart (anti-rollback)", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "tickretry-rollback-")), "state.json");
    buildKey = generateKeyPairSync("ed25519");
    const start = () =>
      startSimulation({
        port: 0,
        scenario: "healthy",
        policy: QUICK,
        uploadEveryMs: 0,
        buildKey: buildKey.publicKey,
        store: fileStore(path),
      });
    sim = await start();
    await setUp(sim);
    expect(await answer(await post(sim, "/module", signed(withVersion(module, 5))))).toEqual([200, "ok"]);
    expect(await answer(await post(sim, "/module", signed(withVersion(module, 5))))).toEqual([200, "ok"]);
    const older = [422, "Module refused: its version is older than the running one's."];
    expect(await answer(await post(sim, "/module", signed(withVersion(module, 4))))).toEqual(older);
    expect(await answer(await post(sim, "/module", signed(module)))).toEqual(older); // no version: 0
    await waitFor("the floor stored", () => fileStore(path).load()?.moduleVersion === 5);
    await sim.close();
    sim = await start();
    expect(await answer(await post(sim, "/module", signed(withVersion(module, 4))))).toEqual(older);
    expect(await answer(await post(sim, "/module", signed(withVersion(module, 6))))).toEqual([200, "ok"]);
  });

  it("refuses a signed upload that is no module of this ABI", async () => {
    await boot();
    await setUp(sim);
    const [status, error] = await answer(
      await post(sim, "/module", signed(Buffer.from("not a wasm module"))),
    );
    expect(status).toBe(422);
    expect(error).toMatch(/^Module refused: /);
  });

  it("accepts the build key's signature, runs the module and serves it", async () => {
    await boot();
    await setUp(sim);
    const before = sim.device.running.api;
    expect(await answer(await post(sim, "/module", signed(module)))).toEqual([200, "ok"]);
    expect(sim.device.running.api).not.toBe(before);
    sim.device.requests.upload();
    await waitFor("an upload through the new instance", () => sim.upstream!.stats().stored >= 1);
    const served = Buffer.from(await (await fetch(new URL("/tickretry.wasm", sim.url))).arrayBuffer());
    expect(served.equals(module)).toBe(true);
  });

  it("carries the running operations across the swap, as the firmware does", async () => {
    // Retried until the swap is done, however long the trial takes on a loaded machine.
    await boot(0, { ...QUICK, maxAttempts: 0, deadline: 0 });
    await setUp(sim);
    sim.upstream!.setScenario("outage");
    sim.device.requests.upload();
    const [op] = await waitFor("a retrying upload", () => {
      const ops = [...sim.device.uploads.ops.values()];
      return ops.length === 1 && sim.device.running.api.attempt(ops[0].handle) >= 2 && ops;
    });
    expect(await answer(await post(sim, "/module", signed(module)))).toEqual([200, "ok"]);
    expect(sim.device.running.api.operationId(op.handle)).toBe(op.operationId);
    sim.upstream!.setScenario("healthy");
    await waitFor("the upload to succeed on the new instance", () => sim.upstream!.stats().stored >= 1);
  });

  it("refuses every module when the device has no build key", async () => {
    sim = await startSimulation({
      port: 0,
      scenario: "healthy",
      policy: QUICK,
      uploadEveryMs: 0,
      buildKey: null,
    });
    await setUp(sim);
    const [status, error] = await answer(await post(sim, "/module", module));
    expect([status, error]).toEqual([
      422,
      "Module refused: this device has no build key; it accepts no module.",
    ]);
  });
});
