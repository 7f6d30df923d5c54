// The firmware's locks in C, built with gcc against Debian's libsodium-dev and
// libmbedtls-dev (test/boards/page_check.c): the module signature check refuses an
// unsigned, a tampered and a foreign-signed module and accepts the build key's; the
// device password's stored form is the simulator's, byte for byte, both ways; the settings
// checks find the same field wrong as the simulator's on the same bytes.
import { spawnSync } from "node:child_process";
import { generateKeyPairSync, randomBytes, sign } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { parseForm } from "../../host/tools/src/device/page/form-body.js";
import { GuessLimit } from "../../host/tools/src/device/app/password.js";
import { moduleVersion } from "../../host/tools/src/device/module.js";
import { withVersion } from "../../scripts/sign/version-section.js";
import { checkPassword, hashPassword } from "../../host/tools/src/device/app/password.js";
import {
  checkSettings,
  defaultSettings,
  HTTPS_REFUSED,
  OTHER_HOST,
} from "../../host/tools/src/device/app/settings.js";
import {
  BROKER_MEANINGS,
  BROKER_PASSWORD_CLEARED,
  checkBroker,
  DEFAULT_BROKER,
} from "../../host/tools/src/device/app/broker.js";
import { WASM_PATH } from "../../host/library/src/tickretry.js";
import { makeBoards, ROOT } from "../helpers/command.js";

const CHECK = `${ROOT}build/native/page_check`;
const dir = mkdtempSync(join(tmpdir(), "tickretry-sign-"));

function run(...args: string[]): { code: number | null; out: string } {
  const r = spawnSync(CHECK, args, { encoding: "utf8" });
  return { code: r.status, out: r.stdout.trim() };
}

beforeAll(() => {
  makeBoards("page");
}, 120_000);

describe("the module signature check in C (libsodium)", () => {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const keyHex = (publicKey.export({ type: "spki", format: "der" }) as Buffer).subarray(-32).toString("hex");
  const module = readFileSync(WASM_PATH);
  const file = (name: string, bytes: Buffer) => {
    const path = join(dir, name);
    writeFileSync(path, bytes);
    return path;
  };
  const signed = Buffer.concat([module, sign(null, module, privateKey)]);

  it("accepts a module signed with the build key by node:crypto", () => {
    expect(run("verify", file("signed.wasm", signed), keyHex)).toEqual({
      code: 0,
      out: `accepted ${module.length}`,
    });
  });

  it("refuses an unsigned module", () => {
    expect(run("verify", file("unsigned.wasm", module), keyHex)).toEqual({
      code: 1,
      out: "refused: the signature is not the build key's (unsigned, tampered, or signed by another key)",
    });
  });

  it("refuses a tampered module and a tampered signature", () => {
    for (const at of [10, signed.length - 1]) {
      const tampered = Buffer.from(signed);
      tampered[at] ^= 0x40;
      expect(run("verify", file(`tampered-${at}.wasm`, tampered), keyHex).code).toBe(1);
    }
  });

  it("refuses a module signed by another key, and one too short to carry a signature", () => {
    const other = generateKeyPairSync("ed25519").privateKey;
    const foreign = Buffer.concat([module, sign(null, module, other)]);
    expect(run("verify", file("foreign.wasm", foreign), keyHex).code).toBe(1);
    expect(run("verify", file("short.wasm", randomBytes(64)), keyHex)).toEqual({
      code: 1,
      out: "refused: too short to carry a signature",
    });
  });
});

describe("the device password in C (mbedTLS PBKDF2)", () => {
  it("stores the same form as the simulator for the same salt", async () => {
    const salt = randomBytes(16);
    const c = run("hash", "correct horse battery", salt.toString("hex"));
    expect(c.code).toBe(0);
    expect(c.out).toBe(await hashPassword("correct horse battery", salt));
  });

  it("checks a hash the simulator made, and the simulator checks one C made", async () => {
    const stored = await hashPassword("correct horse battery");
    expect(run("check", stored, "correct horse battery")).toEqual({ code: 0, out: "match" });
    expect(run("check", stored, "correct horse batterY")).toEqual({ code: 1, out: "no match" });
    expect(run("check", "md5$1$00$00", "correct horse battery").code).toBe(1);
    const fromC = run("hash", "another password", randomBytes(16).toString("hex")).out;
    expect(await checkPassword(fromC, "another password")).toBe(true);
  });
});

