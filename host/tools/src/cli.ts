// The tickretry command line: one subcommand per job, each in the file named for it.
import { runDevice } from "./device/command.js";
import * as contention from "./contention/cli.js";
import * as fleet from "./fleet/cli.js";
import * as upstream from "./upstream/command.js";

const commands: Record<string, { summary: string; run: (args: string[]) => Promise<number> }> = {
  device: {
    summary: "a simulated device with its setup page and a flaky upstream (npm start)",
    run: runDevice,
  },
  fleet,
  contention,
  upstream,
  // Loaded only when asked for: MQTT.js would cost every other command its start-up time.
  consumer: {
    summary: "an MQTT subscriber that stores readings by operation id (the MQTT upstream)",
    run: async (args) => (await import("./mqtt/command.js")).run(args),
  },
};

function usage(): string {
  const lines = Object.entries(commands).map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`);
  return `usage: tickretry <command> [options]\n\ncommands:\n${lines.join("\n")}\n\n'tickretry <command> --help' for a command's options.`;
}

const [name, ...rest] = process.argv.slice(2);
if (name === undefined || name === "--help" || name === "-h") {
  console.log(usage());
} else if (!(name in commands)) {
  console.error(`tickretry: unknown command "${name}"\n\n${usage()}`);
  process.exitCode = 2;
} else {
  process.exitCode = await commands[name].run(rest);
}
