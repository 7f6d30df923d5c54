// The tickretry command line: one subcommand per job, each in the file named for it, loaded
// only when asked for: loading all of them took some 170 ms of every command's start, where
// the fleet's own takes 110 and the upstream's 18.

const commands: Record<string, { summary: string; run: (args: string[]) => Promise<number> }> = {
  device: {
    summary: "a simulated device with its setup page and a flaky upstream (npm start)",
    run: async (args) => (await import("./device/command.js")).runDevice(args),
  },
  fleet: {
    summary: "simulate a fleet of devices through an outage and its recovery",
    run: async (args) => (await import("./fleet/cli.js")).run(args),
  },
  contention: {
    summary: "N clients update one row by optimistic concurrency, retried by each strategy",
    run: async (args) => (await import("./contention/cli.js")).run(args),
  },
  upstream: {
    summary: "the flaky upstream alone, with its dedup store and control routes",
    run: async (args) => (await import("./upstream/command.js")).run(args),
  },
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
