// What the page and the command line ask of the loop, kept until the next pass carries it
// out: a reading, a stall, a reboot or a deep sleep. Asking never touches the module, the
// store or the clock; the pass does, between its own steps.

/** The longest main-loop stall the page or the command line may ask for, ms. */
export const MAX_STALL_MS = 60_000;

/** The longest deep sleep the page may ask for, s. */
export const MAX_SLEEP_S = 3600;

export type PowerRequest = { kind: "reboot" } | { kind: "deep sleep"; ms: number };

export class Requests {
  /** Readings asked for and not yet taken (a button press, a test, the periodic timer). */
  private uploads = 0;
  private stallMs = 0;
  private power: PowerRequest | undefined;

  /** One more reading at the next pass. */
  upload(): void {
    this.uploads++;
  }

  /** Blocks the next pass for `ms`, as a slow flash write blocks a firmware loop. */
  stall(ms: number): void {
    this.stallMs = Math.max(this.stallMs, ms);
  }

  /** At the next pass: a reset; the module comes back from the stored state. */
  reboot(): void {
    this.power = { kind: "reboot" };
  }

  /** At the next pass: nothing runs for `ms`, then the module comes back from the stored state. */
  deepSleep(ms: number): void {
    this.power = { kind: "deep sleep", ms };
  }

  /** Takes one asked reading: false when none is left. */
  takeUpload(): boolean {
    if (this.uploads === 0) return false;
    this.uploads--;
    return true;
  }

  /** The stall asked for (0: none), once. */
  takeStall(): number {
    const ms = this.stallMs;
    this.stallMs = 0;
    return ms;
  }

  /** The reboot or sleep asked for, once. */
  takePower(): PowerRequest | undefined {
    const power = this.power;
    this.power = undefined;
    return power;
  }
}
