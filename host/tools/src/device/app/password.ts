// The device password, as the firmware has it (device_password.c): set on first setup and
// stored only as a salted PBKDF2-HMAC-SHA256 hash (the sketch stores the same format in
// NVS, computed by mbedTLS; node:crypto computes it here), and the limit on guessing it.
import { pbkdf2, randomBytes, timingSafeEqual } from "node:crypto";
import { promisify } from "node:util";
import { PAGE } from "../generated/app-config.js";

const pbkdf2Async = promisify(pbkdf2);

/** PBKDF2 rounds: what an ESP32 computes in well under a second; the simulator uses the same. */
export const PBKDF2_ITERATIONS = 10_000;
const SALT_BYTES = 16;
const HASH_BYTES = 32;

/** The device password's rule: 8 to 64 printable ASCII characters. */
export function passwordProblem(password: string): string | undefined {
  return /^[\x20-\x7e]{8,64}$/.test(password)
    ? undefined
    : "The device password must be 8 to 64 printable ASCII characters.";
}

/** "pbkdf2-sha256$<iterations>$<salt hex>$<hash hex>": the stored form, in NVS as here. */
export async function hashPassword(password: string, salt = randomBytes(SALT_BYTES)): Promise<string> {
  const hash = await pbkdf2Async(password, salt, PBKDF2_ITERATIONS, HASH_BYTES, "sha256");
  return `pbkdf2-sha256$${PBKDF2_ITERATIONS}$${salt.toString("hex")}$${hash.toString("hex")}`;
}

/** True when `password` matches a stored hash (compared in constant time). */
export async function checkPassword(stored: string, password: string): Promise<boolean> {
  const [scheme, iterations, salt, hash] = stored.split("$");
  if (scheme !== "pbkdf2-sha256") return false;
  const expected = Buffer.from(hash, "hex");
  const got = await pbkdf2Async(
    password,
    Buffer.from(salt, "hex"),
    Number(iterations),
    expected.length,
    "sha256",
  );
  return timingSafeEqual(got, expected);
}

/** True for the form hashPassword writes (the state file's password file is checked with it). */
export function isPasswordHash(text: string): boolean {
  return /^pbkdf2-sha256\$\d+\$[0-9a-f]+\$[0-9a-f]+$/.test(text);
}

/** Where the hash lives across restarts: NVS on a board, a file beside the state file here. */
export interface PasswordKeeper {
  load(): string | undefined;
  save(hash: string): void;
}

/**
 * The device password as the device keeps it: only its hash, kept across restarts. The page
 * computes a new hash and asks; the pass keeps it (device/asks.ts), so two first setups at
 * once are one after the other there, and the second finds a password set.
 */
export class DevicePassword {
  private stored: string | undefined;

  constructor(private readonly keeper?: PasswordKeeper) {
    this.stored = keeper?.load();
  }

  get isSet(): boolean {
    return this.stored !== undefined;
  }

  /** Stores `hash` (hashPassword's), then puts it in force; throws when it could not be stored. */
  keep(hash: string): void {
    this.keeper?.save(hash);
    this.stored = hash;
  }

  async check(password: string): Promise<boolean> {
    return this.stored !== undefined && (await checkPassword(this.stored, password));
  }

  /** The stored form (what NVS would hold), for tests and the state file. */
  get hash(): string | undefined {
    return this.stored;
  }
}

