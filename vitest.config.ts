import { defineConfig } from "vitest/config";

// "tickretry-source": the library package's own TypeScript, so the tests of the tools run
// against the library's sources rather than its last build (host/library/package.json).
const conditions = ["tickretry-source", "module", "node", "development|production"];

export default defineConfig({
  ssr: { resolve: { conditions } },
  test: {
    include: ["test/**/*.test.ts"],
    reporters: ["default", "json"],
    outputFile: { json: "out/vitest.json" },
    // Generous: the CPU-bound properties must not fail for a loaded machine; a hang still fails.
    testTimeout: 120_000,
    // Most files wait on child processes, Chromium, a broker or QEMU rather than compute, so
    // three workers keep two cores busy (vitest's default is one fewer than the cores): the
    // whole run took 191 s instead of 351 s on this 2-core machine, every test passing.
    maxWorkers: 3,
  },
});
