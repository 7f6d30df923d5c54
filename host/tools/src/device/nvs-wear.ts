// Flash wear of the sketch's NVS partition, from a model of ESP-IDF's NVS: the partition
// is 4 KiB pages of 126 entries of 32 bytes; a blob of n bytes takes a chunk header, a
// blob index and ceil(n / 32) data entries, written at the end of the active page (and
// on into fresh pages when it does not fit); the version it replaces is marked erased.
// When only the spare page is left, the full page with the most erased entries gives up
// its live entries to the spare and is erased: one erase cycle of that page. A page lasts
// ERASE_CYCLES cycles. The firmware's kept state (boards/app/kept.h, struct app_kept) is
// the blob; its small keys (the boot epoch, the Wi-Fi fail count) take one entry each.
import { Image, Limit } from "tickretry";
import { KEPT, READINGS } from "./generated/app-config.js";

export const PAGE_ENTRIES = 126;
export const ENTRY_BYTES = 32;
/** The sketch's NVS partition (the Arduino default partition table's 20 KiB). */
export const PARTITION_PAGES = 5;
/** Erase cycles a page of the ESP32's SPI flash is rated for. */
export const ERASE_CYCLES = 100_000;

/**
 * sizeof(app_kept) in boards/app/kept.h: crc, magic, length, the image area, the loop's
 * slots (a handle and an attempt count per slot, and a count), a 128-byte body and an
 * epoch per slot, the reading count, the readings queue (a u32 seq per place of
 * readings.queueLimit, its head, count and drops), five u32s (the sleep's notes, the boot
 * epoch), the RTC's reading at the save (a u64 as two u32s) and the two sessions' handles
 * (test/boards/sketch.test.ts holds the firmware to it).
 */
export const KEPT_BYTES =
  12 +
  Image.AREA_BYTES +
  (4 * Limit.OPERATIONS + 2 * Limit.OPERATIONS + 4) +
  (128 + 4) * Limit.OPERATIONS +
  4 +
  (4 * READINGS.queueLimit + 12) +
  20 +
  8 +
  8;

interface Page {
  used: number;
  erased: number;
  erases: number;
}

/** Entries a blob of `bytes` takes: chunk header, blob index and its data. */
export const blobEntries = (bytes: number): number => 2 + Math.ceil(bytes / ENTRY_BYTES);

export class NvsModel {
  readonly pages: Page[];
  private active = 0;
  /** Empty pages, in the order they are taken: an erased page joins at the back (wear levelling). */
  private readonly free: number[];
  /** Where the last version of every key lies, by key. */
  private readonly live = new Map<string, { page: number; entries: number }[]>();

  constructor(pages = PARTITION_PAGES) {
    this.pages = Array.from({ length: pages }, () => ({ used: 0, erased: 0, erases: 0 }));
    this.free = Array.from({ length: pages - 1 }, (_, i) => i + 1);
  }

  /** Writes `entries` entries under `key`, replacing its last version. */
  write(key: string, entries: number): void {
    for (const old of this.live.get(key) ?? []) this.pages[old.page].erased += old.entries;
    const placed: { page: number; entries: number }[] = [];
    for (let left = entries; left > 0;) {
      if (this.pages[this.active].used === PAGE_ENTRIES) this.nextPage();
      const page = this.pages[this.active];
      const n = Math.min(left, PAGE_ENTRIES - page.used);
      page.used += n;
      placed.push({ page: this.active, entries: n });
      left -= n;
    }
    this.live.set(key, placed);
  }

  /** The most erase cycles any page has had. */
  maxErases(): number {
    return Math.max(...this.pages.map((p) => p.erases));
  }

  /** Moves on to the next empty page; when only the spare is left, a full page is collected first. */
  private nextPage(): void {
    if (this.free.length <= 1) this.collect();
    else this.active = this.free.shift()!;
  }

  /** The full page with the most erased entries gives its live ones to the spare and is erased. */
  private collect(): void {
    let victim = -1;
    this.pages.forEach((p, i) => {
      if (i !== this.active && p.used > 0 && (victim < 0 || p.erased > this.pages[victim].erased)) victim = i;
    });
    const spare = this.free.shift()!;
    for (const placements of this.live.values())
      for (const p of placements) if (p.page === victim) p.page = spare;
    this.pages[spare].used = this.pages[victim].used - this.pages[victim].erased;
    this.pages[victim] = { used: 0, erased: 0, erases: this.pages[victim].erases + 1 };
    this.free.push(victim);
    this.active = spare;
    // The spare may have filled with what it took in: then on to the next.
    if (this.pages[spare].used === PAGE_ENTRIES) this.nextPage();
  }
}

/** flashLifeYears's answers, by "blobBytes:writesPerDay". */
const yearsByRate = new Map<string, number>();

/**
 * Years until the most-erased page of the partition reaches ERASE_CYCLES, when the kept
 * state (KEPT_BYTES) is written `writesPerDay` times a day, the boot epoch beside it once
 * a day: flashLifeYearsOfDay over that day, for some 30,000 writes (rounded to whole
 * writes a day, then scaled). Computed once per rate: the status the page polls asks for
 * it every time.
 */
export function flashLifeYears(writesPerDay: number, blobBytes = KEPT_BYTES): number {
  if (writesPerDay <= 0) return Infinity;
  const n = Math.max(1, Math.round(writesPerDay));
  const key = `${blobBytes}:${n}`;
  let years = yearsByRate.get(key);
  if (years === undefined) {
    const day = [
      { key: "epoch", entries: 1 },
      ...Array(n).fill({ key: "kept", entries: blobEntries(blobBytes) }),
    ];
    const days = Math.max(10, Math.ceil(30_000 / n));
    years = flashLifeYearsOfDay(day, days, Math.ceil(days / 10));
    yearsByRate.set(key, years);
  }
  return (years * n) / writesPerDay;
}

/** The kept state's NVS writes a day under the sketch's rule, for `changesPerDay` changes of it. */
export const sketchNvsWritesPerDay = (changesPerDay: number): number =>
  Math.min(changesPerDay, 86_400_000 / KEPT.nvsEveryMs);

/** One NVS write of a day's pattern: the key and the entries it takes. */
export interface NvsWrite {
  key: string;
  entries: number;
}

/**
 * Years until the most-erased page reaches ERASE_CYCLES when `day` (one day's NVS writes,
 * in order, as a build really makes them) repeats day after day: replayed through the
 * model for `warmUpDays` (the pages fill from empty first, erasing nothing) and then for
 * `days`, whose erases the figure extrapolates.
 */
export function flashLifeYearsOfDay(day: readonly NvsWrite[], days = 365, warmUpDays = 30): number {
  const nvs = new NvsModel();
  const replay = (n: number) => {
    for (let d = 0; d < n; d++) for (const w of day) nvs.write(w.key, w.entries);
  };
  replay(warmUpDays);
  const before = nvs.pages.map((p) => p.erases);
  replay(days);
  const erasesPerDay = Math.max(...nvs.pages.map((p, i) => p.erases - before[i])) / days;
  return erasesPerDay === 0 ? Infinity : ERASE_CYCLES / erasesPerDay / 365.25;
}
