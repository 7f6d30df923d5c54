// The custom section `npm run sign -- --version N` appends to a module before signing it:
// "tickretry.version" and N as a u32 little-endian, so the signature covers the version a
// device checks against rollback (boards/app/module_signature.c, module_version).
export const VERSION_SECTION = "tickretry.version";

export function withVersion(module: Buffer, version: number): Buffer {
  if (!Number.isInteger(version) || version < 0 || version >= 2 ** 32) {
    throw new Error(`a module version is a u32, not ${version}`);
  }
  const name = Buffer.from(VERSION_SECTION, "latin1");
  const value = Buffer.alloc(4);
  value.writeUInt32LE(version);
  // Both lengths are below 128: one LEB128 byte each.
  const content = Buffer.concat([Buffer.from([name.length]), name, value]);
  return Buffer.concat([module, Buffer.from([0, content.length]), content]);
}