// The device password's brute-force limit, per client address (the board's is the same
// rule: boards/app/password.c). An address has FREE_WRONG_GUESSES wrong guesses; after each
// further one it waits GUESS_DELAY_MS, doubling, up to GUESS_WINDOW_MS, counted from its
// last wrong guess; its record is forgotten two windows after that guess (when any wait of
// it has passed by a window), and a right guess clears it. The table holds GUESS_ADDRESSES records: a new address takes the
// one whose last wrong guess is oldest. Device-wide, past DEVICE_WRONG_GUESSES wrong guesses
// in a window (an attacker changing address), each address has one free guess, not five.
// A refused check costs no PBKDF2, so a flood neither finds the password quickly nor takes
// the loop's time (on a board the hash runs on the loop task).
//
// The owner's bound: no rule holds an address that guessed nothing wrong itself, so a right
// password from another address than the guesser's is refused only while a check is
// running (one runs at a time here), with Retry-After 1 s; an address past its free
// guesses runs at most one check a second, so the owner's next try gets in: within
// OWNER_BOUND_MS, however fast the other client trickles. Behind one address (NAT) the
// owner shares the guesser's delays: the bound does not hold there.
/** Wrong guesses an address has before its delays begin. */
export const FREE_WRONG_GUESSES = PAGE.wrongGuesses;
/** The longest delay, and the window of the device-wide count. */
export const GUESS_WINDOW_MS = PAGE.guessWindowMs;
export const GUESS_DELAY_MS = PAGE.guessDelayMs;
export const GUESS_ADDRESSES = PAGE.guessAddresses;
export const DEVICE_WRONG_GUESSES = PAGE.deviceWrongGuesses;
/** What a request that finds a check running is told to wait, ms. */
export const BUSY_RETRY_MS = 1000;
/** How long a right password from a clean address can be refused (see above), ms. */
export const OWNER_BOUND_MS = 2 * BUSY_RETRY_MS;

interface Guesser {
  wrong: number;
  lastWrongAt: number;
}

/** The wait after `wrong` wrong guesses of one address with `free` of them free, ms. */
function delayAfter(wrong: number, free: number): number {
  if (wrong < free) return 0;
  return Math.min(GUESS_WINDOW_MS, GUESS_DELAY_MS * 2 ** (wrong - free));
}

export class GuessLimit {
  private guessers = new Map<string, Guesser>();
  /** Device-wide: the times of the last DEVICE_WRONG_GUESSES wrong guesses. */
  private recent: number[] = [];
  private checking = false;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** The record of `address` still in force, or undefined. */
  private guesser(address: string, now: number): Guesser | undefined {
    const g = this.guessers.get(address);
    if (g === undefined) return undefined;
    if (now - g.lastWrongAt < 2 * GUESS_WINDOW_MS) return g;
    this.guessers.delete(address);
    return undefined;
  }

  /** Wrong guesses each address has free now: fewer while the device is flooded. */
  private free(now: number): number {
    this.recent = this.recent.filter((t) => t > now - GUESS_WINDOW_MS);
    return this.recent.length >= DEVICE_WRONG_GUESSES ? 1 : FREE_WRONG_GUESSES;
  }

  /** ms until a check from `address` may run (0: now). */
  waitMs(address: string): number {
    const now = this.now();
    const g = this.guesser(address, now);
    const wait = g === undefined ? 0 : Math.ceil(g.lastWrongAt + delayAfter(g.wrong, this.free(now)) - now);
    if (wait > 0) return wait;
    return this.checking ? BUSY_RETRY_MS : 0;
  }

  /** A wrong guess from `address`, now (run calls it; app_password_guess_wrong on the board). */
  wrong(address: string, now = this.now()): void {
    this.recent.push(now);
    if (this.recent.length > DEVICE_WRONG_GUESSES) this.recent.shift();
    const g = this.guesser(address, now) ?? { wrong: 0, lastWrongAt: now };
    g.wrong++;
    g.lastWrongAt = now;
    this.guessers.delete(address); // re-inserted last: the map's order is by last wrong guess
    this.guessers.set(address, g);
    if (this.guessers.size > GUESS_ADDRESSES) this.guessers.delete(this.guessers.keys().next().value!);
  }

  /** A right guess from `address`: its record goes. */
  right(address: string): void {
    this.guessers.delete(address);
  }

  /** Runs `check` for `address` when the limit allows it: true or false as it says, undefined when refused unrun. */
  async run(address: string, check: () => Promise<boolean>): Promise<boolean | undefined> {
    if (this.waitMs(address) > 0) return undefined;
    this.checking = true;
    try {
      const right = await check();
      if (right) this.right(address);
      else this.wrong(address);
      return right;
    } finally {
      this.checking = false;
    }
  }
}
