// `npm run sign`: signs host/library/build/tickretry.wasm with the build key for an upload over the
// air, writing host/library/build/tickretry.signed.wasm (the module's bytes, then a 64-byte Ed25519
// signature over them). The private key stays out of the repository: boards/keys/build-key.pem,
// or the file TICKRETRY_BUILD_KEY names. `-- --new-key` makes a key pair first and writes
// its public half to boards/keys/build-key.pub; `npm run embed` then puts that into the firmware
// (boards/esp32/src/generated/tickretry_build_key.h), and devices flashed with it accept the modules
// signed by it, and only those. `-- --version N` first adds N as the module's version (a
// custom section the signature covers): a device refuses a module older than one it took.
import { createPrivateKey, generateKeyPairSync, sign } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { withVersion } from "./version-section.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** An Ed25519 signature's length (RFC 8032), what the device strips off an upload. */
const SIGNATURE_BYTES = 64;

const keyPath = process.env.TICKRETRY_BUILD_KEY ?? ROOT + "boards/keys/build-key.pem";
const wasmPath = process.argv.find((a) => a.endsWith(".wasm")) ?? ROOT + "host/library/build/tickretry.wasm";
const outPath = wasmPath.replace(/\.wasm$/, ".signed.wasm");

if (process.argv.includes("--new-key")) {
  if (existsSync(keyPath)) {
    console.error(`sign: ${keyPath} exists; move it away first to make a new key`);
    process.exit(1);
  }
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  mkdirSync(ROOT + "boards/keys", { recursive: true });
  writeFileSync(keyPath, privateKey.export({ type: "pkcs8", format: "pem" }), { mode: 0o600 });
  // The raw key is the last 32 bytes of its SPKI DER form.
  const raw = (publicKey.export({ type: "spki", format: "der" }) as Buffer).subarray(-32);
  writeFileSync(ROOT + "boards/keys/build-key.pub", `${raw.toString("hex")}\n`);
  console.log(`sign: new build key ${keyPath}; public half in boards/keys/build-key.pub (run npm run embed)`);
}
if (!existsSync(keyPath)) {
  console.error(`sign: no build key at ${keyPath}; \`npm run sign -- --new-key\` makes one`);
  process.exit(1);
}
const versionAt = process.argv.indexOf("--version");
const plain = readFileSync(wasmPath);
const module = versionAt < 0 ? plain : withVersion(plain, Number(process.argv[versionAt + 1]));
const signature = sign(null, module, createPrivateKey(readFileSync(keyPath)));
if (signature.length !== SIGNATURE_BYTES) throw new Error("not an Ed25519 key");
writeFileSync(outPath, Buffer.concat([module, signature]));
console.log(`sign: wrote ${outPath.slice(ROOT.length)} (${module.length} + ${SIGNATURE_BYTES} bytes)`);
