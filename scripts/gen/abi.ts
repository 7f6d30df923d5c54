// Generates every view of assembly/constants.json: the AssemblyScript, TypeScript and C
// constants, the C prototypes and binding X-macro, and the generated sections of
// docs/ABI.md. `--check` writes nothing and fails when a generated file is stale, so the
// test run catches a forgotten regeneration. `--constants other.json --c-header out.h` writes
// only the C view of another constants file (test/boards/c-binding.test.ts compiles the C side
// against a changed export list that way).
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { restoreLimits, type LimitGroups } from "./restore-limits.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const option = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
// `--constants file` reads another constants file (the tests feed it broken ones).
const abi = JSON.parse(readFileSync(option("--constants") ?? join(root, "assembly/constants.json"), "utf8"));
// The API reference names the ABI's document by its URL: a user of the package has no docs/.
const homepage = JSON.parse(readFileSync(join(root, "host/library/package.json"), "utf8")).homepage;
const ABI_DOC = `{@link ${homepage.replace(/#readme$/, "")}/blob/main/docs/ABI.md | ABI.md}`;

type Group = Record<string, number>;
// The constant groups: objects of numbers (stateFlags, meaning and the lists are not).
const groupNames = Object.keys(abi).filter(
  (k) =>
    typeof abi[k] === "object" &&
    !Array.isArray(abi[k]) &&
    Object.values(abi[k]).every((v) => typeof v === "number"),
);
const groups: Record<string, Group> = Object.fromEntries(groupNames.map((g) => [g, abi[g]]));

/** Refuses a constants.json whose parts the module relies on no longer line up. */
function checkConsistency(): void {
  const { limit, endReason, counter } = groups;
  if (2 ** limit.SLOT_BITS !== limit.OPERATIONS) {
    throw new Error(`limit.SLOT_BITS ${limit.SLOT_BITS} does not name OPERATIONS ${limit.OPERATIONS} slots`);
  }
  // The module counts an end as ENDED_SUCCEEDED + (reason - SUCCEEDED).
  const reasons = Object.entries(endReason).filter(([name]) => name !== "NONE");
  for (const [name, value] of reasons) {
    const expected = counter.ENDED_SUCCEEDED + value - endReason.SUCCEEDED;
    if (counter[`ENDED_${name}`] !== expected) {
      throw new Error(`counter.ENDED_${name} must be ${expected}, beside endReason.${name} = ${value}`);
    }
  }
  if (groups.policyFlag.SESSION !== groups.opFlag.SESSION) {
    throw new Error("policyFlag.SESSION must be opFlag.SESSION's bit: begin copies it over");
  }
  // The module tells a breaker that holds its operations by the low bit of its state.
  const { CLOSED, OPEN, HALF_OPEN, PROBING, ISOLATED } = groups.breaker;
  if ([CLOSED, HALF_OPEN].some((b) => b % 2 !== 0) || [OPEN, PROBING, ISOLATED].some((b) => b % 2 !== 1)) {
    throw new Error("breaker: OPEN, PROBING and ISOLATED (they hold) must be odd, CLOSED and HALF_OPEN even");
  }
  // restore accepts the four states below 4 and ISOLATED (image.ts, notePolicy).
  if (Math.max(CLOSED, OPEN, HALF_OPEN, PROBING) !== 3 || ISOLATED !== 5) {
    throw new Error("breaker: CLOSED to PROBING must be 0 to 3 and ISOLATED 5");
  }
  const states = Object.values(groups.state);
  if (states.length > 5 || Math.max(...states) > 7) {
    throw new Error("the transition table packs at most 5 states, numbered below 8");
  }
  // restore bounds a request's state by DONE and a session's by UP (image.ts, checkSlot).
  if (groups.state.UP !== Math.max(...states) || groups.state.DONE !== groups.state.UP - 1) {
    throw new Error("state: UP must be the last state and DONE the one before it");
  }
  const ended = Object.keys(counter).filter((name) => name.startsWith("ENDED_"));
  const stray = ended.filter((name) => !(name.slice("ENDED_".length) in endReason));
  if (stray.length > 0) throw new Error(`counters without an end reason: ${stray.join(", ")}`);
  const ids = Object.entries(counter)
    .filter(([name]) => name !== "COUNT")
    .map(([, value]) => value)
    .sort((a, b) => a - b);
  if (ids.some((id, i) => id !== i) || counter.COUNT !== ids.length) {
    throw new Error(`counter ids must be 0 to COUNT - 1 (${counter.COUNT}), each once`);
  }
}

