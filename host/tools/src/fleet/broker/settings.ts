// The broker-restart experiment's settings, and how its broker scales with the fleet: like
// the outage's dependency (../settings.ts), a larger fleet meets a larger broker, so that
// every fleet size meets the same broker per device.
import { DEFAULT_BROKER, type BrokerParams } from "./model.js";

export interface BrokerSettings {
  devices: number;
  restartAtMs: number;
  downMs: number;
  durationMs: number;
  broker: BrokerParams;
}

/** The scenario's fleet, for which DEFAULT_BROKER is sized. */
export const BROKER_DEVICES = 1000;

/** The settings for `devices` devices. The broker's CPU per 100 ms bucket is given
 * (--broker-cpu), or by default DEFAULT_BROKER's (one core for BROKER_DEVICES devices)
 * scaled with devices / BROKER_DEVICES, and never less than that one core: a smaller fleet
 * still has a whole broker. Its accept queue grows with its cores (as many listeners, or
 * nodes behind a balancer), so that a full queue is as many ms of work at every size. */
export function brokerSettings(devices = BROKER_DEVICES, cpuPerBucketMs?: number): BrokerSettings {
  const core = DEFAULT_BROKER.cpuPerBucketMs;
  const cpu = cpuPerBucketMs ?? Math.max(core, (core * devices) / BROKER_DEVICES);
  return {
    devices,
    restartAtMs: 30_000,
    downMs: 10_000,
    durationMs: 300_000,
    broker: {
      ...DEFAULT_BROKER,
      cpuPerBucketMs: cpu,
      backlog: Math.max(1, Math.round((DEFAULT_BROKER.backlog * cpu) / core)),
    },
  };
}

export const DEFAULT_BROKER_SETTINGS: BrokerSettings = brokerSettings();
