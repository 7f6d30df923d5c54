// The setup form's settings and their checks: what a device would accept before it writes
// them to flash. A form with any bad field stores nothing.
import { useBrokerSettings, type MqttTransport } from "../link/mqtt-transport.js";
import {
  brokerStatus,
  checkBroker,
  DEFAULT_BROKER,
  type BrokerField,
  type BrokerSettings,
} from "./broker.js";

const BROKER_FIELDS = Object.keys(DEFAULT_BROKER) as BrokerField[];

export interface Settings extends BrokerSettings {
  ssid: string;
  password: string;
  upstreamUrl: string;
}

/** Settings before the form saved any: no network, and the broker fields' defaults. */
export function defaultSettings(upstreamUrl: string): Settings {
  return { ssid: "", password: "", upstreamUrl, ...DEFAULT_BROKER };
}

/** Where the settings live across restarts: their own NVS keys on a board, a file beside the state file here. */
export interface SettingsKeeper {
  load(): Settings | undefined;
  /** Throws when the settings could not be stored (a full disk): nothing changed then. */
  save(settings: Settings): void;
}

/** What the kept settings hold for "the upstream the device started with". */
const STARTED_UPSTREAM = "";

/**
 * The settings in force, and where they are kept. Saved settings win over the command
 * line's URL, as NVS does on a board; but an upstream URL saved as the one the device
 * started with is kept as "that one", not its address: the embedded upstream takes a new
 * random port at every start, and a pinned one would send every reading to a dead port.
 */
export class DeviceSettings {
  current: Settings;
  /** Why the kept settings were refused (a damaged file), if they were: the device runs on its defaults. */
  readonly refused: string | undefined;

  constructor(
    private readonly keeper: SettingsKeeper,
    private readonly startedUrl: string,
    /** The MQTT transport whose broker the settings name (MQTT only). */
    private readonly mqtt?: MqttTransport,
    /** Called when a save changed a broker field: a session the broker refused begins again. */
    private readonly brokerChanged?: () => void,
  ) {
    let kept: Settings | undefined;
    try {
      kept = keeper.load();
    } catch (err) {
      // Safe to run on: the defaults send nothing anywhere the owner did not start it with.
      this.refused = (err as Error).message;
    }
    this.current =
      kept === undefined
        ? defaultSettings(startedUrl)
        : { ...kept, upstreamUrl: kept.upstreamUrl === STARTED_UPSTREAM ? startedUrl : kept.upstreamUrl };
    if (mqtt) useBrokerSettings(mqtt, this.current);
  }

  /**
   * Stores `settings` (on flash before the page says they are saved: a restart finds what
   * the page showed), then puts them in force; over MQTT its broker's apply from the next
   * connect attempt. Throws when they could not be stored: nothing changed then.
   */
  /** Client ids the device's other clients hold (none without MQTT): the form may not take them. */
  get takenClientIds(): readonly string[] {
    return this.mqtt?.takenClientIds ?? [];
  }

  save(settings: Settings): void {
    const changed = BROKER_FIELDS.some((f) => settings[f] !== this.current[f]);
    const started = settings.upstreamUrl === this.startedUrl;
    this.keeper.save(started ? { ...settings, upstreamUrl: STARTED_UPSTREAM } : settings);
    this.current = settings;
    if (this.mqtt) useBrokerSettings(this.mqtt, settings);
    if (changed) this.brokerChanged?.();
  }
}

export type SettingsErrors = Partial<Record<keyof Settings, string>>;

/** A good form's settings, and the stored secrets it cleared with why (the page shows it by the field). */
export type Checked =
  { ok: true; settings: Settings; cleared: SettingsErrors } | { ok: false; errors: SettingsErrors };

/** What the page and the status show for userinfo in the upstream URL: never the credentials. */
export const HIDDEN_CREDENTIALS = "***";

/** As the firmware says it (device_settings.c, device_settings_credentials_meaning). */
export const OTHER_HOST =
  "The hidden credentials belong to another scheme, host or port; type them again for this URL.";

