// The page's rule (docs/device.md, "Who may touch what"): page code asks (device.requests)
// and reads the snapshot the pass made; it never touches the module, the store or the
// clock. Checked on what the TypeScript checker resolves each identifier of page/*.ts to,
// so an alias, a re-export or a property reached through the device is caught as a direct
// import is. The board's page files have theirs in test/boards/page-rules.test.ts.
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { API, SymbolFlags, type Project, type Symbol } from "typescript/unstable/sync";
import { isIdentifier } from "typescript/unstable/ast/is";
import type { Node } from "typescript/unstable/ast";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../../../helpers/command.js";

const DEVICE = "host/tools/src/device";

/** Files whose every declaration is the module, the store or the clock (or the pass that applies asks). */
const FORBIDDEN_FILES = [
  "host/library/", // the tickretry module API and its loop
  `${DEVICE}/module.ts`,
  `${DEVICE}/running.ts`,
  `${DEVICE}/boot.ts`,
  `${DEVICE}/tick.ts`,
  `${DEVICE}/clock.ts`,
  `${DEVICE}/asks.ts`,
  `${DEVICE}/policies.ts`,
  `${DEVICE}/app/kept.ts`,
  `${DEVICE}/app/sessions.ts`,
  `${DEVICE}/app/policy-apply.ts`,
];

/** In these files only the named declarations are the page's; the rest are the pass's. */
const PAGE_MAY_USE: Record<string, (name: string) => boolean> = {
  [`${DEVICE}/device.ts`]: (n) => ["Device", "requests", "password"].includes(n),
  [`${DEVICE}/app/requests.ts`]: (n) => !n.startsWith("take") && n !== "passEnded" && n !== "standsStill",
  [`${DEVICE}/app/password.ts`]: (n) => n !== "keep",
};

let api: API;
let project: Project;

// Loading the project takes a few seconds, far more on a loaded machine.
beforeAll(() => {
  api = new API({ cwd: ROOT });
  project = api.updateSnapshot({ openProjects: [join(ROOT, "tsconfig.json")] }).getProjects()[0];
}, 120_000);
afterAll(() => api.close());

/** `file:line name -> declaring file` for each identifier of `file` that resolves where page code may not reach. */
function violations(file: string): string[] {
  const source = project.program.getSourceFile(join(ROOT, file));
  if (source === undefined) throw new Error(`${file} is not in the project`);
  const ids: Node[] = [];
  const walk = (n: Node): void => {
    if (isIdentifier(n)) ids.push(n);
    n.forEachChild(walk);
  };
  source.forEachChild(walk);
  const found = new Set<string>();
  // An imported name resolves to its import; what it names is the aliased symbol.
  const target = (s: Symbol) => (s.flags & SymbolFlags.Alias ? project.checker.getAliasedSymbol(s) : s);
  for (const symbol of project.checker.getSymbolAtLocation(ids)) {
    const named = symbol && target(symbol);
    for (const d of named?.declarations ?? []) {
      const where = relative(ROOT, d.path);
      const barred =
        FORBIDDEN_FILES.some((f) => where.startsWith(f)) || PAGE_MAY_USE[where]?.(named!.name) === false;
      if (barred) found.add(`${named!.name} -> ${where}`);
    }
  }
  return [...found].sort();
}

describe("page code never touches the module, the store or the clock", () => {
  const pageFiles = readdirSync(join(ROOT, DEVICE, "page")).filter((f) => f.endsWith(".ts"));

  it.each(pageFiles)("page/%s asks and reads the snapshot only", (file) => {
    expect(violations(`${DEVICE}/page/${file}`)).toEqual([]);
  });

  it("names every break in a file that breaks the rule", () => {
    expect(violations("test/host/tools/device/fixtures/page-breaks-rules.ts")).toEqual([
      `DEFAULT_TICK_START -> ${DEVICE}/tick.ts`,
      "api -> host/tools/src/device/running.ts",
      `figures -> ${DEVICE}/app/kept.ts`,
      `keep -> ${DEVICE}/app/password.ts`,
      `kept -> ${DEVICE}/device.ts`,
      `running -> ${DEVICE}/device.ts`,
      expect.stringMatching(/^saveImage -> host\/library\//),
      `takeAsks -> ${DEVICE}/app/requests.ts`,
      `writes -> ${DEVICE}/app/kept.ts`,
    ]);
  });
});
