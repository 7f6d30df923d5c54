// How far a long run is, on stderr: a bar on a terminal, redrawn as the run reports; off a
// terminal, when asked, a line at every tenth, so that a log shows a run of minutes moving
// (the bar's own mode for that redraws on a timer, which a synchronous run never lets fire).
import { Presets, SingleBar } from "cli-progress";

/** Steps of the bar: permille, so that one long run moves it too. */
const STEPS = 1000;
/** Lines a run logs off a terminal. */
const LINES = 10;

export interface Progress {
  /** The share done, 0 to 1. */
  update(share: number): void;
  /** The run is over: the bar is cleared. */
  stop(): void;
}

/** Progress labelled `label`; off a terminal nothing unless `log`. */
export function progress(label: string, log = false): Progress {
  if (process.stderr.isTTY) {
    const bar = new SingleBar(
      {
        stream: process.stderr,
        format: `${label} [{bar}] {percentage}% | ETA {eta}s`,
        clearOnComplete: true,
      },
      Presets.shades_classic,
    );
    bar.start(STEPS, 0);
    return { update: (share) => bar.update(Math.floor(STEPS * share)), stop: () => bar.stop() };
  }
  let logged = 0;
  return {
    update: (share) => {
      const line = Math.floor(share * LINES);
      if (!log || line <= logged) return;
      logged = line;
      console.error(`${label}: ${Math.round((100 * line) / LINES)}%`);
    },
    stop: () => {},
  };
}