/** endReason -> END_REASON */
const upperSnake = (s: string) => s.replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase();
/** endReason -> EndReason */
const pascal = (s: string) => s[0].toUpperCase() + s.slice(1);

// The export list: every parameter named and typed; parameters marked `in` travel in a C
// struct of that name (setPolicy's fields after the id, setBudget's), so that a field added
// to constants.json reaches every C caller as a new struct member, zero unless set.
type WasmType = "i32" | "u32";
interface Param {
  name: string;
  type: WasmType;
  in?: string;
  doc?: string;
  /** A trailing parameter a caller may leave out (it reads 0): added in a later ABI version. */
  optional?: boolean;
  /** The values the module accepts: [min, max], max a number, a limit's name or another
   * field of the same call (baseDelay at most maxDelay). */
  range?: [number, number | string];
}
interface Export {
  name: string;
  params: Param[];
  result: WasmType;
  doc: string;
  /** One line that calls it, for the API reference (TickRetryApi). */
  example: string;
  /** false: the C API wraps the export (tickretry_image.c) rather than exposing it. */
  cApi?: boolean;
}

/** The export list, checked: the old format (bare parameter names) is refused with the fix. */
function readExports(): Export[] {
  const types = ["i32", "u32"];
  return (abi.exports as Export[]).map((e) => {
    const where = `assembly/constants.json: export ${e.name}`;
    if (!types.includes(e.result)) throw new Error(`${where}: result must be i32 or u32`);
    e.params.forEach((p: Param | string, i) => {
      if (typeof p !== "object" || typeof p.name !== "string" || !types.includes(p.type)) {
        throw new Error(
          `${where}: parameter ${i + 1} must be {"name": ..., "type": "i32" | "u32"}, found ${JSON.stringify(p)}`,
        );
      }
    });
    if (e.cApi !== undefined && e.cApi !== false) throw new Error(`${where}: cApi is false or absent`);
    if (typeof e.example !== "string") throw new Error(`${where}: no example (one line that calls it)`);
    const first = e.params.findIndex((p) => p.in !== undefined);
    if (first >= 0 && e.params.slice(first).some((p) => p.in !== e.params[first].in)) {
      throw new Error(`${where}: the parameters of struct ${e.params[first].in} must come last, together`);
    }
    return e;
  });
}

const exports = readExports();

// The per-handle queries (constants.json "queries"): each reads one field of the operation
// through the one export `field`, so the module has one export for all of them, and the
// wrappers (bindExports, tickretry_abi.h) keep one function per query. A u32 query answers
// 0 for a bad handle, as the module's own queries did up to ABI v3.
interface Query {
  name: string;
  field: string;
  result: WasmType;
  doc: string;
  example: string;
}

/** The queries, checked: each names a field, and `field` is an export. */
function readQueries(): Query[] {
  if (!exports.some((e) => e.name === "field")) throw new Error("queries need the export field");
  return (abi.queries as Query[]).map((q) => {
    if (!(q.field in groups.field)) throw new Error(`query ${q.name}: no field ${q.field}`);
    if (typeof q.example !== "string")
      throw new Error(`query ${q.name}: no example (one line that calls it)`);
    return q;
  });
}

const queries = readQueries();

// classifyHttp's rows (constants.json "classifyHttp"): the first row whose status range holds
// the status (with `retryAfter`, only an answer that carried Retry-After) gives the outcome;
// a status no row holds is BAD_STATUS. The hosts classify by it; each view writes a line per row.
interface ClassifyRow {
  status: [number, number];
  retryAfter?: boolean;
  outcome: string;
  why: string;
}

/** The rows, checked: every outcome one the host may report, every range in order. */
function readClassifyRows(): ClassifyRow[] {
  return (abi.classifyHttp as ClassifyRow[]).map((r, i) => {
    const [lo, hi] = r.status;
    const reportable = r.outcome in groups.outcome && !["NONE", "TIMEOUT"].includes(r.outcome);
    if (!reportable)
      throw new Error(`classifyHttp row ${i + 1}: ${r.outcome} is not an outcome a host reports`);
    if (!(Number.isInteger(lo) && Number.isInteger(hi) && lo <= hi)) {
      throw new Error(`classifyHttp row ${i + 1}: status must be [lowest, highest]`);
    }
    return r;
  });
}

