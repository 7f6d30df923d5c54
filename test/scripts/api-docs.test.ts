// The API reference's rule (scripts/docs/api-model.ts): a comment on every export and
// member, and a default named wherever something may be left out. `npm run check` applies
// it to the real model; here it is seen to catch each kind of gap.
import { expect, test } from "vitest";
import { docProblems, type ModelItem } from "../../scripts/docs/api-model.js";

const entry = (members: ModelItem[]): ModelItem => ({
  kind: "Model",
  members: [{ kind: "Package", members: [{ kind: "EntryPoint", members }] }],
});

/** A function `reference` with the comment `docComment` and one optional parameter `name`. */
const withOptional = (reference: string, docComment: string, name: string): ModelItem => ({
  kind: "Function",
  canonicalReference: reference,
  docComment,
  parameters: [{ parameterName: name, isOptional: true }],
});

test("a documented model has no problem", () => {
  const f = withOptional("p!f", "/**\n * Does f; `n` defaults to 1.\n * @example\n * f(2);\n */", "n");
  expect(docProblems(entry([f]))).toEqual([]);
});

test("an export or a member without a comment is named", () => {
  const i: ModelItem = {
    kind: "Interface",
    canonicalReference: "p!I",
    docComment: "/** I. */",
    members: [{ kind: "PropertySignature", canonicalReference: "p!I#x", docComment: "/**\n */" }],
  };
  expect(docProblems(entry([i, { kind: "Variable", canonicalReference: "p!V" }]))).toEqual([
    "p!I#x: no doc comment",
    "p!V: no doc comment",
  ]);
});

test("an optional parameter or property whose comment gives no default is named", () => {
  const f = withOptional("p!g", "/** Does g. @example g(); */", "seed");
  const p: ModelItem = {
    kind: "PropertySignature",
    canonicalReference: "p!O#m",
    docComment: "/** M. */",
    isOptional: true,
  };
  expect(docProblems(entry([f, p]))).toEqual([
    "p!g: seed may be left out, and the comment gives no default",
    "p!O#m: (this property) may be left out, and the comment gives no default",
  ]);
});

test("a function or a TickRetryApi method without an example is named; another member is not", () => {
  const f: ModelItem = {
    kind: "Function",
    canonicalReference: "tickretry!f:function(1)",
    docComment: "/** F. */",
  };
  const api: ModelItem = {
    kind: "Interface",
    canonicalReference: "tickretry!TickRetryApi:interface",
    docComment: "/** The API. */",
    members: [
      {
        kind: "MethodSignature",
        canonicalReference: "tickretry!TickRetryApi#poll:member(1)",
        docComment: "/** Polls. */",
      },
      {
        kind: "PropertySignature",
        canonicalReference: "tickretry!TickRetryApi#memory",
        docComment: "/** Memory. */",
      },
    ],
  };
  const hal: ModelItem = {
    kind: "MethodSignature",
    canonicalReference: "tickretry!LoopHal#ticks:member(1)",
    docComment: "/** Ticks. */",
  };
  expect(docProblems(entry([f, api, hal]))).toEqual([
    "tickretry!f:function(1): no @example (a line that calls it)",
    "tickretry!TickRetryApi#poll:member(1): no @example (a line that calls it)",
  ]);
});

test("a path of the repository outside the package is named; a URL to it is not", () => {
  const v = (ref: string, doc: string): ModelItem => ({
    kind: "Variable",
    canonicalReference: ref,
    docComment: doc,
  });
  expect(
    docProblems(
      entry([
        v("p!A", "/** As docs/ABI.md says. */"),
        v(
          "p!B",
          "/** As {@link https://github.com/tickretry/tickretry/blob/main/docs/ABI.md | ABI.md} says. */",
        ),
        v("p!C", "/** The package's build/tickretry.wasm. */"),
      ]),
    ),
  ).toEqual(["p!A: names docs/ABI.md, a path a user of the package does not have"]);
});
