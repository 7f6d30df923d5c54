// Flash life of the firmware's NVS, from the write pattern the firmware's own code makes:
// the application (boards/app) built for this machine (test/boards/app_host/) runs a day
// of virtual time against a healthy upstream, a reading a minute, and every NVS write it
// makes goes through the project's NVS model (host/tools/src/device/nvs-wear.ts), replayed
// for a year. Three builds: the default (never sleeps), and DEEP_SLEEP=1 waking once a
// minute (for each reading) and about every 10 s (its sleeps cut at 10 s, as a board that
// also wakes for a sensor would).
import { execFileSync } from "node:child_process";
import { blobEntries, flashLifeYearsOfDay, type NvsWrite } from "../host/tools/src/device/nvs-wear.js";

const DAY_MS = 86_400_000;
const PROGRAM = "build/native/app_host";

export interface FlashLifeFigures {
  /** Per build: the day's wakes, NVS writes, and the years until the most-worn page's rated erases. */
  flashLife: { build: string; wakesPerDay: number; nvsWritesPerDay: number; years: number }[];
}

/** The u32 keys (the boot epoch) take one entry; the kept state is a blob. */
const entriesOf = (bytes: number) => (bytes === 4 ? 1 : blobEntries(bytes));

function day(script: string[]): { writes: NvsWrite[]; wakes: number } {
  const input = ["fallback ok 100", ...script, `run ${DAY_MS}`].join("\n");
  const trace = execFileSync(PROGRAM, { input, encoding: "utf8", maxBuffer: 1 << 28 }).split("\n");
  const writes: NvsWrite[] = [];
  let wakes = 0;
  for (const line of trace) {
    const put = line.match(/^\d+ nvs put (\S+) (\d+) bytes /);
    if (put) writes.push({ key: put[1], entries: entriesOf(Number(put[2])) });
    if (/^\d+ boot timer wake$/.test(line)) wakes++;
  }
  return { writes, wakes };
}

/** The builds measured, with the app_host commands that make the program behave as each. */
export const FLASH_BUILDS: [string, string[]][] = [
  ["default build (awake)", []],
  ["DEEP_SLEEP=1, a wake a minute", ["idle-sleep"]],
  ["DEEP_SLEEP=1, a wake every ~10 s", ["idle-sleep 10000"]],
];

export function measureFlashLife(progress: (what: string) => void): FlashLifeFigures {
  progress("flash life: building the firmware's application for this machine");
  execFileSync("flock", ["build/.make.lock", "make", "-s", "-C", "test/boards", "app-host"], {
    stdio: "inherit",
  });
  const flashLife = FLASH_BUILDS.map(([build, script]) => {
    progress(`flash life: a day of ${build}`);
    const { writes, wakes } = day(script);
    return { build, wakesPerDay: wakes, nvsWritesPerDay: writes.length, years: flashLifeYearsOfDay(writes) };
  });
  return { flashLife };
}
