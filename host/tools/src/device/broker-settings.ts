// The setup form's broker settings and their checks, as the firmware has them
// (boards/esp32/src/device_broker.c, run beside these by test/boards/page-native.test.ts):
// the broker an MQTT build connects to and what it publishes under. The password is never
// shown again: the status says only whether one is set.

export interface BrokerSettings {
  brokerUrl: string;
  brokerClientId: string;
  brokerUsername: string;
  brokerPassword: string;
  brokerTopic: string;
}

export type BrokerField = keyof BrokerSettings;

/** The topic a board publishes on until one is saved (the consumer's, mqtt/payload.ts). */
export const DEFAULT_BROKER: BrokerSettings = {
  brokerUrl: "",
  brokerClientId: "",
  brokerUsername: "",
  brokerPassword: "",
  brokerTopic: "tickretry/readings",
};

/** As the firmware says it (device_broker_meaning), word for word. */
export const BROKER_MEANINGS: Record<BrokerField, string> = {
  brokerUrl:
    "Broker URL must be empty or mqtt://host:port (or mqtts://), at most 127 characters, with no " +
    "path and no credentials: the user name and password have their own fields.",
  brokerClientId:
    "Client id must be at most 63 printable ASCII characters without spaces (empty: the device's own).",
  brokerUsername: "Broker user name must be at most 63 printable ASCII characters.",
  brokerPassword: "Broker password must be at most 63 printable ASCII characters.",
  brokerTopic: "Topic must be 1 to 95 printable ASCII characters, without the wildcards + and #.",
};

const URL_FORM = /^mqtts?:\/\/[A-Za-z0-9.-]+(?::(\d{1,5}))?\/?$/;

function urlAcceptable(url: string): boolean {
  if (url === "") return true;
  const m = URL_FORM.exec(url);
  const port = m?.[1] === undefined ? 1 : Number(m[1]);
  return m !== null && url.length <= 127 && port >= 1 && port <= 65535;
}

const asciiWithin = (text: string, low: number, most: number) =>
  text.length <= most && [...text].every((c) => c.charCodeAt(0) >= low && c.charCodeAt(0) <= 0x7e);

const CHECKS: Record<BrokerField, (value: string) => boolean> = {
  brokerUrl: urlAcceptable,
  brokerClientId: (v) => asciiWithin(v, 0x21, 63),
  brokerUsername: (v) => asciiWithin(v, 0x20, 63),
  brokerPassword: (v) => asciiWithin(v, 0x20, 63),
  brokerTopic: (v) => v.length >= 1 && asciiWithin(v, 0x20, 95) && !/[+#]/.test(v),
};

/**
 * The broker fields of a setup form: the settings, and the problem of each bad field. A
 * field the form does not carry keeps its `stored` value (a form of the Wi-Fi fields only
 * changes no broker setting). `notUtf8` names fields whose bytes were not UTF-8 (never
 * printable ASCII).
 */
export function checkBroker(
  form: URLSearchParams,
  stored: BrokerSettings,
  notUtf8 = new Set<string>(),
): { settings: BrokerSettings; errors: Partial<Record<BrokerField, string>> } {
  const settings = { ...stored };
  const errors: Partial<Record<BrokerField, string>> = {};
  for (const field of Object.keys(CHECKS) as BrokerField[]) {
    settings[field] = form.get(field) ?? stored[field];
    if (notUtf8.has(field) || !CHECKS[field](settings[field])) errors[field] = BROKER_MEANINGS[field];
  }
  return { settings, errors };
}

/** The broker settings as the status shows them: the password only as set or not. */
export function brokerStatus(b: BrokerSettings) {
  return {
    brokerUrl: b.brokerUrl,
    brokerClientId: b.brokerClientId,
    brokerUsername: b.brokerUsername,
    brokerPasswordSet: b.brokerPassword !== "",
    brokerTopic: b.brokerTopic,
  };
}
