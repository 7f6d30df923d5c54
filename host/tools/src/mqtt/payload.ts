// A reading as an MQTT message. The operation id travels in the payload (`op`), not as an
// MQTT 5 user property: aedes speaks only 3.1.1 and esp-mqtt in IDF 4.4 too, so one scheme
// works with every broker and client here. The consumer deduplicates on it.

/** The topic the device publishes its readings on and the consumer subscribes to. */
export const TOPIC = "tickretry/readings";

/** The payload of one reading's upload, the same bytes on every attempt. */
export function readingPayload(operationId: number, reading: { id: number; celsius: number }): string {
  return JSON.stringify({ op: operationId, reading: reading.id, celsius: reading.celsius });
}

export type ParsedReading = { ok: true; operationId: number; reading: number } | { ok: false; why: string };

const isU32 = (v: unknown): v is number =>
  Number.isInteger(v) && (v as number) >= 0 && (v as number) < 2 ** 32;

/** The operation id and reading of a payload, or why it is not one. */
export function parseReading(payload: Buffer | string): ParsedReading {
  let value: unknown;
  try {
    value = JSON.parse(payload.toString());
  } catch {
    return { ok: false, why: "not JSON" };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, why: "not a JSON object" };
  }
  const { op, reading } = value as { op?: unknown; reading?: unknown };
  if (!isU32(op)) return { ok: false, why: `op is not an operation id (${JSON.stringify(op) ?? "absent"})` };
  if (!isU32(reading)) {
    return { ok: false, why: `reading is not a reading number (${JSON.stringify(reading) ?? "absent"})` };
  }
  return { ok: true, operationId: op, reading };
}
