// --transport and --broker of `tickretry device`, checked together: MQTT options only with
// --transport mqtt, and no HTTP upstream options with it. A broker URL that cannot be
// parsed is refused here, before anything starts.
import type { PolicyFields } from "tickretry";
import { parseBrokerUrl } from "../../mqtt/broker-url.js";
import type { MqttOptions } from "./mqtt-simulation.js";

interface TransportValues {
  transport?: string;
  broker?: string;
  scenario?: string;
  "upstream-url"?: string;
  "upstream-port"?: string;
}

/** The MQTT options the values ask for, or undefined for HTTP; throws a message naming the option. */
export function mqttOptions(values: TransportValues, policy: PolicyFields): MqttOptions | undefined {
  const transport = values.transport ?? "http";
  if (transport !== "http" && transport !== "mqtt") {
    throw new Error(`--transport wants http or mqtt, got "${transport}"`);
  }
  if (transport === "http") {
    if (values.broker !== undefined) throw new Error("--broker needs --transport mqtt");
    return undefined;
  }
  for (const http of ["scenario", "upstream-url", "upstream-port"] as const) {
    if (values[http] !== undefined)
      throw new Error(`--${http} is for the HTTP upstream; not with --transport mqtt`);
  }
  if (values.broker !== undefined) parseBrokerUrl(values.broker);
  return { brokerUrl: values.broker, policy };
}
