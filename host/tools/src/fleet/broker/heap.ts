// A min-heap of wake-ups (time, then insertion order), so a run's order is deterministic.

export class WakeHeap {
  private readonly items: [number, number, number][] = [];
  private seq = 0;

  get size(): number {
    return this.items.length;
  }

  push(atMs: number, device: number): void {
    const a = this.items;
    a.push([atMs, this.seq++, device]);
    for (let i = a.length - 1; i > 0;) {
      const parent = (i - 1) >> 1;
      if (!before(a[i], a[parent])) break;
      [a[i], a[parent]] = [a[parent], a[i]];
      i = parent;
    }
  }

  /** The earliest wake-up: [time, device]. */
  pop(): [number, number] {
    const a = this.items;
    const top = a[0];
    const last = a.pop()!;
    if (a.length > 0) {
      a[0] = last;
      for (let i = 0; ;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && before(a[l], a[m])) m = l;
        if (r < a.length && before(a[r], a[m])) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m], a[i]];
        i = m;
      }
    }
    return [top[0], top[2]];
  }
}

const before = (x: [number, number, number], y: [number, number, number]) =>
  x[0] < y[0] || (x[0] === y[0] && x[1] < y[1]);
