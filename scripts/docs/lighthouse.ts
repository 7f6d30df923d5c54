// `npm run lighthouse`: Lighthouse's cumulative layout shift, accessibility and performance
// for the setup page's status view, desktop and mobile, against a running simulated device
// with Debian's Chromium. Lighthouse (12.x) runs through `npx --yes`, not as a
// devDependency: it brings some 280 packages that nothing else here needs. Its figures move
// with the machine's load, so no test depends on them; this prints them.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { mkdirSync, readFileSync } from "node:fs";
import { startSimulation } from "../../host/tools/src/device/simulation.js";

const LIGHTHOUSE = "lighthouse@12.8.2"; // 13.x needs Node 22.19; the project runs on Node 20.19
const OUT = "out/lighthouse";
const CHROME_FLAGS = "--headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking";

interface Report {
  categories: Record<string, { score: number | null }>;
  audits: Record<string, { numericValue?: number; score: number | null }>;
}

/** One Lighthouse run of `url` on a form factor: its report. Asynchronous, since the
 * simulated device answering it runs in this process. */
async function run(url: string, form: "desktop" | "mobile"): Promise<Report> {
  const file = `${OUT}/status-${form}.json`;
  await promisify(execFile)(
    "npx",
    [
      "--yes",
      LIGHTHOUSE,
      url,
      ...(form === "desktop" ? ["--preset=desktop"] : []),
      "--only-categories=performance,accessibility",
      "--chrome-path=/usr/bin/chromium",
      `--chrome-flags=${CHROME_FLAGS}`,
      "--output=json",
      `--output-path=${file}`,
      "--quiet",
    ],
    { env: { ...process.env, CHROME_PATH: "/usr/bin/chromium" }, maxBuffer: 1 << 26 },
  );
  return JSON.parse(readFileSync(file, "utf8")) as Report;
}

const score = (r: Report, category: string) => Math.round((r.categories[category].score ?? 0) * 100);

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const sim = await startSimulation({ port: 0, scenario: "flaky", uploadEveryMs: 700, seed: 42n });
  try {
    await new Promise((r) => setTimeout(r, 5000)); // operations on the chart, as a person finds it
    console.log("form     CLS    accessibility  performance");
    for (const form of ["desktop", "mobile"] as const) {
      const r = await run(sim.url, form);
      const cls = r.audits["cumulative-layout-shift"].numericValue ?? NaN;
      console.log(
        `${form.padEnd(8)} ${cls.toFixed(3)}  ${String(score(r, "accessibility")).padStart(13)}  ${String(score(r, "performance")).padStart(11)}`,
      );
    }
    console.log(`reports: ${OUT}/status-{desktop,mobile}.json (${LIGHTHOUSE}, /usr/bin/chromium)`);
  } finally {
    await sim.close();
  }
}

await main();
