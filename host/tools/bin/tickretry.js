#!/usr/bin/env node
// `npx tickretry ...`: the CLI compiled to dist/ (npm run build:host; npm pack builds it).
import { existsSync } from "node:fs";

const cli = new URL("../dist/cli.js", import.meta.url);
if (!existsSync(cli)) {
  console.error("tickretry: dist/cli.js is missing: run `npm run build:host` in the tickretry checkout");
  process.exit(2);
}
await import(cli.href);
