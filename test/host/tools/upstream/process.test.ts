// `tickretry upstream`: the upstream alone in a process of its own (as the chaos run starts
// it), with its dedup store behind the control routes; SIGTERM stops it cleanly.
import { expect, it } from "vitest";
import { startTickretry, stop } from "../../../../host/tools/src/chaos/processes.js";

it("serves uploads and its store from a process of its own, and stops on SIGTERM", async () => {
  const child = await startTickretry(
    ["upstream", "--port", "0", "--scenario", "healthy"],
    /upstream (http:\S+) /,
  );
  try {
    const url = child.ready[1];
    const upload = () =>
      fetch(url, { method: "POST", headers: { "idempotency-key": "k" }, body: '{"reading":7}' });
    expect((await upload()).status).toBe(200);
    expect((await upload()).headers.get("idempotent-replayed")).toBe("true");
    expect(await (await fetch(new URL("/control/stored", url))).json()).toEqual([
      { key: "k", body: '{"reading":7}' },
    ]);
  } finally {
    expect(await stop(child, "SIGTERM")).toBe(0);
  }
}, 30_000);

it("refuses a bad option with exit code 2 and says which", async () => {
  await expect(startTickretry(["upstream", "--scenario", "calm"], /upstream/)).rejects.toThrow(
    /exited \(2\)[\s\S]*--scenario: no scenario "calm"/,
  );
}, 30_000);