/**
 * As the firmware says it (boards/app/settings.c): the board's upload task has 8 KiB of stack
 * and TLS needs about 12 KiB, so both refuse https:// rather than fail at the first upload.
 */
export const HTTPS_REFUSED =
  "Upstream URL must be an http:// URL: this board refuses https://, because its upload task's 8 KiB stack has no room for TLS.";

/** The URL as it may be shown: credentials replaced by HIDDEN_CREDENTIALS. */
export function withoutCredentials(url: string): string {
  try {
    const u = new URL(url);
    if (u.username === "" && u.password === "") return url;
    u.username = HIDDEN_CREDENTIALS;
    u.password = "";
    return u.href;
  } catch {
    return "";
  }
}

/**
 * 802.11 SSIDs are 1 to 32 octets, here of UTF-8 without control characters (a NUL would
 * cut the name short in C, CR/LF and ESC garble logs and terminals); WPA2 passphrases are
 * 8 to 63 printable ASCII characters. `notUtf8` names the fields whose bytes were not
 * UTF-8. An upstream URL whose userinfo is HIDDEN_CREDENTIALS (the page sends back what it
 * was shown) keeps the stored credentials.
 */
export function checkSettings(
  form: URLSearchParams,
  stored: Settings,
  notUtf8 = new Set<string>(),
  takenClientIds: readonly string[] = [],
): Checked {
  const ssid = form.get("ssid") ?? "";
  const password = form.get("password") ?? "";
  const upstreamUrl = (form.get("upstreamUrl") ?? "").trim();
  const errors: SettingsErrors = {};

  const ssidBytes = Buffer.byteLength(ssid, "utf8");
  if (notUtf8.has("ssid")) errors.ssid = "SSID must be UTF-8 text; these bytes are not.";
  else if (/[\x00-\x1f\x7f]/.test(ssid)) {
    errors.ssid = "SSID must not contain control characters (NUL, CR, LF, ESC, ...).";
  } else if (ssidBytes < 1 || ssidBytes > 32) {
    errors.ssid = `SSID must be 1 to 32 bytes; this one is ${ssidBytes} bytes.`;
  }
  if (notUtf8.has("password") || (password !== "" && !/^[\x20-\x7e]{8,63}$/.test(password))) {
    errors.password =
      "Password must be empty (an open network) or 8 to 63 printable ASCII characters; " +
      `this one is ${[...password].length} characters.`;
  }
  let url: URL | undefined;
  try {
    url = notUtf8.has("upstreamUrl") ? undefined : new URL(upstreamUrl);
  } catch {
    url = undefined;
  }
  // As the firmware has it (boards/app/settings.c): the scheme spelled out, a host.
  const spelledOut = /^http:\/\/[^/?#@:\s]/.test(upstreamUrl) && !/[\x00-\x20\x7f]/.test(upstreamUrl);
  if (upstreamUrl.startsWith("https://")) {
    errors.upstreamUrl = HTTPS_REFUSED;
  } else if (url === undefined || !spelledOut) {
    errors.upstreamUrl = "Upstream URL must be an http:// URL.";
  } else if (url.username === HIDDEN_CREDENTIALS && url.password === "") {
    const kept = new URL(stored.upstreamUrl);
    // Hidden credentials go back only to the scheme, host and port they were typed for.
    if (kept.protocol !== url.protocol || kept.hostname !== url.hostname || kept.port !== url.port) {
      errors.upstreamUrl = OTHER_HOST;
    } else {
      url.username = kept.username;
      url.password = kept.password;
    }
  }

  const broker = checkBroker(form, stored, notUtf8, takenClientIds);
  Object.assign(errors, broker.errors);
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return {
    ok: true,
    settings: { ...broker.settings, ssid, password, upstreamUrl: url!.href },
    cleared: broker.cleared,
  };
}

/** The settings as the status shows them: no password, no credentials. */
export function settingsStatus(s: Settings) {
  return {
    ssid: s.ssid,
    passwordSet: s.password !== "",
    upstreamUrl: withoutCredentials(s.upstreamUrl),
    ...brokerStatus(s),
  };
}
