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

// The device password's brute-force limit: a wrong guess is remembered for a minute, and
// after MAX_WRONG_GUESSES of them every check is refused without hashing anything until
// the oldest ages out; one check runs at a time, and one that arrives meanwhile is
// refused too. Both refusals cost no PBKDF2, so a flood of guesses neither finds the
// password quickly nor takes the loop's time (on a board the hash runs on the loop task).
// The limit is the device's, not a client's: an attacker changes address at will. The
// price is that a flood also keeps the owner out while it lasts; the page says so.
/** Wrong guesses within GUESS_WINDOW_MS before checks are refused. */
export const MAX_WRONG_GUESSES = PAGE.wrongGuesses;
export const GUESS_WINDOW_MS = PAGE.guessWindowMs;

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