const classifyRows = readClassifyRows();

/** One row's condition; `eq` is the language's equality operator. */
function classifyTest(r: ClassifyRow, status: string, retryAfter: string, eq: string): string {
  const [lo, hi] = r.status;
  const range = lo === hi ? `${status} ${eq} ${lo}` : `${status} >= ${lo} && ${status} <= ${hi}`;
  return r.retryAfter ? `${range} && ${retryAfter}` : range;
}

const classifyDoc = [
  "The outcome of an HTTP answer (docs/ABI.md, classifyHttp), alike on every host: the first",
  "row of the ABI's classifyHttp table that holds the status; BAD_STATUS for a status no row",
  "holds. hasRetryAfter is non-zero when the answer carried Retry-After.",
];

function typescriptClassify(): string {
  const doc = [...classifyDoc, "@example", "```ts", "classifyHttp(503, 1); // Outcome.THROTTLED", "```"];
  let out = `\n/**\n${doc.map((l) => ` * ${l.replace("docs/ABI.md", ABI_DOC)}\n`).join("")} */\n`;
  out += `export function classifyHttp(status: number, hasRetryAfter: number): number {\n`;
  for (const r of classifyRows) {
    out += `  // ${r.why}\n`;
    out += `  if (${classifyTest(r, "status", "hasRetryAfter !== 0", "===")}) return Outcome.${r.outcome};\n`;
  }
  return out + `  return Error.BAD_STATUS;\n}\n`;
}

function cClassify(): string {
  let out = `\n/* ${classifyDoc.join("\n * ").replace("hasRetryAfter", "has_retry_after")} */\n`;
  out += `static inline int32_t tickretry_classify_http(uint32_t status, int32_t has_retry_after) {\n`;
  for (const r of classifyRows) {
    out += `  /* ${r.why} */\n`;
    const test = classifyTest(r, "status", "has_retry_after", "==").replace(/(\d+)/g, "$1u");
    out += `  if (${test}) return TICKRETRY_OUTCOME_${r.outcome};\n`;
  }
  return out + `  return TICKRETRY_ERROR_BAD_STATUS;\n}\n`;
}

function markdownClassify(): string {
  let out = `\n### classifyHttp (the first row that holds the status)\n\n`;
  out += `| status | Retry-After | outcome | why |\n|---|---|---|---|\n`;
  for (const {
    status: [lo, hi],
    retryAfter,
    outcome,
    why,
  } of classifyRows) {
    out += `| ${lo === hi ? lo : `${lo} to ${hi}`} | ${retryAfter ? "with" : "either"} | ${outcome} | ${why} |\n`;
  }
  return out + `| any other | either | BAD_STATUS (error) | not an HTTP status |\n`;
}
const cName = (s: string) => upperSnake(s).toLowerCase();
const cType = (t: WasmType) => (t === "u32" ? "uint32_t" : "int32_t");
const structOf = (e: Export) => e.params.find((p) => p.in !== undefined)?.in;
/** The C function's name after tickretry_: module_<export> for an export the C API wraps. */
const cFunction = (e: Export) => (e.cApi === false ? "module_" : "") + cName(e.name);

const header = (comment: string) =>
  `${comment} Generated by scripts/gen/abi.ts from assembly/constants.json. Do not edit.\n`;

// The transition table packs into one u64: byte `event` holds the mask of states the
// event may leave (low five bits) and the state it enters (high three bits).
function transitionTable(): bigint {
  let table = 0n;
  for (const [from, event, to] of abi.transitions as [string, string, string][]) {
    const shift = BigInt(groups.event[event] * 8);
    const fromBit = 1n << BigInt(groups.state[from]);
    const existingTo = (table >> (shift + 5n)) & 0x7n;
    if (existingTo !== 0n && existingTo !== BigInt(groups.state[to])) {
      throw new Error(`event ${event} enters two states`);
    }
    table |= (fromBit | (BigInt(groups.state[to]) << 5n)) << shift;
  }
  return table;
}

