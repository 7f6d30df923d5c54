// The simulated device's options: what the command line, the tests and the chaos run set.
import type { LoopEvent, PolicyFields } from "tickretry";
import type { CrashAt, CrashPoint, StateStore } from "./app/kept.js";
import type { EndedOperation, ReadingsLog, UploadLink } from "./app/readings.js";
import type { World } from "./app/status.js";
import type { DeviceClock } from "./clock.js";
import type { MqttTransport } from "./link/mqtt-transport.js";
import type { BudgetName } from "./policies.js";
import type { BootInfo } from "./boot.js";
import type { Readings } from "./app/readings.js";
import type { Running } from "./running.js";
import type { RunningModule } from "./module.js";

export interface DeviceOptions {
  upstreamUrl: string;
  /** Seeds a new module (a board uses its hardware RNG and MAC); random by default. */
  seed?: bigint;
  /** First tick of every boot (default DEFAULT_TICK_START, 20 s before the wrap). */
  tickStart?: number;
  /** The upload policy and budget of a new scheduler (default the firmware's); a restored one keeps its own. */
  policy?: PolicyFields;
  budget?: BudgetName;
  /** Take a sensor reading this often, ms; 0: only when asked (default the firmware's, boards/app/config.json). */
  uploadEveryMs?: number;
  /** Longest nap between passes, ms (default the firmware's, boards/app/config.json's loop.passMaxWaitMs). */
  idleSleepMs?: number;
  /** Called when an operation ends, before its slot is released. */
  onEnd?: (op: EndedOperation) => void;
  /** Where the state lives across reboots (default: memory, which a process restart loses). */
  store?: StateStore;
  /** Where each reading's fate is recorded (default: nowhere). */
  log?: ReadingsLog;
  /** Readings that may wait for a slot (default QUEUE_LIMIT). */
  queueLimit?: number;
  /** Fault injection: SIGKILL this process at a point of the pass (the chaos run's). */
  crashAt?: CrashAt;
  /** Called at each crash point instead (the application differential's, which ends the pass there). */
  crash?: (point: CrashPoint) => void;
  /** Where time comes from (default: the wall clock). */
  clock?: DeviceClock;
  /** Upload attempts go to this instead of HTTP (the application differential's scripted upstream). */
  link?: UploadLink;
  /** Sees every event of the loop, each boot and each deep sleep (the application differential's trace). */
  onLoopEvent?: (e: LoopEvent) => void;
  /** resumed: the boot (device.boot) took up a stored state, else it began a new scheduler. */
  onBoot?: (device: BootedDevice, resumed: boolean) => void;
  onSleep?: (ms: number) => void;
  /** Upload over MQTT through this broker connection instead of HTTP (link/mqtt-transport.ts). */
  mqtt?: MqttTransport;
  /** How long a broker session the broker refused stays ended (default BROKER_REFUSED_HOLD_MS, 1 h). */
  brokerRefusedHoldMs?: number;
  /** The simulated world around it, whose faults the page may switch and whose figures the status shows. */
  world?: World;
}

/** What onBoot sees of the device that booted (a device's first boot is in its constructor). */
export interface BootedDevice {
  readonly boot: BootInfo;
  readonly module: RunningModule;
  readonly readings: Readings;
  readonly running: Running;
}
