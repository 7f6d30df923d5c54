// `tickretry device --transport mqtt`: serves with the embedded broker and nothing else
// installed, and refuses a broker URL it cannot parse, or MQTT and HTTP options mixed,
// with exit code 2 and a message that names the option.
import { expect, it } from "vitest";
import { spawnDevice, waitFor } from "../../../helpers/device.js";

it("serves the page with the embedded broker and its session up", async () => {
  const d = spawnDevice(["--transport", "mqtt", "--state", "none", "--quiet"]);
  try {
    const url = await waitFor("the page's URL", () => /setup page (http:\S+)/.exec(d.out())?.[1], 20_000);
    // Each line may arrive in its own chunk: wait for it rather than expect it with the URL.
    const broker = /broker mqtt:\/\/127\.0\.0\.1:\d+ \(embedded aedes, with a consumer\)/;
    await waitFor("the broker's line", () => broker.test(d.out()));
    const session = await waitFor("the session up", async () => {
      const s = await (await fetch(new URL("/status.json", url))).json();
      return s.sessions[0]?.state === "up" && s.sessions[0];
    });
    expect(session.name).toBe("broker");
  } finally {
    d.child.kill("SIGTERM");
    expect(await d.exited).toBe(0);
  }
}, 30_000);

it.each([
  [
    ["--transport", "mqtt", "--broker", "localhost:1883"],
    'broker URL "localhost:1883" is localhost, not mqtt or mqtts',
  ],
  [["--transport", "mqtt", "--broker", "mqtt://"], 'broker URL "mqtt://" '],
  [["--broker", "mqtt://127.0.0.1:1883"], "--broker needs --transport mqtt"],
  [
    ["--transport", "mqtt", "--scenario", "outage"],
    "--scenario is for the HTTP upstream; not with --transport mqtt",
  ],
  [["--transport", "carrier-pigeon"], '--transport wants http or mqtt, got "carrier-pigeon"'],
])(
  "refuses %j with exit code 2",
  async (args, message) => {
    const d = spawnDevice([...args, "--state", "none"]);
    expect(await d.exited).toBe(2);
    expect(d.out()).toContain(message);
  },
  30_000,
);