// What each state allows in opFlags packs into one u64 too: byte `state` is the mask.
function stateFlagsTable(): bigint {
  let table = 0n;
  for (const [state, flags] of Object.entries(abi.stateFlags as Record<string, string[]>)) {
    if (!(state in groups.state)) throw new Error(`stateFlags: ${state} is not a state`);
    let mask = 0n;
    for (const flag of flags) {
      if (!(flag in groups.opFlag)) throw new Error(`stateFlags.${state}: ${flag} is not an opFlag`);
      mask |= BigInt(groups.opFlag[flag]);
    }
    table |= mask << BigInt(groups.state[state] * 8);
  }
  return table;
}

/** One comment line per event, beside the packed table: what it leaves and enters. */
function transitionComments(): string {
  const nameOfState = (v: number) => Object.keys(groups.state).find((k) => groups.state[k] === v);
  let out = "";
  for (const [event, value] of Object.entries(groups.event)) {
    const rows = (abi.transitions as [string, string, string][]).filter(([, e]) => e === event);
    const from = rows.map(([f]) => f).join(", ");
    const to = rows.length > 0 ? rows[0][2] : nameOfState(0);
    const packed = (transitionTable() >> BigInt(value * 8)) & 0xffn;
    out += `// byte ${value} = 0x${packed.toString(16).padStart(2, "0")}: ${event}: ${from || "(no state)"} -> ${to}\n`;
  }
  return out;
}

function assemblyView(): string {
  let out = header("//");
  out += `\nexport const ABI_VERSION: i32 = ${abi.abiVersion};\n`;
  for (const g of groupNames) {
    out += "\n";
    for (const [name, value] of Object.entries(groups[g])) {
      const type = value > 0x7fffffff ? "u32" : "i32";
      out += `export const ${upperSnake(g)}_${name}: ${type} = ${value};\n`;
    }
  }
  out += `\n/** Byte e: mask of states event e may leave (low five bits), state it enters (high three). */\n`;
  out += transitionComments();
  out += `export const TRANSITION_TABLE: u64 = 0x${transitionTable().toString(16)};\n`;
  out += `\n/** Byte s: the opFlags state s allows (stateFlags). */\n`;
  out += `export const STATE_FLAGS: u64 = 0x${stateFlagsTable().toString(16)};\n`;
  return out;
}

// The module's exports with the signatures constants.json gives them, each calling the
// function of the same name in assembly/api.ts: a signature that drifts fails the build.
function assemblyExportsView(): string {
  let out = header("//");
  out += `// The module's exports; assembly/api.ts implements them (binaryen inlines each call).\n`;
  out += `import * as api from "../api";\n`;
  for (const e of exports) {
    const params = e.params.map((p) => `${p.name}: ${p.type}`).join(", ");
    const args = e.params.map((p) => p.name).join(", ");
    out += `\n/** ${e.doc} */\nexport function ${e.name}(${params}): ${e.result} {\n  return api.${e.name}(${args});\n}\n`;
  }
  return out;
}

/** A range's bound as the views show it: a limit's name becomes its value; a field's name stays. */
function bound(b: number | string, fields: string[]): number | string {
  if (typeof b === "number" || fields.includes(b)) return b;
  if (b in groups.limit) return groups.limit[b];
  throw new Error(`range bound "${b}" is neither a number, a limit nor a field of its call`);
}

/** FIELD_RANGES: each policy and budget field's accepted range, for checks before the module's. */
function typescriptRanges(): string {
  let out = `\n/** The values the module accepts for each field of setPolicy and setBudget, \`[min, max]\`;\n`;
  out += ` * a max that is a name is that field's value (baseDelay at most maxDelay). The module refuses\n`;
  out += ` * anything else with BAD_FIELD or SPAN_TOO_LARGE (${ABI_DOC}, Policies and Retry budget). */\n`;
  out += `export const FIELD_RANGES = {\n`;
  for (const e of exports.filter((x) => x.params.some((p) => p.range))) {
    const names = e.params.map((p) => p.name);
    const ranged = e.params.filter((p) => p.range);
    const items = ranged.map(
      (p) => `${p.name}: [${p.range![0]}, ${JSON.stringify(bound(p.range![1], names))}]`,
    );
    out += `  ${e.name}: { ${items.join(", ")} },\n`;
  }
  const optional = exports.flatMap((e) =>
    e.params.filter((p) => p.optional).map((p) => JSON.stringify(p.name)),
  );
  out += `} as const;\n\n/** The fields a caller may leave out: 0 stands for them. */\n`;
  return out + `export const OPTIONAL_FIELDS: readonly string[] = [${optional.join(", ")}];\n`;
}

