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
    // A worker keeps the modules it imported for its next test files: importing them again
    // per file cost about a third of the CPU of the device, upstream and MQTT tests (61 s ->
    // 43 s). So a test file must not rely on module state that another file may have moved:
    // each makes its own instances, servers and spies and ends them.
    isolate: false,
  },
});
