// What the API reference requires of the doc model api-extractor writes
// (out/api/tickretry.api.json): a doc comment on every public export and on each of its
// members, and, wherever a parameter or a property may be left out, the word "default"
// in the comment that says what happens then; an @example on every function and on each
// method of TickRetryApi; and no path of the repository outside the package (a link to it
// by URL instead).

/** The parts of an api-extractor model item read here. */
export interface ModelItem {
  kind: string;
  canonicalReference?: string;
  docComment?: string;
  isOptional?: boolean;
  parameters?: { parameterName: string; isOptional?: boolean }[];
  members?: ModelItem[];
}

/** A path of the repository outside the package (a URL's path is not one). */
const REPOSITORY_PATH = /(?<![\w/.:-])(?:docs|assembly|boards|host|scripts|test|bench)\/[\w./-]+/;

/** Containers, not declarations: they carry no comment of their own. */
const CONTAINERS = new Set(["Model", "Package", "EntryPoint"]);

/** Every problem of the model, one line each ("tickretry!X:var: no doc comment"). */
export function docProblems(item: ModelItem): string[] {
  const problems: string[] = [];
  if (!CONTAINERS.has(item.kind)) {
    const name = item.canonicalReference ?? item.kind;
    const doc = (item.docComment ?? "")
      .replace(/^\s*\/\*\*|\*\/\s*$/g, "")
      .replace(/^\s*\*/gm, "")
      .trim();
    if (doc === "") problems.push(`${name}: no doc comment`);
    const optional = (item.parameters ?? []).filter((p) => p.isOptional).map((p) => p.parameterName);
    if (item.isOptional) optional.push("(this property)");
    const callable = item.kind === "Function" || name.startsWith("tickretry!TickRetryApi#");
    if (doc !== "" && callable && item.kind !== "PropertySignature" && !doc.includes("@example")) {
      problems.push(`${name}: no @example (a line that calls it)`);
    }
    const path = REPOSITORY_PATH.exec(doc)?.[0];
    if (path !== undefined)
      problems.push(`${name}: names ${path}, a path a user of the package does not have`);
    if (doc !== "" && optional.length > 0 && !/\bdefault/i.test(doc)) {
      problems.push(`${name}: ${optional.join(", ")} may be left out, and the comment gives no default`);
    }
  }
  return problems.concat(...(item.members ?? []).map(docProblems));
}