/** One constant group as an object with a doc comment per value (its meaning in
 * constants.json), and the union type of its values. */
function typescriptGroup(g: string): string {
  const type = pascal(g);
  // Error shadows the global once imported; the ABI's name is kept, so say so where it shows.
  const shadow =
    type === "Error" ? ` Import it as \`{ Error as TickRetryError }\`: the name shadows the global.` : "";
  let out = `\n/** The \`${g}\` constants of ${ABI_DOC} ("Constants and exports").${shadow} */\n`;
  out += `export const ${type} = {\n`;
  for (const [name, value] of Object.entries(groups[g])) {
    const meaning = abi.meaning?.[g]?.[name];
    if (meaning) out += `  /** ${meaning.replace(/\*\//g, "* /")} */\n`;
    out += `  ${name}: ${value},\n`;
  }
  out += `} as const;\n/** One of the values of the constant group \`${type}\`. */\n`;
  return out + `export type ${type} = (typeof ${type})[keyof typeof ${type}];\n`;
}

function typescriptView(): string {
  let out = header("//");
  out += `\n/** The ABI version of the module this package ships (its \`abiVersion()\`, ${ABI_DOC}). */\n`;
  out += `export const ABI_VERSION = ${abi.abiVersion};\n`;
  for (const g of groupNames) out += typescriptGroup(g);
  out += `\n/** The transition table, \`[from, event, to]\` per allowed move (${ABI_DOC}, the state diagram). */\n`;
  out += `export const TRANSITIONS = [\n`;
  for (const t of abi.transitions) out += `  [${t.map((s: string) => JSON.stringify(s)).join(", ")}],\n`;
  out += `] as const;\n`;
  out += typescriptRanges();
  out += typescriptClassify();
  out += `\n/** Every export of the package's build/tickretry.wasm with its parameter names, in order. */\n`;
  out += `export const EXPORTS = {\n`;
  for (const e of exports) {
    out += `  ${e.name}: { params: [${e.params.map((p) => JSON.stringify(p.name)).join(", ")}], result: "${e.result}" },\n`;
  }
  out += `} as const;\n`;
  out += `\n/** The per-handle queries, each a field read through the export \`field\` (${ABI_DOC}). */\n`;
  out += `export const QUERIES = {\n`;
  for (const q of queries) {
    out += `  ${q.name}: { params: ["handle"], field: Field.${q.field}, result: "${q.result}" },\n`;
  }
  out += `} as const;\n`;
  out += `\n/** An export as the wrapper calls it: numbers in, a number out. */\nexport type Fn = (...args: number[]) => number;\n`;
  out += typescriptApi();
  out += `/**\n * An instance's exports as one object literal, so that every instance has the same fast\n`;
  out += ` * shape (an object given its properties one by one goes to dictionary mode, and 10,000\n`;
  out += ` * of those make every call a hash lookup). \`unsigned\` wraps the exports whose result is u32.\n`;
  out += ` * @example\n * \`\`\`ts\n * const api = bindExports(new WebAssembly.Instance(compileModule()).exports, (fn) => (...a) => fn(...a) >>> 0);\n`;
  out += ` * \`\`\`\n */\n`;
  out += `export function bindExports(raw: WebAssembly.Exports, unsigned: (fn: Fn, arity: number) => Fn): TickRetryApi {\n`;
  out += `  const field = raw.field as Fn;\n`;
  out += `  // A tick field as u32, or 0 for a bad handle (a tick may read as BAD_HANDLE: the state decides).\n`;
  out += `  const tick = (handle: number, which: number): number => {\n    const v = field(handle, which);\n`;
  out += `    return v === Error.BAD_HANDLE && field(handle, Field.STATE) < 0 ? 0 : v >>> 0;\n  };\n`;
  out += `  return {\n`;
  for (const e of exports) {
    const sig = `(${e.params.map((p) => `${p.name}${p.optional ? "?" : ""}: number`).join(", ")}) => number`;
    const fn = e.result === "u32" ? `unsigned(raw.${e.name} as Fn, ${e.params.length})` : `raw.${e.name}`;
    out += `    ${e.name}: ${fn} as ${sig},\n`;
  }
  out += `    memory: raw.memory as WebAssembly.Memory,\n`;
  for (const q of queries) out += typescriptQuery(q);
  out += `  };\n}\n`;
  return out;
}

