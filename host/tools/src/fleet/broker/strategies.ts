// The reconnect behaviours of the broker-restart experiment. Three are modelled from the
// source of real clients (commits in docs/fleet.md, notes in ../../../../../docs/fleet.md):
// - esp-mqtt (espressif/esp-mqtt, mqtt_client.c, esp_mqtt_abort_connection and the
//   MQTT_STATE_WAIT_RECONNECT case of esp_mqtt_task): every disconnect or failed connect
//   waits reconnect_timeout_ms, MQTT_RECON_DEFAULT_MS = 10 s (lib/include/mqtt_config.h),
//   polled every T/2, so the gap is T and a few ms; no growth, no jitter.
// - Tasmota (arendst/Tasmota, tasmota/tasmota_xdrv_driver/xdrv_02_9_mqtt.ino,
//   MqttDisconnected and MqttCheck): retry_counter = mqtt_retry * retry_counter_delay, the
//   delay growing by one per failure while below 120 s (MQTT_RETRY_SECS = 10 in
//   tasmota/include/tasmota.h), counted down once per second from Every250mSeconds: a wait
//   of R * min(n, 12) + 1 s on the device's own one-second phase; no jitter.
// - FreeRTOS backoffAlgorithm (source/backoff_algorithm.c, BackoffAlgorithm_GetNextBackoff):
//   wait = rand % (J + 1) with J = min(B * 2^n, M), B = 500 ms, M = 5000 ms as in the
//   coreMQTT demos; RETRY_FOREVER for a supervised connection.
// Two more are tickretry sessions running the real module: full jitter, and full jitter
// with the recovery spread and the circuit breaker.
import type { PolicySpec } from "../strategies.js";

export interface FormulaStrategy {
  kind: "formula";
  name: string;
  /** The wait before reconnect attempt n (n = 1 after the drop or first failure), ms. */
  wait(n: number, random: () => number, phaseMs: number): number;
}

export interface ModuleStrategy {
  kind: "module";
  name: string;
  policy: PolicySpec;
}

export type BrokerStrategy = FormulaStrategy | ModuleStrategy;

const ESP_MQTT_RECONNECT_MS = 10_000;
const TASMOTA_RETRY_S = 10;
const BACKOFF_BASE_MS = 500;
const BACKOFF_MAX_MS = 5000;

const SESSION: PolicySpec = {
  maxAttempts: 0,
  attemptTimeout: 3000,
  baseDelay: BACKOFF_BASE_MS,
  maxDelay: BACKOFF_MAX_MS,
  throttleBaseDelay: 0,
  deadline: 0,
  jitter: "FULL",
  idempotent: true,
  session: true,
  stableAfter: 10_000,
};

export const BROKER_STRATEGIES: BrokerStrategy[] = [
  { kind: "formula", name: "esp-mqtt fixed 10 s", wait: () => ESP_MQTT_RECONNECT_MS },
  {
    kind: "formula",
    name: "Tasmota linear to 120 s",
    // The countdown starts at the device's next one-second tick and fires one tick late.
    wait: (n, _r, phaseMs) =>
      TASMOTA_RETRY_S * 1000 * Math.min(n, Math.ceil(120 / TASMOTA_RETRY_S)) + 1000 + phaseMs,
  },
  {
    kind: "formula",
    name: "backoffAlgorithm full jitter",
    wait: (n, random) => {
      const ceiling = Math.min(BACKOFF_BASE_MS * 2 ** (n - 1), BACKOFF_MAX_MS);
      return Math.floor(random() * (ceiling + 1));
    },
  },
  { kind: "module", name: "tickretry session, full jitter", policy: SESSION },
  {
    kind: "module",
    name: "tickretry session, full jitter + spread + breaker",
    policy: { ...SESSION, spread: 5000, breakAfter: 3, breakBase: 2000, breakCap: 10_000 },
  },
];
