// The exports that answer where something lies in linear memory. docs/ABI.md fixes no
// address, only bounds: harnesses check the module's answers against these rules instead of
// comparing them with the model's, whose memory holds only an image area.
import { Image, Limit } from "../../../host/library/src/generated/abi.js";
import type { ExportName } from "./calls.js";

export const LAYOUT_RULES = {
  imageAddress: (r: number) => r < Limit.MEMORY_LIMIT - Image.AREA_BYTES,
  stateAddress: (r: number) => r % 4 === 0 && r < Limit.MEMORY_LIMIT,
  stateBytes: (r: number) => r > 0 && r % 4 === 0 && r <= Limit.MEMORY_LIMIT,
} satisfies Partial<Record<ExportName, (r: number) => boolean>>;

export type Layout = keyof typeof LAYOUT_RULES;
export const LAYOUT = Object.keys(LAYOUT_RULES) as ExportName[];
