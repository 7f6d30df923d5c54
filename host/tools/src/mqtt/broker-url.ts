// A broker URL from the command line or the setup page, checked before anything connects:
// mqtt://host:port (or mqtts://), with an optional user and password. Anything else is
// refused with a message that says what is wrong.
import type { BrokerCredentials } from "./broker.js";

export interface BrokerAddress {
  /** The URL without credentials, as MQTT.js takes it and the page shows it. */
  url: string;
  credentials?: BrokerCredentials;
}

/** The broker `text` names; throws an Error whose message names what is wrong. */
export function parseBrokerUrl(text: string): BrokerAddress {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`broker URL "${text}" cannot be parsed; want mqtt://host:port`);
  }
  if (url.protocol !== "mqtt:" && url.protocol !== "mqtts:") {
    throw new Error(`broker URL "${text}" is ${url.protocol.slice(0, -1)}, not mqtt or mqtts`);
  }
  if (url.hostname === "") throw new Error(`broker URL "${text}" names no host`);
  if ((url.pathname !== "" && url.pathname !== "/") || url.search !== "" || url.hash !== "") {
    throw new Error(`broker URL "${text}" has a path or query; want mqtt://host:port`);
  }
  const port = url.port === "" ? (url.protocol === "mqtt:" ? 1883 : 8883) : Number(url.port);
  const username = decodeURIComponent(url.username);
  const credentials = username === "" ? undefined : { username, password: decodeURIComponent(url.password) };
  return { url: `${url.protocol}//${url.hostname}:${port}`, credentials };
}
