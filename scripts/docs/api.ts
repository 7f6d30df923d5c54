// `npm run docs:api`: the library's API reference. api-extractor reads the package's .d.ts
// (host/library/dist, from `npm run build:host`) into a doc model; every export must carry
// a doc comment (scripts/docs/api-model.ts); api-documenter writes the model as markdown
// into docs/api/. `--check` writes nothing and fails when a comment is missing or
// docs/api/ is stale. (TypeDoc cannot run here: it needs TypeScript's compiler API, which
// typescript@7 no longer ships; api-extractor brings its own TypeScript to read .d.ts.)
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Extractor, ExtractorConfig } from "@microsoft/api-extractor";
import { docProblems, type ModelItem } from "./api-model.js";

const root = join(import.meta.dirname, "../..");
const check = process.argv.includes("--check");
const DOCS = join(root, "docs/api");

const config = ExtractorConfig.loadFileAndPrepare(join(root, "host/library/api-extractor.json"));
const extracted = Extractor.invoke(config, { localBuild: true, showVerboseMessages: false });
if (!extracted.succeeded) {
  console.error(
    `docs:api: api-extractor failed: ${extracted.errorCount} error(s), ${extracted.warningCount} warning(s)`,
  );
  process.exit(1);
}
const model = JSON.parse(readFileSync(config.apiJsonFilePath, "utf8")) as ModelItem;
const problems = docProblems(model);
for (const p of problems) console.error(`docs:api: ${p}`);
if (problems.length > 0) process.exit(1);

const out = check ? mkdtempSync(join(tmpdir(), "tickretry-api-")) : DOCS;
const documenter = join(root, "node_modules/.bin/api-documenter");
execFileSync(documenter, ["markdown", "-i", join(config.apiJsonFilePath, ".."), "-o", out], {
  stdio: "pipe",
});

if (check) {
  const read = (dir: string) =>
    readdirSync(dir).map((f) => [f, readFileSync(join(dir, f), "utf8")].join("\0"));
  const fresh = read(out).sort();
  const committed = read(DOCS).sort();
  rmSync(out, { recursive: true, force: true });
  if (fresh.join("\n") !== committed.join("\n")) {
    console.error("stale: docs/api/ (run npm run build:host && npm run docs:api)");
    process.exit(1);
  }
}
console.log(`docs:api: ${check ? "docs/api/ is current" : "wrote docs/api/"}, every export documented`);