describe("the settings checks in C agree with the simulator's", () => {
  const hex = (b: Buffer | string) => Buffer.from(b).toString("hex");
  /** The field of the simulator's first problem ("" when none), from the bytes a form would carry. */
  function simulator(ssid: Buffer, password: Buffer, url: Buffer): string {
    const body = Buffer.concat([
      Buffer.from("ssid="),
      Buffer.from(encodeURIComponentBytes(ssid)),
      Buffer.from("&password="),
      Buffer.from(encodeURIComponentBytes(password)),
      Buffer.from("&upstreamUrl="),
      Buffer.from(encodeURIComponentBytes(url)),
    ]);
    const { form, notUtf8 } = parseForm(body);
    const checked = checkSettings(form, defaultSettings("http://127.0.0.1/"), notUtf8);
    return checked.ok ? "" : (["ssid", "password", "upstreamUrl"].find((f) => f in checked.errors) ?? "?");
  }
  const encodeURIComponentBytes = (b: Buffer) =>
    [...b].map((x) => `%${x.toString(16).padStart(2, "0")}`).join("");

  const URL_OK = Buffer.from("http://192.168.1.10:8080/upload");
  const cases: [string, Buffer, Buffer, Buffer][] = [
    ["good", Buffer.from("home"), Buffer.from(""), URL_OK],
    ["UTF-8 SSID", Buffer.from("café ☕ 𝄞"), Buffer.from("12345678"), Buffer.from("http://example.com/x")],
    ["32 bytes", Buffer.from("x".repeat(32)), Buffer.from(""), URL_OK],
    ["33 bytes", Buffer.from("€".repeat(11)), Buffer.from(""), URL_OK],
    ["empty SSID", Buffer.from(""), Buffer.from(""), URL_OK],
    ["NUL", Buffer.from("home\0net"), Buffer.from(""), URL_OK],
    ["CR LF", Buffer.from("home\r\nnet"), Buffer.from(""), URL_OK],
    ["ESC", Buffer.from("\x1b[31mhome"), Buffer.from(""), URL_OK],
    ["DEL", Buffer.from("home\x7f"), Buffer.from(""), URL_OK],
    ["a lone 0xff", Buffer.from([0x68, 0xff]), Buffer.from(""), URL_OK],
    ["an overlong slash", Buffer.from([0xc0, 0xaf]), Buffer.from(""), URL_OK],
    ["a surrogate", Buffer.from([0xed, 0xa0, 0x80]), Buffer.from(""), URL_OK],
    ["a cut sequence", Buffer.from([0x61, 0xe2, 0x82]), Buffer.from(""), URL_OK],
    ["past U+10FFFF", Buffer.from([0xf4, 0x90, 0x80, 0x80]), Buffer.from(""), URL_OK],
    ["7-character password", Buffer.from("home"), Buffer.from("1234567"), URL_OK],
    ["64-character password", Buffer.from("home"), Buffer.from("p".repeat(64)), URL_OK],
    ["non-ASCII password", Buffer.from("home"), Buffer.from("pässwörd"), URL_OK],
    ["ftp URL", Buffer.from("home"), Buffer.from(""), Buffer.from("ftp://example.com/")],
    ["no host", Buffer.from("home"), Buffer.from(""), Buffer.from("http:///upload")],
    ["scheme only", Buffer.from("home"), Buffer.from(""), Buffer.from("http://")],
    ["no slashes", Buffer.from("home"), Buffer.from(""), Buffer.from("http:example.com")],
    ["a space", Buffer.from("home"), Buffer.from(""), Buffer.from("http://exa mple.com/")],
    ["javascript:", Buffer.from("home"), Buffer.from(""), Buffer.from("javascript:alert(1)")],
    ["https", Buffer.from("home"), Buffer.from(""), Buffer.from("https://example.com/x")],
  ];

  it.each(cases)("%s", (_, ssid, password, url) => {
    const c = run("settings", hex(ssid), hex(password), hex(url));
    const cField = c.code === 0 ? "" : c.out.split(":")[0];
    expect(cField).toBe(simulator(ssid, password, url));
  });
});

