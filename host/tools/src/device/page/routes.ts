// The setup page's server contract, boards/page/routes.json: its routes and the texts a
// person is shown. The simulated device's route table is checked against it when the
// server is made (routeTable), and the sketch's handler table is generated from it
// (scripts/embed/routes.ts), so the two servers cannot drift.
import { readFileSync } from "node:fs";
import { asset } from "../../assets.js";

export type Guard = "open" | "first-setup" | "password";

export interface Route {
  path: string;
  method: "GET" | "POST";
  /** The handler's name: `handle_<name>` in the sketch, a key of the simulator's table. */
  handler: string;
  guard: Guard;
  /** Which server has it: both, the simulator only, or a board with the wasm3 backend (and the simulator). */
  on: "both" | "simulator" | "wasm3";
  body: "none" | "form" | "raw";
}

interface Contract {
  routes: Route[];
  messages: Record<string, string>;
}

const contract = JSON.parse(readFileSync(asset("boards/page/routes.json"), "utf8")) as Contract;

export const ROUTES: readonly Route[] = contract.routes;

/** The text of a message of the contract; an unknown key is a bug, refused at once. */
export function message(key: string): string {
  const text = contract.messages[key];
  if (text === undefined) throw new Error(`boards/page/routes.json has no message "${key}"`);
  return text;
}

/**
 * The routes by path, each with its handler from `handlers`. Throws when `handlers` lacks a
 * route's handler or holds one the contract does not list: the simulator serves every
 * route (it stands in for a wasm3 board with the fault controls added).
 */
export function routeTable<H>(handlers: Record<string, H>): Map<string, Route & { run: H }> {
  const names = new Set(ROUTES.map((r) => r.handler));
  const missing = [...names].filter((n) => !Object.hasOwn(handlers, n));
  const extra = Object.keys(handlers).filter((n) => !names.has(n));
  if (missing.length > 0 || extra.length > 0) {
    throw new Error(
      `the setup server's handlers differ from boards/page/routes.json: ` +
        `missing ${missing.join(", ") || "none"}; not in the contract ${extra.join(", ") || "none"}`,
    );
  }
  return new Map(ROUTES.map((r) => [r.path, { ...r, run: handlers[r.handler] }]));
}
