// Reading an image the way docs/ABI.md describes it, written from that page: the header,
// the ULEB128 body fields and the CRC, so tests check the bytes against the contract
// rather than against the module's own reader.
import { crc32 } from "node:zlib";
import { ABI_VERSION, Image } from "../../host/library/src/generated/abi.js";

/** The header, the body fields as numbers and whether the CRC matches. */
export interface DecodedImage {
  format: number;
  abi: number;
  length: number;
  fields: number[];
  crcMatches: boolean;
}

/** Splits an image into its parts; the body as a list of u32 fields. */
export function decodeImage(bytes: Uint8Array): DecodedImage {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const bodyEnd = bytes.length - Image.CRC_BYTES;
  const fields: number[] = [];
  for (let at = Image.HEADER_BYTES; at < bodyEnd;) {
    let value = 0;
    let shift = 0;
    let byte: number;
    do {
      byte = bytes[at++];
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    fields.push(value);
  }
  return {
    format: bytes[0],
    abi: bytes[1],
    length: view.getUint16(2, true),
    fields,
    crcMatches: view.getUint32(bodyEnd, true) === crc32(bytes.subarray(0, bodyEnd)) >>> 0,
  };
}

/** ULEB128 of a u32, minimal. */
export function leb128(value: number): number[] {
  const out: number[] = [];
  let v = value >>> 0;
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return out;
}

/** An image with the given body fields, a correct header and CRC. */
export function encodeImage(fields: number[], format = Image.FORMAT_VERSION, abi = ABI_VERSION): Uint8Array {
  const body = fields.flatMap(leb128);
  const length = Image.HEADER_BYTES + body.length + Image.CRC_BYTES;
  const bytes = new Uint8Array(length);
  bytes.set([format, abi, length & 0xff, length >> 8]);
  bytes.set(body, Image.HEADER_BYTES);
  return withCrc(bytes);
}

/** The same bytes with the CRC recomputed over all but the last four. */
export function withCrc(bytes: Uint8Array): Uint8Array {
  const out = bytes.slice();
  const bodyEnd = out.length - Image.CRC_BYTES;
  new DataView(out.buffer).setUint32(bodyEnd, crc32(out.subarray(0, bodyEnd)) >>> 0, true);
  return out;
}
