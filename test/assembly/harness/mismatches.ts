// The values that differ, for one expect() at the end: an expect() per value (135,000 in
// one property test) cost more than the runs it checked.
export class Mismatches {
  readonly list: string[] = [];

  /** Notes `what` when `got` is not `want` (Object.is, as toBe compares). */
  compare(what: string, got: number, want: number): void {
    if (!Object.is(got, want)) this.list.push(`${what}: ${got}, not ${want}`);
  }
}
