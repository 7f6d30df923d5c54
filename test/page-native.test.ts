// The firmware's locks in C, built with gcc against Debian's libsodium-dev and
// libmbedtls-dev (boards/test/page_check.c): the module signature check refuses an
// unsigned, a tampered and a foreign-signed module and accepts the build key's; the
// device password's stored form is the simulator's, byte for byte, both ways.
import { execFileSync, spawnSync } from "node:child_process";
import { generateKeyPairSync, randomBytes, sign } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { checkPassword, hashPassword } from "../host/device/security.js";
import { WASM_PATH } from "../host/tickretry.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const CHECK = `${ROOT}build/native/page_check`;
const dir = mkdtempSync(join(tmpdir(), "tickretry-sign-"));

function run(...args: string[]): { code: number | null; out: string } {
  const r = spawnSync(CHECK, args, { encoding: "utf8" });
  return { code: r.status, out: r.stdout.trim() };
}

beforeAll(() => {
  execFileSync("make", ["-s", "-C", "boards/test", "page"], { cwd: ROOT });
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
