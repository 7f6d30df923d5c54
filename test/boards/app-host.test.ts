// The firmware's application (boards/app, the HTTP build and the MQTT one) run on this
// machine: built with gcc over the host HAL of test/boards/app_host/ (a virtual clock, NVS
// and RTC memory in memory, an upstream or a broker whose answer to each attempt is
// scripted, a server that stores each body once per Idempotency-Key) with the C library's
// wasm3 backend over test/boards/wasm3-shim/ (the modules as wasm2c compiled them), and
// driven through the scenarios of test/app-scenarios/. Each run's trace is held to the
// accounting a device owes its readings (test/helpers/app-trace.ts) and to what its scenario
// is about; app-differential.test.ts holds the simulator's trace of each to the same bytes.
import { execFileSync } from "node:child_process";
import { beforeAll, describe, expect, it } from "vitest";
import { EndReason } from "../../host/library/src/generated/abi.js";
import { READINGS } from "../../host/tools/src/device/generated/app-config.js";
import { account, count, holdsInvariants, runApp, scenario } from "../helpers/app-trace.js";
import { makeBoards, ROOT } from "../helpers/command.js";

beforeAll(() => {
  makeBoards("app-host");
}, 300_000);

describe("the application on this machine", () => {
  it("delivers every reading against a flaky upstream, retrying with the same key", () => {
    const trace = runApp(scenario("flaky-upstream"));
    const a = holdsInvariants(trace);
    expect(a.seq).toBeGreaterThanOrEqual(10);
    expect([...a.ended.values()].flat().every((r) => r === EndReason.SUCCEEDED)).toBe(true);
    // The hang stored the body, and its retry met the same key at the server.
    expect(count(trace, / server duplicate key /)).toBe(1);
    expect(count(trace, / event .*start/)).toBeGreaterThan(a.seq);
  });

  it("ends readings with a reason through an outage and delivers again after it", () => {
    const a = holdsInvariants(runApp(scenario("outage")));
    const reasons = [...a.ended.values()].flat();
    expect(reasons.filter((r) => r !== EndReason.SUCCEEDED).length).toBeGreaterThanOrEqual(3);
    expect(reasons.filter((r) => r === EndReason.SUCCEEDED).length).toBeGreaterThanOrEqual(4);
  });

  it("neither loses nor repeats an upload across a reboot mid-attempt", () => {
    const trace = runApp(scenario("reboot-mid-attempt"));
    const a = holdsInvariants(trace);
    expect(trace).toContainEqual(expect.stringMatching(/^0 resumed restart /));
    // Reading 1's attempt was stored before the reset; its retry carries the same key.
    expect(a.ended.get(1)).toEqual([EndReason.SUCCEEDED]);
    expect(count(trace, / server duplicate key .* seq 1$/)).toBe(1);
  });

  it("resumes from RTC memory after a deep sleep, the next reading when it was due", () => {
    const trace = runApp(scenario("deep-sleep"));
    const a = holdsInvariants(trace);
    const slept = trace.find((line) => / deep sleep 50000 /.test(line))!;
    const readingIn = Number(slept.split(" ").at(-1));
    expect(trace).toContainEqual(`0 resumed deep sleep next reading in ${readingIn - 50000}`);
    expect(trace).toContainEqual(`${readingIn - 50000} reading seq 2`);
    expect(count(trace, / server duplicate key /)).toBe(0);
    expect(a.ended.get(1)).toEqual([EndReason.SUCCEEDED]);
  });

  it("takes an upload up in its backoff after a deep sleep, under the same key", () => {
    const trace = runApp(scenario("sleep-in-backoff"));
    const a = holdsInvariants(trace);
    expect(trace).toContainEqual("0 say resumed after a deep sleep: 1 uploads live");
    expect(trace).toContainEqual(expect.stringMatching(/ event \d+ end h=\d+ SUCCEEDED after 2$/));
    expect(a.ended.get(1)).toEqual([EndReason.SUCCEEDED]);
    expect(a.keysOf.get(1)?.size).toBe(1);
  });

  it("carries out the page's requests: an upload now, then a deep sleep and a reboot a second after the pass that saw them", () => {
    const trace = runApp(scenario("page-requests"));
    const a = holdsInvariants(trace);
    // "upload" came at 2000: the next pass (2010, passes are 10 ms apart) began it.
    expect(trace).toContainEqual("2010 reading seq 2");
    expect(trace).toContainEqual("4010 deep sleep 30000 next reading in 55990");
    expect(trace).toContainEqual("0 resumed deep sleep next reading in 25990");
    expect(trace).toContainEqual("0 boot reset");
    expect(a.seq).toBe(3);
  });

  // issue 33, item 2: a swapped module under trial that traps is rolled back to the built-in
  // module by the restart that follows, and the page says so after it.
  it("refuses a forged module, carries uploads across a swap, and rolls a trapping one back", () => {
    const trace = runApp(scenario("module-swap"));
    const a = holdsInvariants(trace);
    expect(trace).toContainEqual(expect.stringMatching(/^\d+ page 422 Module refused: the signature is not/));
    expect(count(trace, / page 200 Module replaced\.$/)).toBe(2);
    expect(count(trace, / module trial$/)).toBe(2);
    const rolledBack = trace.findIndex((line) =>
      / module rollback reset: the uploaded module trapped/.test(line),
    );
    expect(trace.slice(rolledBack - 4, rolledBack).filter((l) => / boot reset$/.test(l))).toHaveLength(1);
    // Reading 2 waited in its backoff across both swaps, reading 3 across the rollback.
    for (const seq of [2, 3]) expect(a.keysOf.get(seq)?.size, `reading ${seq}`).toBe(1);
    expect([...a.ended.values()].flat().every((r) => r === EndReason.SUCCEEDED)).toBe(true);
    expect(a.live).toBe(0);
  });

  it("runs only the modules compiled into it: other signed bytes are refused, the built-in module runs on", () => {
    const trace = runApp(["fallback ok 100", "run 1000", "module other", "run 60000"].join("\n"));
    expect(trace).toContainEqual(
      "1020 page 422 Module refused: tickretry_wasm3: tickretry_wasm3_open: " +
        "m3_ParseModule(environment, &module, wasm, length): shim: not a module compiled into this build (it runs only those)",
    );
    expect(count(trace, / module trial$/)).toBe(0);
    expect(count(trace, / nvs put modver /)).toBe(0);
    expect(holdsInvariants(trace).ended.get(2)).toEqual([EndReason.SUCCEEDED]);
  });

  it("over MQTT, retries a publish a broker restart cut off under the same key, and ends a refused session PERMANENT", () => {
    const trace = runApp(scenario("broker-restart"));
    const a = holdsInvariants(trace);
    expect(count(trace, / event \d+ drop h=\d+ -> OK$/)).toBe(4);
    expect(trace).toContainEqual(expect.stringMatching(/ event \d+ report h=\d+ a=1 AMBIGUOUS -> OK$/));
    // Reading 2's publish reached the broker before it went down; its retry met the key.
    expect(count(trace, / server duplicate key .* seq 2$/)).toBe(1);
    expect(a.keysOf.get(2)?.size).toBe(1);
    expect(trace).toContainEqual(expect.stringMatching(/ event \d+ end h=\d+ PERMANENT after \d+$/));
    expect([...a.ended.values()].flat().every((r) => r === EndReason.SUCCEEDED)).toBe(true);
  });

  // The readings queue (boards/app/readings.c, kept in app_kept), as the simulator's.
  it("over MQTT, queues the readings due while no session is up and drops only the oldest of a full queue", () => {
    const trace = runApp(scenario("broker-restart"));
    const a = holdsInvariants(trace);
    // The broker down for longer than a reading period: each reading due meanwhile was taken.
    // A window runs from a drop to the session's next up (through the refused login's hold).
    const waits: number[][] = [];
    let down = false;
    for (const line of trace) {
      if (/ event \d+ drop h=\d+ -> OK$/.test(line)) {
        down = true;
        waits.push([]);
      }
      if (/ event \d+ up h=\d+ a=\d+$/.test(line)) down = false;
      const seq = line.match(/ reading seq (\d+)$/)?.[1];
      if (down && seq !== undefined) waits.at(-1)!.push(Number(seq));
    }
    expect(Math.max(...waits.slice(0, -1).map((w) => w.length))).toBeGreaterThanOrEqual(2);
    // The refused login's hour: the queue kept the last 32 of its readings, and dropped (counted)
    // the ones before them; every other reading ended.
    const hold = waits.at(-1)!;
    expect(a.summaryDropped).toBe(hold.length - READINGS.queueLimit);
    expect(a.summaryDropped).toBeGreaterThan(0);
    expect(a.taken.filter((seq) => !a.ended.has(seq))).toEqual(hold.slice(0, a.summaryDropped));
    expect(a.live + a.queued).toBe(0);
  });

  it("keeps the readings queue through a reset and a deep sleep, and through a power cut what NVS held", () => {
    const kept = holdsInvariants(runApp(scenario("queue-kept")));
    expect(kept.seq).toBe(9);
    expect([...kept.ended.keys()].sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect([...kept.ended.values()].flat().every((r) => r === EndReason.SUCCEEDED)).toBe(true);
    // 25 minutes down: NVS's second write (20 minutes after the first) held readings 1 to 21.
    const cut = runApp(
      ["transport mqtt", "broker down", "run 1500000", "powercut", "broker up", "run 120000"].join("\n"),
    );
    const a = holdsInvariants(cut, false);
    const before = cut.slice(0, cut.lastIndexOf("0 boot power-on"));
    expect(count(before, / nvs put kept /)).toBe(2);
    for (let seq = 1; seq <= 21; seq++)
      expect(a.ended.get(seq), `reading ${seq}`).toEqual([EndReason.SUCCEEDED]);
    expect(a.summaryDropped).toBe(0);
  });

  // issue 33, item 3: a DEEP_SLEEP=1 board used to write the kept state to NVS at every
  // wake (the 20-minute limit lived in RAM, and each wake also claimed a new boot epoch).
  it("writes NVS no more often asleep than awake: six hours waking every ~10 s", () => {
    const hours = 6;
    const trace = runApp(["fallback ok 100", "idle-sleep 10000", `run ${hours * 3_600_000}`].join("\n"));
    const a = holdsInvariants(trace);
    expect(count(trace, / boot timer wake$/)).toBeGreaterThan(hours * 250);
    expect(a.seq).toBe(hours * 60 + 1); // one at the start, then one a minute
    expect(count(trace, / nvs put epoch /)).toBe(1);
    expect(count(trace, / nvs put kept /)).toBeLessThanOrEqual(hours * 3 + 1);
    expect(count(trace, / server duplicate key /)).toBe(0);
  });

  it("claims a new boot epoch after a power cut, and keeps its own through a timed wake", () => {
    const trace = runApp(
      ["fallback ok 100", "idle-sleep", "run 300000", "powercut", "run 120000"].join("\n"),
    );
    expect(count(trace, / boot timer wake$/)).toBeGreaterThanOrEqual(4);
    expect(count(trace, / nvs put epoch /)).toBe(2);
    const epochs = new Set(trace.map((l) => l.match(/ server stored key (\d+):/)?.[1]).filter(Boolean));
    expect([...epochs].sort()).toEqual(["1", "2"]);
  });

  it("stores the device password and the settings from the loop, and nothing of a refused form", () => {
    const trace = runApp(scenario("setup-and-settings"));
    holdsInvariants(trace);
    const puts = (key: string) => trace.filter((line) => line.includes(` nvs put ${key} `));
    expect(puts("devpw")).toHaveLength(2);
    // Three refused forms, then one stored, each key once; the restart follows it.
    for (const key of ["ssid", "pass", "url", "wififails"]) expect(puts(key), key).toHaveLength(1);
    const saved = trace.findIndex((line) => line.endsWith(" page 200 Settings saved; restarting."));
    expect(trace.slice(saved - 9, saved).every((line) => / nvs put /.test(line))).toBe(true);
    expect(trace[saved + 1]).toBe("0 boot reset");
  });

  // A power cut takes up NVS's older copy (kept.h: NVS is written at most every 20 min), so
  // a reading that ended after that write ends again on the device: the server, keyed by
  // Idempotency-Key, still stores it once.
  it("runs clean under valgrind through a reboot, a deep sleep and a power cut", () => {
    const leaks = ["--leak-check=full", "--show-leak-kinds=all", "--errors-for-leak-kinds=all"];
    const valgrind = ["valgrind", "-q", "--error-exitcode=1", ...leaks, `${ROOT}build/native/app_host`];
    const trace = runApp(scenario("power-cut"), valgrind);
    const a = holdsInvariants(trace, false);
    // NVS's copy is the one written just after the reset, readings 1 and 2 live in it (NVS
    // is written at most every 20 min, a deep sleep included): they end again on the board,
    // their deadline passed meanwhile, each stored once; the next reading is numbered 3
    // again, under the new boot's epoch.
    expect(a.ended.get(1)).toEqual([EndReason.SUCCEEDED, EndReason.DEADLINE]);
    expect(a.ended.get(2)).toEqual([EndReason.SUCCEEDED, EndReason.DEADLINE]);
    expect([...a.keysOf.get(3)!].map((key) => key.split(":")[0])).toEqual(["2", "3"]);
    expect(account(trace).live).toBe(0);
    expect(trace.at(-1)).toMatch(/ summary live 0 queued 0 dropped 0 seq 3$/);
  }, 120_000);

  // The simulator's crash points (host/tools/src/device/app/kept.ts; its chaos run SIGKILLs
  // there), where a board's panic resets it with RTC memory kept: before the kept state's
  // write, after it, and after an answer arrived, not yet reported. Readings and ends are
  // said once the kept state holds them, so the accounting is of what survives: none lost,
  // none ended twice, none stored under two keys. Before the keeper kept a working copy apart
  // from RTC memory, a crash between a begin and its save left RTC memory's CRC refusing it:
  // the board took up NVS's older copy and ended reading 1 again (before-write, 3).
  const CRASH_SCRIPT = ["fallback ok 100", "net ok 5000", "net hang 0", "net 503 100"];
  it.each(["before-write", "after-write", "answer"])(
    "neither loses nor repeats an operation at any crash %s",
    (point) => {
      let crashed = 0;
      for (let n = 1; n <= 8; n++) {
        const trace = runApp([...CRASH_SCRIPT, `crash ${point} ${n}`, "run 200000"].join("\n"));
        crashed += count(trace, new RegExp(` crash ${point}$`));
        const a = holdsInvariants(trace);
        expect(a.live, `${point} ${n}`).toBe(0);
        expect([...a.ended.values()].flat().every((r) => r === EndReason.SUCCEEDED)).toBe(true);
      }
      expect(crashed).toBeGreaterThanOrEqual(6);
    },
  );

  it("refuses a script line it does not understand, naming it", () => {
    expect(() => execFileSync(`${ROOT}build/native/app_host`, { input: "run\n", stdio: "pipe" })).toThrow(
      /not a command: run/,
    );
  });
});
