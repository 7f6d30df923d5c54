// POST controls take a url-encoded form or no body at all (POST /power/reboot has nothing
// to say); a body of another type is refused with 415 and a message naming the type wanted.
import { afterEach, expect, it } from "vitest";
import { startSimulation, type Simulation } from "../../../../host/tools/src/device/simulation.js";
import { QUICK } from "../../../helpers/device.js";
import { DEVICE_PASSWORD, setUp } from "../../../helpers/page.js";

let sim: Simulation;
afterEach(() => sim?.close());

async function control(path: string, init: { body?: string; type?: string } = {}) {
  const headers: Record<string, string> = {
    origin: new URL(sim.url).origin,
    "x-device-password": DEVICE_PASSWORD,
    ...(init.type && { "content-type": init.type }),
  };
  const res = await fetch(new URL(path, sim.url), { method: "POST", headers, body: init.body });
  return { status: res.status, body: (await res.json()) as { error?: string } };
}

it("a control with no body is taken; one of another type is refused, naming the type wanted", async () => {
  sim = await startSimulation({ port: 0, scenario: "healthy", policy: QUICK, uploadEveryMs: 0 });
  await setUp(sim);
  const reboot = await control("/power/reboot");
  expect(reboot.status).toBe(200);
  expect(reboot.body.error).toBeUndefined();
  const typed = await control("/loop/reset", { body: "x", type: "text/plain" });
  expect(typed.status).toBe(415);
  expect(typed.body.error).toBe(
    'Send the form as application/x-www-form-urlencoded (this was "text/plain"), or send no body; nothing was stored.',
  );
  const sleep = await control("/power/sleep", { body: "s=0", type: "application/x-www-form-urlencoded" });
  expect(sleep.status).toBe(400); // a form still reaches the control's own checks
});
