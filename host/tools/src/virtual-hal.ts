// What the simulated hosts (a fleet device, a contention client) share as LoopHals over
// virtual time: the pass's ticks count from the host's own offset at time 0, and the pass
// brings at most one answer, collected once.
import { tickAfter, type AttemptAnswer, type LoopHal } from "tickretry";

export abstract class VirtualTimeHal implements LoopHal {
  /** The virtual time of the pass running, and the answer it brings. */
  protected time = 0;
  protected answer: AttemptAnswer | undefined;

  constructor(
    /** The host's tick at virtual time 0 (a host serving many devices sets each one's). */
    protected offset: number,
  ) {}

  ticks(): number {
    return tickAfter(this.offset, this.time);
  }

  collect(): AttemptAnswer | undefined {
    const answer = this.answer;
    this.answer = undefined;
    return answer;
  }

  abstract startAttempt(handle: number, attempt: number, operationId: number, now: number): void;
}