describe("the broker settings checks in C agree with the simulator's, field and message", () => {
  const FIELDS = ["brokerUrl", "brokerClientId", "brokerUsername", "brokerPassword", "brokerTopic"] as const;
  const good = ["mqtt://192.168.1.10:1883", "board-7", "board", "secret", "tickretry/readings"];
  const with_ = (field: number, value: string) => good.map((v, i) => (i === field ? value : v));
  const cases: [string, string[]][] = [
    ["good", good],
    ["no broker", with_(0, "")],
    ["mqtts, a name, no port", with_(0, "mqtts://broker.example.com")],
    ["a trailing slash", with_(0, "mqtt://10.0.0.2:1883/")],
    ["port 65535", with_(0, "mqtt://h:65535")],
    ["port 0", with_(0, "mqtt://h:0")],
    ["port 65536", with_(0, "mqtt://h:65536")],
    ["six digits", with_(0, "mqtt://h:018830")],
    ["an empty port", with_(0, "mqtt://h:")],
    ["http", with_(0, "http://h:1883")],
    ["credentials", with_(0, "mqtt://user:pw@h:1883")],
    ["a path", with_(0, "mqtt://h:1883/x")],
    ["a query", with_(0, "mqtt://h:1883?x")],
    ["no host", with_(0, "mqtt://:1883")],
    ["a space", with_(0, " mqtt://h:1883")],
    ["IPv6", with_(0, "mqtt://[::1]:1883")],
    ["128 characters", with_(0, `mqtt://${"h".repeat(121)}`)],
    ["127 characters", with_(0, `mqtt://${"h".repeat(120)}`)],
    ["no client id", with_(1, "")],
    ["a space in the client id", with_(1, "board 7")],
    ["64-character client id", with_(1, "c".repeat(64))],
    ["non-ASCII user", with_(2, "bördé")],
    ["a topic beginning with $", with_(4, "$SYS/readings")],
    ["a $ inside the topic", with_(4, "site/$readings")],
    ["a NUL in the password", with_(3, "sec\x00ret")],
    ["63-character password", with_(3, "p".repeat(63))],
    ["no topic", with_(4, "")],
    ["a + in the topic", with_(4, "tickretry/+/readings")],
    ["a # in the topic", with_(4, "tickretry/#")],
    ["96-character topic", with_(4, "t".repeat(96))],
    ["a $SYS topic (issue 34, item 6)", with_(4, "$SYS/broker/readings")],
    ["a $ topic of another kind", with_(4, "$share/readings")],
    ["a $ later in the topic", with_(4, "site/$readings")],
  ];

  it.each(cases)("%s", (_, values) => {
    const c = run("broker", ...values.map((v) => Buffer.from(v).toString("hex")));
    const form = new URLSearchParams(FIELDS.map((f, i) => [f, values[i]]));
    const { errors } = checkBroker(form, DEFAULT_BROKER);
    const first = FIELDS.find((f) => f in errors);
    expect(c.code === 0 ? "ok" : c.out.trim()).toBe(
      first === undefined ? "ok" : `${first}: ${BROKER_MEANINGS[first]}`,
    );
  });

  it("refuse a topic under $ by name (issue 34, item 6)", () => {
    const c = run("broker", ...with_(4, "$SYS/broker/readings").map((v) => Buffer.from(v).toString("hex")));
    expect(c).toEqual({ code: 1, out: `brokerTopic: ${BROKER_MEANINGS.brokerTopic}` });
    expect(BROKER_MEANINGS.brokerTopic).toMatch(/not starting with \$/);
    expect(run("broker", ...with_(4, "site/$readings").map((v) => Buffer.from(v).toString("hex"))).out).toBe(
      "ok",
    );
  });

  it("keep what a form does not carry, and refuse a bad field without storing any", () => {
    const stored = { ...defaultSettings("http://127.0.0.1/"), ssid: "home", brokerUrl: "mqtt://h:1883" };
    const kept = checkSettings(
      new URLSearchParams({ ssid: "home", password: "", upstreamUrl: "http://127.0.0.1/" }),
      stored,
    );
    expect(kept.ok && kept.settings.brokerUrl).toBe("mqtt://h:1883");
    const bad = checkSettings(
      new URLSearchParams({ ssid: "home", brokerUrl: "mqtt://h:1883/x", upstreamUrl: "http://127.0.0.1/" }),
      stored,
    );
    expect(bad).toEqual({ ok: false, errors: { brokerUrl: BROKER_MEANINGS.brokerUrl } });
  });
});

