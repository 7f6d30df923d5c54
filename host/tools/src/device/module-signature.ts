// The build key's Ed25519 signature an uploaded module must carry, as the firmware checks it
// (boards/app/module_signature.c, with libsodium; node:crypto here): the page's handler
// checks it before the loop sees a byte of the upload, so it never touches the module.
import { createPublicKey, verify, type KeyObject } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { asset } from "../assets.js";

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
