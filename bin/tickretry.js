#!/usr/bin/env node
// `npx tickretry ...`: runs the TypeScript CLI through tsx (Node 20 cannot strip types).
import { register } from "tsx/esm/api";

register();
await import("../host/cli.ts");
