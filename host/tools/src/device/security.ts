// The device's two locks, as the firmware has them: a device password, set on first setup
// and stored only as a salted PBKDF2-HMAC-SHA256 hash (the sketch stores the same format
// in NVS, computed by mbedTLS), and the build key, whose Ed25519 signature an uploaded
// scheduler module must carry (the sketch verifies with libsodium). node:crypto does all
// the cryptography here.
import { createPublicKey, pbkdf2, randomBytes, timingSafeEqual, verify, type KeyObject } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { promisify } from "node:util";
import { asset } from "../assets.js";

const pbkdf2Async = promisify(pbkdf2);

/** PBKDF2 rounds: what an ESP32 computes in well under a second; the simulator uses the same. */
export const PBKDF2_ITERATIONS = 10_000;
const SALT_BYTES = 16;
const HASH_BYTES = 32;

/** The device password's rule: 8 to 64 printable ASCII characters. */
export function passwordProblem(password: string): string | undefined {
  return /^[\x20-\x7e]{8,64}$/.test(password)
    ? undefined
    : "The device password must be 8 to 64 printable ASCII characters.";
}

/** "pbkdf2-sha256$<iterations>$<salt hex>$<hash hex>": the stored form, in NVS as here. */
export async function hashPassword(password: string, salt = randomBytes(SALT_BYTES)): Promise<string> {
  const hash = await pbkdf2Async(password, salt, PBKDF2_ITERATIONS, HASH_BYTES, "sha256");
  return `pbkdf2-sha256$${PBKDF2_ITERATIONS}$${salt.toString("hex")}$${hash.toString("hex")}`;
}

/** True when `password` matches a stored hash (compared in constant time). */
export async function checkPassword(stored: string, password: string): Promise<boolean> {
  const [scheme, iterations, salt, hash] = stored.split("$");
  if (scheme !== "pbkdf2-sha256") return false;
  const expected = Buffer.from(hash, "hex");
  const got = await pbkdf2Async(
    password,
    Buffer.from(salt, "hex"),
    Number(iterations),
    expected.length,
    "sha256",
  );
  return timingSafeEqual(got, expected);
}

/** True for the form hashPassword writes (the state file's password file is checked with it). */
export function isPasswordHash(text: string): boolean {
  return /^pbkdf2-sha256\$\d+\$[0-9a-f]+\$[0-9a-f]+$/.test(text);
}

/** Where the hash lives across restarts: NVS on a board, a file beside the state file here. */
export interface PasswordKeeper {
  load(): string | undefined;
  save(hash: string): void;
}

/** The device password as the device keeps it: only its hash, kept across restarts. */
export class DevicePassword {
  private stored: string | undefined;
  /** A first setup is under way (its hash is being computed): a second one is refused. */
  private claimed = false;

  constructor(private readonly keeper?: PasswordKeeper) {
    this.stored = keeper?.load();
  }

  get isSet(): boolean {
    return this.stored !== undefined;
  }

  async set(password: string): Promise<void> {
    const hash = await hashPassword(password);
    this.keeper?.save(hash);
    this.stored = hash;
  }

  /**
   * The first setup: sets `password` only when none is set nor being set, checked and
   * claimed before the hash is computed, so that of two concurrent first setups exactly
   * one wins. False for the other.
   */
  async setFirst(password: string): Promise<boolean> {
    if (this.stored !== undefined || this.claimed) return false;
    this.claimed = true;
    try {
      await this.set(password);
      return true;
    } finally {
      this.claimed = false;
    }
  }

  async check(password: string): Promise<boolean> {
    return this.stored !== undefined && (await checkPassword(this.stored, password));
  }

  /** The stored form (what NVS would hold), for tests and the state file. */
  get hash(): string | undefined {
    return this.stored;
  }
}

/** An Ed25519 signature: the last bytes of a signed module. */
export const SIGNATURE_BYTES = 64;

/** The build key's public half, raw hex; `npm run sign -- --new-key` writes it. */
export const BUILD_KEY_PATH = asset("boards/keys/build-key.pub");

/** An Ed25519 public key from its 32 raw bytes. */
export function publicKeyFromRaw(raw: Buffer): KeyObject {
  if (raw.length !== 32) throw new Error(`an Ed25519 public key is 32 bytes, not ${raw.length}`);
  // SPKI DER for Ed25519 is a fixed 12-byte prefix before the raw key (RFC 8410).
  const der = Buffer.concat([Buffer.from("302a300506032b6570032100", "hex"), raw]);
  return createPublicKey({ key: der, format: "der", type: "spki" });
}

/** The build key the firmware has compiled in (boards/keys/build-key.pub), or undefined when none was made. */
export function loadBuildKey(path = BUILD_KEY_PATH): KeyObject | undefined {
  if (!existsSync(path)) return undefined;
  return publicKeyFromRaw(Buffer.from(readFileSync(path, "utf8").trim(), "hex"));
}

export type SignedModule = { ok: true; module: Buffer } | { ok: false; reason: string };

/** Splits a signed module (module bytes, then the signature over them) and checks the signature. */
export function verifySignedModule(signed: Buffer, key: KeyObject | undefined): SignedModule {
  if (key === undefined) return { ok: false, reason: "this device has no build key; it accepts no module" };
  if (signed.length <= SIGNATURE_BYTES) return { ok: false, reason: "too short to carry a signature" };
  const module = signed.subarray(0, signed.length - SIGNATURE_BYTES);
  const signature = signed.subarray(signed.length - SIGNATURE_BYTES);
  if (!verify(null, module, key, signature)) {
    return {
      ok: false,
      reason: "the signature is not the build key's (unsigned, tampered, or signed by another key)",
    };
  }
  return { ok: true, module };
}