/** A method's doc comment: what it does, its parameters, and a line that calls it. */
function methodDoc(doc: string, params: Param[], example: string): string {
  // TSDoc reads a bare ">" as the start of a tag.
  const text = (t: string) => t.replace(/>/g, "\\>");
  const lines = [
    text(doc),
    ...params.map((p) => `@param ${p.name} - ${text(p.doc ?? p.name)}${p.optional ? " (default 0)" : ""}`),
  ];
  lines.push("@example", "```ts", example, "```");
  return `  /**\n${lines.map((l) => `   * ${l}`).join("\n")}\n   */\n`;
}

/** The instance's methods, one doc comment each (the API reference's TickRetryApi). */
function typescriptApi(): string {
  let out = `\n/** An instance of the module: every export, typed from the ABI, u32 results as u32, and the\n`;
  out += ` * per-handle queries. Make one with {@link create} (or {@link instantiate} before a restore). */\n`;
  out += `export interface TickRetryApi {\n`;
  for (const e of exports) {
    const sig = e.params.map((p) => `${p.name}${p.optional ? "?" : ""}: number`).join(", ");
    out += methodDoc(e.doc, e.params, e.example) + `  ${e.name}(${sig}): number;\n`;
  }
  out += `  /** The instance's linear memory (the image and the state block are read and written there). */\n`;
  out += `  readonly memory: WebAssembly.Memory;\n`;
  for (const q of queries) {
    out += methodDoc(q.doc, [{ name: "handle", type: "i32", doc: "an operation's handle" }], q.example);
    out += `  ${q.name}(handle: number): number;\n`;
  }
  return `${out}}\n\n`;
}

/** One query of bindExports: an i32 one is the field as read, a u32 one bindExports' tick(). */
function typescriptQuery(q: Query): string {
  const read = `${q.result === "i32" ? "field" : "tick"}(handle, Field.${q.field})`;
  return `    /** ${q.doc} */\n    ${q.name}: (handle: number): number => ${read},\n`;
}

/** The C view's line width (lines of the X-macro leave room for the continuation). */
const C_WIDTH = 100;

/** Breaks text at spaces into lines of at most C_WIDTH - 2 characters, keeping its own
 * leading spaces; later lines start with indent. */
function wrap(text: string, indent: string): string[] {
  const lead = /^ */.exec(text)![0];
  const lines: string[] = [];
  let line = lead;
  for (const word of text.trimStart().split(" ")) {
    if (line.trim() && line.length + 1 + word.length > C_WIDTH - 2) {
      lines.push(line);
      line = indent + word;
    } else {
      line = line.trim() ? `${line} ${word}` : line + word;
    }
  }
  return [...lines, line];
}

/** The C API's parameters: plain values, then a pointer to the struct, if any. */
function cParams(e: Export): string {
  const plain = e.params.filter((p) => p.in === undefined).map((p) => `${cType(p.type)} ${cName(p.name)}`);
  const struct = structOf(e);
  if (struct) plain.push(`const tickretry_${struct} *${struct}`);
  return plain.length ? plain.join(", ") : "void";
}

/** The export's arguments in ABI order, each after a comma: `, seed_lo, seed_hi`. */
function cArgs(e: Export): string {
  return e.params.map((p) => `, ${p.in ? `${p.in}->` : ""}${cName(p.name)}`).join("");
}

/** The C view's #defines: the ABI version and every constant group. */
function cConstants(): string {
  let out = `\n#define TICKRETRY_ABI_VERSION ${abi.abiVersion}\n`;
  for (const g of groupNames) {
    out += "\n";
    for (const [name, value] of Object.entries(groups[g])) {
      const literal = value > 0x7fffffff ? `${value}u` : value < 0 ? `(${value})` : `${value}`;
      out += `#define TICKRETRY_${upperSnake(g)}_${name} ${literal}\n`;
    }
  }
  return out;
}

