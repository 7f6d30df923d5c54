// A real mosquitto for the tests and the chaos run: a config generated into a directory of
// its own, a free loopback port, the broker in the foreground as a child process, started,
// restarted (SIGTERM, which writes its persistence file, then the same config again) and
// stopped by whoever started it. Persistence is on, so a consumer's session and the
// messages queued for it outlive a restart, as they would on a production broker.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { restartable, waitForPort, type Broker, type BrokerCredentials } from "./broker.js";

export const MOSQUITTO = process.env.MOSQUITTO ?? "mosquitto";
const READY_MS = 15_000;
const STOP_MS = 10_000;
const TAIL = 4000;

export interface MosquittoOptions {
  /** Loopback port (default: a free one, found once and kept across restarts). */
  port?: number;
  credentials?: BrokerCredentials;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The generated config. `user root` because mosquitto started as root drops to user
 * mosquitto before it opens the password file and persistence directory in a 0700
 * temporary directory, and fails; it has no effect for any other user. */
function config(dir: string, port: number, passwordFile: string | undefined): string {
  return [
    "user root",
    `listener ${port} 127.0.0.1`,
    passwordFile === undefined
      ? "allow_anonymous true"
      : `allow_anonymous false\npassword_file ${passwordFile}`,
    "persistence true",
    `persistence_location ${dir}/`,
    "max_queued_messages 100000",
    "log_dest stderr",
    "",
  ].join("\n");
}

/** A new directory with the broker's config (and its password file, with credentials),
 * and the port the config listens on. */
async function prepare(options: MosquittoOptions): Promise<{ dir: string; conf: string; port: number }> {
  const dir = mkdtempSync(join(tmpdir(), "tickretry-mosquitto-"));
  let passwordFile: string | undefined;
  if (options.credentials !== undefined) {
    passwordFile = join(dir, "passwd");
    const { username, password } = options.credentials;
    execFileSync("mosquitto_passwd", ["-b", "-c", passwordFile, username, password], { stdio: "ignore" });
  }
  const port = options.port ?? (await freePort());
  const conf = join(dir, "mosquitto.conf");
  writeFileSync(conf, config(dir, port, passwordFile));
  return { dir, conf, port };
}

/** Stops `p` (SIGTERM, SIGKILL after STOP_MS) and waits for it; nothing if it has exited. */
async function halt(p: ChildProcess | undefined): Promise<void> {
  if (p === undefined || p.exitCode !== null || p.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => p.once("exit", () => resolve()));
  p.kill("SIGTERM");
  const late = setTimeout(() => p.kill("SIGKILL"), STOP_MS);
  await exited;
  clearTimeout(late);
}

export async function startMosquitto(options: MosquittoOptions = {}): Promise<Broker> {
  const { dir, conf, port } = await prepare(options);
  let child: ChildProcess | undefined;
  let output = "";
  const launch = async () => {
    const p = spawn(MOSQUITTO, ["-c", conf], { stdio: ["ignore", "pipe", "pipe"] });
    child = p;
    const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-TAIL));
    p.stdout!.on("data", keep);
    p.stderr!.on("data", keep);
    let exit: string | undefined;
    p.once("error", (err) => (exit = err.message));
    p.once("exit", (code, signal) => (exit ??= `exited (${code ?? signal})`));
    await waitForPort(port, READY_MS, () =>
      exit === undefined ? undefined : `mosquitto on port ${port} ${exit}:\n${output}`,
    );
  };
  const stop = async () => {
    const p = child;
    child = undefined;
    await halt(p);
  };
  try {
    await launch();
  } catch (err) {
    await stop();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return restartable("mosquitto", port, stop, launch, () => rmSync(dir, { recursive: true, force: true }));
}
