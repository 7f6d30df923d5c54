// A fresh module instance for every device, as a real fleet has: what the fleet's and the
// broker restart's pools are compared against.
import { instantiate } from "../../host/library/src/tickretry.js";
import type { Instances } from "../../host/tools/src/fleet/instances.js";

export function perDevice(devices: number): Instances {
  const apis = Array.from({ length: devices }, () => instantiate());
  return { api: (i) => apis[i], enter: () => {}, restored: () => {} };
}