describe("hidden credentials in the upstream URL (issue 20, defect 10), in C and in the simulator", () => {
  const stored = { ...defaultSettings("http://user:secret@127.0.0.1:9/x"), ssid: "home" };
  const form = (url: string) => new URLSearchParams({ ssid: "home", password: "", upstreamUrl: url });

  it("go back to the same scheme, host and port only", () => {
    const cases: [string, string | undefined][] = [
      ["http://***@127.0.0.1:9/y", "http://user:secret@127.0.0.1:9/y"],
      ["http://***@127.0.0.1:18999/steal", undefined],
      ["https://***@127.0.0.1:9/y", undefined],
      ["http://***@127.0.0.2:9/y", undefined],
      ["http://127.0.0.1:18999/new", "http://127.0.0.1:18999/new"],
    ];
    for (const [given, expected] of cases) {
      const c = run("credentials", stored.upstreamUrl, given);
      const ts = checkSettings(form(given), stored);
      expect([given, c.code === 0 ? c.out : undefined]).toEqual([given, expected]);
      expect([given, ts.ok ? ts.settings.upstreamUrl : undefined]).toEqual([given, expected]);
      if (!ts.ok) expect(ts.errors.upstreamUrl).toBe(given.startsWith("https:") ? HTTPS_REFUSED : OTHER_HOST);
    }
  });
});

describe("a stored broker password goes only to the broker it was typed for (issue 34, item 1), in C and in the simulator", () => {
  const cases: [string, string, boolean][] = [
    ["mqtt://h:1883", "mqtt://h:1883", true],
    ["mqtt://h:1883", "mqtt://h", true],
    ["mqtt://H.example:1883/", "mqtt://h.example:1883", true],
    ["mqtts://h", "mqtts://h:8883", true],
    ["", "", true],
    ["mqtt://h:1883", "mqtt://h:1884", false],
    ["mqtt://h:1883", "mqtts://h:1883", false],
    ["mqtt://h:1883", "mqtt://capture.example:1883", false],
    ["", "mqtt://h:1883", false],
    ["mqtt://h:1883", "", false],
  ];
  it.each(cases)("%s, then %s", (storedUrl, given, same) => {
    const c = run("same-broker", storedUrl, given);
    const stored = {
      ...defaultSettings("http://127.0.0.1/"),
      brokerUrl: storedUrl,
      brokerPassword: "devpass",
    };
    const ts = checkSettings(
      new URLSearchParams({ ssid: "home", upstreamUrl: "http://127.0.0.1/", brokerUrl: given }),
      stored,
    );
    expect(ts.ok).toBe(true);
    if (!ts.ok) return;
    expect(c).toEqual(
      same ? { code: 0, out: "same" } : { code: 1, out: `cleared: ${BROKER_PASSWORD_CLEARED}` },
    );
    expect(ts.settings.brokerPassword).toBe(same ? "devpass" : "");
    expect(ts.cleared).toEqual(same ? {} : { brokerPassword: BROKER_PASSWORD_CLEARED });
  });
});

describe("https upstream URLs (issue 33, item 7), in C and in the simulator", () => {
  it("are refused with the same message naming the upload task's stack", () => {
    const url = "https://example.com/upload";
    const c = run("settings", Buffer.from("home").toString("hex"), "", Buffer.from(url).toString("hex"));
    expect(c.code).not.toBe(0);
    expect(c.out.trim()).toBe(`upstreamUrl: ${HTTPS_REFUSED}`);
    const ts = checkSettings(
      new URLSearchParams({ ssid: "home", password: "", upstreamUrl: url }),
      defaultSettings(""),
    );
    expect(ts).toEqual({ ok: false, errors: { upstreamUrl: HTTPS_REFUSED } });
    expect(HTTPS_REFUSED).toMatch(/8 KiB/);
  });
});

