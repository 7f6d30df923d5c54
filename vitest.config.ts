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
  },
});
