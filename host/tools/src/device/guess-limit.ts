// The device password's brute-force limit: a wrong guess is remembered for a minute, and
// after MAX_WRONG_GUESSES of them every check is refused without hashing anything until
// the oldest ages out; one check runs at a time, and one that arrives meanwhile is
// refused too. Both refusals cost no PBKDF2, so a flood of guesses neither finds the
// password quickly nor takes the loop's time (on a board the hash runs on the loop task).
// The limit is the device's, not a client's: an attacker changes address at will. The
// price is that a flood also keeps the owner out while it lasts; the page says so.

/** Wrong guesses within GUESS_WINDOW_MS before checks are refused. */
export const MAX_WRONG_GUESSES = 5;
export const GUESS_WINDOW_MS = 60_000;

export class GuessLimit {
  private wrong: number[] = [];
  private checking = false;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** ms until a check may run again (0: now). */
  waitMs(): number {
    const since = this.now() - GUESS_WINDOW_MS;
    this.wrong = this.wrong.filter((t) => t > since);
    if (this.wrong.length < MAX_WRONG_GUESSES) return this.checking ? 1000 : 0;
    return Math.ceil(this.wrong[0] - since);
  }

  /** Runs `check` when the limit allows it: true or false as it says, undefined when refused unrun. */
  async run(check: () => Promise<boolean>): Promise<boolean | undefined> {
    if (this.waitMs() > 0) return undefined;
    this.checking = true;
    try {
      const right = await check();
      if (!right) this.wrong.push(this.now());
      return right;
    } finally {
      this.checking = false;
    }
  }
}