/** The C view's structs: one per export that takes its fields as a struct. */
function cStructs(): string {
  let out = "";
  for (const e of exports) {
    const struct = structOf(e);
    if (!struct) continue;
    out += `\n/* ${e.name}'s ${struct} fields, in ticks and milli-tokens; fill it with designated\n`;
    out += ` * initializers, so that a field added to the ABI starts at 0 where it is not named. */\n`;
    out += `typedef struct tickretry_${struct} {\n`;
    for (const p of e.params.filter((q) => q.in === struct)) {
      out += `  ${cType(p.type)} ${cName(p.name)};${p.doc ? ` /* ${p.doc} */` : ""}\n`;
    }
    out += `} tickretry_${struct};\n`;
  }
  return out;
}

/** The C view's prototypes, those of the C API first, in an extern "C" block. */
function cPrototypes(): string {
  let out = `\n#ifdef __cplusplus\nextern "C" {\n#endif\n`;
  const prototype = (e: Export) =>
    wrap(`/* ${e.doc} */`, " * ").join("\n") +
    "\n" +
    wrap(`${cType(e.result)} tickretry_${cFunction(e)}(${cParams(e)});`, "    ").join("\n") +
    "\n";
  out += `\n/* One function per export, calling it with the same arguments (docs/ABI.md). */\n`;
  for (const e of exports.filter((x) => x.cApi !== false)) out += prototype(e);
  const wrapped = exports.filter((e) => e.cApi === false);
  if (wrapped.length) {
    out += `\n/* The exports the C API wraps (tickretry.h), for the backends and tickretry_image.c. */\n`;
    for (const e of wrapped) out += prototype(e);
  }
  return out + `\n#ifdef __cplusplus\n}\n#endif\n`;
}

/** The C view's queries: one static inline function each over tickretry_field. */
function cQueries(): string {
  let out = `\n/* The per-handle queries, each a field read through tickretry_field. A tick field reads as\n`;
  out += ` * u32, or 0 for a bad handle (a tick may read as BAD_HANDLE, so the state decides). */\n`;
  out += `static inline uint32_t tickretry_tick_field(int32_t handle, int32_t which) {\n`;
  out += `  int32_t v = tickretry_field(handle, which);\n`;
  out += `  if (v == TICKRETRY_ERROR_BAD_HANDLE && tickretry_field(handle, TICKRETRY_FIELD_STATE) < 0) return 0;\n`;
  out += `  return (uint32_t)v;\n}\n`;
  for (const q of queries) {
    const read = `${q.result === "i32" ? "tickretry_field" : "tickretry_tick_field"}(handle, TICKRETRY_FIELD_${q.field})`;
    out += wrap(`/* ${q.doc} */`, " * ").join("\n") + "\n";
    out += `static inline ${cType(q.result)} tickretry_${cName(q.name)}(int32_t handle) {\n  return ${read};\n}\n`;
  }
  return out;
}

/** The C view's X-macro table of every export, and the array-argument macros. */
function cExportTable(): string {
  const arities = exports.map((e) => e.params.length);
  let out = `\n/* For the backends: X(result type, C name, export name, arity, C parameters, arguments in\n`;
  out += ` * ABI order each after a comma) for every export. A backend defines X to write its\n`;
  out += ` * tickretry_<C name>; TICKRETRY_UNWRAP strips the parentheses of a list. */\n`;
  out += `#define TICKRETRY_EXPORTS(X) \\\n`;
  out += exports
    .map((e) => {
      const line = `  X(${cType(e.result)}, ${cFunction(e)}, ${e.name}, ${e.params.length}, (${cParams(e)}), (${cArgs(e)}))`;
      if (line.length <= C_WIDTH - 2) return line;
      const head = `  X(${cType(e.result)}, ${cFunction(e)}, ${e.name}, ${e.params.length},`;
      return [head, ...wrap(`    (${cParams(e)}),`, "    "), ...wrap(`    (${cArgs(e)}))`, "      ")].join(
        " \\\n",
      );
    })
    .join(" \\\n");
  out += `\n\n#define TICKRETRY_UNWRAP(...) __VA_ARGS__\n`;
  out += `\n/* The first n elements of array a as arguments, each after a comma, for a caller that\n`;
  out += ` * holds them in an array (TICKRETRY_ARRAY_ARGS_##arity(a)); no export takes more than\n`;
  out += ` * TICKRETRY_ARITY_MAX. */\n#define TICKRETRY_ARITY_MAX ${Math.max(...arities)}\n`;
  for (let n = 0; n <= Math.max(...arities); n++) {
    const args = Array.from({ length: n }, (_, i) => `, (a)[${i}]`).join("");
    out += `#define TICKRETRY_ARRAY_ARGS_${n}(a)${args && ` ${args}`}\n`;
  }
  return out;
}

