// `npm run lighthouse [-- --runs=N]`: Lighthouse's cumulative layout shift, accessibility,
// performance and total blocking time for the setup page's status view, desktop and mobile,
// against a running simulated device with Debian's Chromium. Lighthouse (12.x) runs through
// `npx --yes`, not as a devDependency: it brings some 280 packages that nothing else here
// needs. Each form runs N times (3 unless told), alternately, with its standard settings:
// mobile is Lighthouse's default (a simulated slow phone: its throttling scales the
// main-thread time it observes, so a loaded host lowers the score), desktop its desktop
// preset. It prints every run with the host's load when it began, and the median of each
// form, as Lighthouse's own advice on variance has it; no test depends on the figures.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { mkdirSync, readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { startSimulation } from "../../host/tools/src/device/simulation.js";

const LIGHTHOUSE = "lighthouse@12.8.2"; // 13.x needs Node 22.19; the project runs on Node 20.19
const OUT = "out/lighthouse";
const CHROME_FLAGS = "--headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking";
const FORMS = ["desktop", "mobile"] as const;
type Form = (typeof FORMS)[number];

interface Report {
  categories: Record<string, { score: number | null }>;
  audits: Record<string, { numericValue?: number; score: number | null }>;
}

/** One run's figures, as printed. */
interface Figures {
  cls: number;
  accessibility: number;
  performance: number;
  tbtMs: number;
  load: number;
}

/** One Lighthouse run of `url` on a form factor into `file`: its report. Asynchronous,
 * since the simulated device answering it runs in this process. */
async function run(url: string, form: Form, file: string): Promise<Report> {
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

function figures(r: Report, load: number): Figures {
  return {
    cls: r.audits["cumulative-layout-shift"].numericValue ?? NaN,
    accessibility: score(r, "accessibility"),
    performance: score(r, "performance"),
    tbtMs: r.audits["total-blocking-time"].numericValue ?? NaN,
    load,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function line(form: string, run: string, f: Figures): string {
  const cells = [
    form.padEnd(8),
    run.padEnd(6),
    f.cls.toFixed(3).padStart(5),
    String(f.accessibility).padStart(13),
    String(f.performance).padStart(11),
    f.tbtMs.toFixed(0).padStart(7),
    f.load.toFixed(2).padStart(6),
  ];
  return cells.join("  ");
}

/** --runs=N from the command line; 3 without it. */
function runsAsked(): number {
  const arg = process.argv.slice(2).find((a) => a.startsWith("--runs="));
  const runs = arg === undefined ? 3 : Number(arg.slice("--runs=".length));
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs takes a whole number from 1: ${arg}`);
  return runs;
}

async function main(): Promise<void> {
  const runs = runsAsked();
  mkdirSync(OUT, { recursive: true });
  const sim = await startSimulation({ port: 0, scenario: "flaky", uploadEveryMs: 700, seed: 42n });
  const all: Record<Form, Figures[]> = { desktop: [], mobile: [] };
  try {
    await new Promise((r) => setTimeout(r, 5000)); // operations on the chart, as a person finds it
    console.log(`host: ${cpus().length} cores; load: the 1-minute load average as the run began`);
    console.log("form      run       CLS  accessibility  performance  TBT ms    load");
    for (let i = 1; i <= runs; i++) {
      for (const form of FORMS) {
        const load = loadavg()[0];
        const f = figures(await run(sim.url, form, `${OUT}/status-${form}-${i}.json`), load);
        all[form].push(f);
        console.log(line(form, String(i), f));
      }
    }
    for (const form of FORMS) {
      const m = (key: keyof Figures) => median(all[form].map((f) => f[key]));
      const f = {
        cls: m("cls"),
        accessibility: m("accessibility"),
        performance: m("performance"),
        tbtMs: m("tbtMs"),
        load: m("load"),
      };
      console.log(line(form, "median", f));
    }
    console.log(
      `reports: ${OUT}/status-{desktop,mobile}-{1..${runs}}.json (${LIGHTHOUSE}, /usr/bin/chromium)`,
    );
  } finally {
    await sim.close();
  }
}

await main();
