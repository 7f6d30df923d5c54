// Broker URLs as the command line and the page take them: mqtt(s)://[user:password@]host:port.
import { expect, it } from "vitest";
import { parseBrokerUrl } from "../../../../host/tools/src/mqtt/broker-url.js";

it("takes host and port, the protocol's default port, and credentials apart from the URL", () => {
  expect(parseBrokerUrl("mqtt://127.0.0.1:1884")).toEqual({ url: "mqtt://127.0.0.1:1884" });
  expect(parseBrokerUrl("mqtts://broker.local")).toEqual({ url: "mqtts://broker.local:8883" });
  expect(parseBrokerUrl("mqtt://dev%40ice:p%3Ass@10.0.0.2")).toEqual({
    url: "mqtt://10.0.0.2:1883",
    credentials: { username: "dev@ice", password: "p:ss" },
  });
});

it.each([
  ["broker:1883", /is broker, not mqtt or mqtts/],
  ["not a url", /"not a url" cannot be parsed; want mqtt:\/\/host:port/],
  ["http://127.0.0.1:1883", /is http, not mqtt or mqtts/],
  ["mqtt://127.0.0.1:99999", /cannot be parsed/],
  ["mqtt://127.0.0.1:1883/readings", /has a path or query/],
  ["mqtt://", /cannot be parsed|names no host/],
])("refuses %s, saying why", (text, why) => {
  expect(() => parseBrokerUrl(text)).toThrow(why);
});