describe("the brute-force limit (issue 20, defect 9; issue 34, item 7), in C and in the simulator", () => {
  it("holds each address to its own growing delays, alike", () => {
    const wrongs = (address: number, from: number, n: number) =>
      Array.from({ length: n }, (_, i) => `W:${from + i}:${address}`);
    const steps = [
      ...wrongs(1, 0, 5), // its free guesses: then 1 s from the last
      "C:50:1",
      "C:50:2", // another address is not held
      "W:1040:1",
      "C:1040:1", // doubled
      "R:1041:1",
      "C:1042:1", // a right guess clears it
      ...Array.from({ length: 16 }, (_, i) => `W:${2000 + i}:${3 + i}`), // 16 addresses: the oldest evicted
      "C:2020:18", // 22 wrong in a window device-wide: one free guess each
      "C:2020:10", // evicted
      "C:62100:18", // the window passed: five free again
      ...wrongs(50, 70000, 12),
      "C:70011:50", // capped at the window
      "C:130011:50",
      "C:190012:50",
      "W:190012:50",
      "C:190013:50", // forgotten two windows after its last wrong guess: one wrong, free
    ];
    let now = 0;
    const limit = new GuessLimit(() => now);
    const waits: number[] = [];
    for (const step of steps) {
      const [kind, t, address] = step.split(":");
      now = Number(t);
      if (kind === "W") limit.wrong(address);
      else if (kind === "R") limit.right(address);
      else waits.push(limit.waitMs(address));
    }
    expect(waits).toEqual([954, 0, 2000, 0, 995, 0, 0, 60000, 0, 0, 0]);
    expect(run("guesses", ...steps).out).toBe(waits.join(" "));
  });
});

describe("a module's version for anti-rollback (issue 20, defect 6), in C and in the simulator", () => {
  it("is read from the signed bytes' custom section alike, 0 without one, -1 for no module", () => {
    const plain = readFileSync(WASM_PATH);
    const cases: [string, Buffer, number][] = [
      ["plain", plain, 0],
      ["version 7", withVersion(plain, 7), 7],
      ["version 2^32-1", withVersion(plain, 2 ** 32 - 1), 2 ** 32 - 1],
      ["not a module", Buffer.from("not wasm at all"), -1],
    ];
    for (const [name, bytes, version] of cases) {
      const path = join(dir, `version-${name.replace(/\W/g, "_")}.wasm`);
      writeFileSync(path, bytes);
      expect([name, moduleVersion(bytes), Number(run("version", path).out)]).toEqual([
        name,
        version,
        version,
      ]);
    }
    // The section leaves a loadable module.
    expect(() => new WebAssembly.Module(new Uint8Array(withVersion(plain, 7)))).not.toThrow();
  });
});

describe("the board's form reader (page.c), beside the simulator's parseForm", () => {
  it("finds the same fields with the same bytes", () => {
    const bodies = [
      "ssid=home&password=correct+horse",
      "a=%41%42%zz%4&b&=empty&c=x%00y&a=second",
      "brokerTopic=%24SYS%2Freadings&&s=60",
      "name=%E2%82%AC+%2B",
    ];
    for (const body of bodies) {
      const { form } = parseForm(Buffer.from(body, "latin1"));
      const ts = [...form.entries()].map(([k, v]) => `${k}=${Buffer.from(v, "latin1").toString("hex")}`);
      const c = run("form", Buffer.from(body, "latin1").toString("hex")).out.split("\n");
      // parseForm decodes UTF-8; the board keeps bytes: compare bytes for the ASCII cases.
      if (/%E2/.test(body)) expect(c).toEqual(["name=e282ac202b"]);
      else expect(c).toEqual(ts);
    }
  });
});

describe("the page's ask slot (requests.h), the hand-off from the server's task to the loop", () => {
  it("holds one ask; one the loop has not taken is withdrawn unseen, one it took is answered", () => {
    const steps = [
      "post",
      "post",
      "withdraw",
      "take",
      "post",
      "take",
      "withdraw",
      "answer",
      "answered",
      "answered",
    ];
    expect(run("asks", ...steps).out.split("\n")).toEqual([
      "post 1",
      "post 0", // one at a time
      "withdraw 1", // not taken: nothing was done
      "take 0 -1",
      "post 1",
      "take 1 4",
      "withdraw 0", // taken: the handler must wait for its answer
      "answered by the loop",
      "answered 1 answer 7",
      "answered 0 -",
    ]);
  });
});
