// boards/page/status-fields.json, the one list of /status.json's fields, read as key
// paths: the sketch's key macros are made from it, and the tests hold the simulator's
// status to it.
import { readFileSync } from "node:fs";
import { ROOT } from "./page-files.js";

export const STATUS_FIELDS = JSON.parse(readFileSync(ROOT + "boards/page/status-fields.json", "utf8"));

const macro = (path: string[]) =>
  "STATUS_KEY_" + path.map((p) => p.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase()).join("_");

/** Every key of the list as [path, C macro], in the list's order (array items: the key of their element). */
export function statusKeys(): [string[], string][] {
  const keys: [string[], string][] = [];
  const walk = (node: unknown, path: string[]) => {
    if (Array.isArray(node)) return walk(node[0], path);
    if (typeof node !== "object" || node === null) return;
    for (const [k, v] of Object.entries(node)) {
      if (k === "$comment") continue;
      const key = k.replace(/\?$/, "");
      keys.push([[...path, key], macro([...path, key])]);
      walk(v, [...path, key]);
    }
  };
  walk(STATUS_FIELDS, []);
  return keys;
}