function cView(): string {
  let out = header("/*").replace(/\n$/, " */\n");
  out += `#ifndef TICKRETRY_ABI_H\n#define TICKRETRY_ABI_H\n\n#include <stdint.h>\n`;
  out += cConstants() + cClassify() + cStructs() + cPrototypes() + cQueries() + cExportTable();
  return out + `\n#endif\n`;
}

function markdownTables(): string {
  let out = "";
  for (const g of groupNames) {
    out += `\n### ${g}\n\n| name | value | meaning |\n|---|---|---|\n`;
    for (const [name, value] of Object.entries(groups[g])) {
      const meaning = abi.meaning?.[g]?.[name] ?? "";
      out += `| ${name} | ${value} | ${meaning} |\n`;
    }
  }
  out += `\n### state diagram (from the transition table)\n\n\`\`\`mermaid\nstateDiagram-v2\n  [*] --> FREE\n`;
  for (const [from, event, to] of abi.transitions) out += `  ${from} --> ${to}: ${event}\n`;
  out += "```\n";
  out += `\n### opFlags each state allows\n\n| state | opFlags |\n|---|---|\n`;
  for (const [state, flags] of Object.entries(abi.stateFlags as Record<string, string[]>)) {
    out += `| ${state} | ${flags.length ? flags.join(", ") : "none"} |\n`;
  }
  out += markdownClassify();
  out += `\n### exports\n\n| export | parameters | result | what it does |\n|---|---|---|---|\n`;
  for (const e of exports) {
    out += `| ${e.name} | ${e.params.map((p) => `${p.name}: ${p.type}`).join(", ")} | ${e.result} | ${e.doc} |\n`;
  }
  out += `\n### queries (the wrappers' functions over field)\n\n| query | field | result | what it reads |\n|---|---|---|---|\n`;
  for (const q of queries) out += `| ${q.name}(handle) | ${q.field} | ${q.result} | ${q.doc} |\n`;
  return out;
}

const MARK = "<!-- generated from assembly/constants.json";

/** `current` with the text between the markers `MARK: {part}start -->` and `...end -->` replaced. */
function docPart(current: string, part: string, text: string): string {
  const [start, end] = [`${MARK}: ${part}start -->`, `${MARK}: ${part}end -->`];
  const a = current.indexOf(start);
  const b = current.indexOf(end);
  if (a < 0 || b < a) throw new Error(`docs/ABI.md lacks the ${start} ... ${end} markers`);
  return current.slice(0, a + start.length) + "\n" + text + current.slice(b);
}

function docView(current: string): string {
  const limits = restoreLimits(groups as unknown as LimitGroups).map((line) => `   ${line}\n`);
  const tables = docPart(current, "", markdownTables() + "\n");
  return docPart(tables, "restore limits ", limits.join("") + "   ");
}

try {
  checkConsistency();
} catch (e) {
  console.error(`assembly/constants.json refused: ${(e as Error).message}`);
  process.exit(2);
}

const cHeader = option("--c-header");
if (cHeader) {
  writeFileSync(cHeader, cView());
  process.exit(0);
}

const docPath = join(root, "docs/ABI.md");
const outputs: [string, string][] = [
  [join(root, "assembly/generated/constants.ts"), assemblyView()],
  [join(root, "assembly/generated/exports.ts"), assemblyExportsView()],
  [join(root, "host/library/src/generated/abi.ts"), typescriptView()],
  [join(root, "boards/tickretry/generated/tickretry_abi.h"), cView()],
  [docPath, docView(readFileSync(docPath, "utf8"))],
];

const check = process.argv.includes("--check");
let stale = 0;
for (const [path, text] of outputs) {
  const current = existsSync(path) ? readFileSync(path, "utf8") : "";
  if (current === text) continue;
  if (check) {
    console.error(`stale: ${path.slice(root.length + 1)} (run npm run gen)`);
    stale++;
  } else {
    writeFileSync(path, text);
    console.log(`wrote ${path.slice(root.length + 1)}`);
  }
}
process.exit(stale ? 1 : 0);
