// npm run docs:broker-sweep: the parameter sweep of the broker restart
// (host/tools/src/fleet/broker/sweep.ts) over seeds 42, 1, 2, 3, 4, written to
// docs/fleet-broker-sweep.json, from which npm run docs:fleet draws docs/fleet-broker-sweep.svg.
// It takes a minute or two, so docs:fleet reads its result instead of running it.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { format } from "prettier";
import { DEFAULT_BROKER_SETTINGS } from "../../host/tools/src/fleet/broker/settings.js";
import { OPERATOR_WINDOW_MS } from "../../host/tools/src/fleet/broker/strategies.js";
import { runSweep, SWEEP_DATA, SWEEP_SEEDS } from "../../host/tools/src/fleet/broker/sweep.js";
import { progress } from "../../host/tools/src/progress.js";

const bar = progress("broker sweep", true);
const points = runSweep(DEFAULT_BROKER_SETTINGS, SWEEP_SEEDS, OPERATOR_WINDOW_MS, (s) => bar.update(s));
bar.stop();
const data = { written: "npm run docs:broker-sweep", seeds: SWEEP_SEEDS, points };
const file = fileURLToPath(new URL(`../../${SWEEP_DATA}`, import.meta.url));
writeFileSync(file, await format(JSON.stringify(data), { parser: "json" }));
console.log(`wrote ${SWEEP_DATA}: ${points.length} points`);
