// The setup form's settings and their checks: what a device would accept before it writes
// them to flash. A form with any bad field stores nothing.

export interface Settings {
  ssid: string;
  password: string;
  upstreamUrl: string;
}

export type SettingsErrors = Partial<Record<keyof Settings, string>>;

export type Checked = { ok: true; settings: Settings } | { ok: false; errors: SettingsErrors };

/** 802.11 SSIDs are 1 to 32 octets; WPA2 passphrases 8 to 63 printable ASCII characters. */
export function checkSettings(form: URLSearchParams): Checked {
  const ssid = form.get("ssid") ?? "";
  const password = form.get("password") ?? "";
  const upstreamUrl = (form.get("upstreamUrl") ?? "").trim();
  const errors: SettingsErrors = {};

  const ssidBytes = Buffer.byteLength(ssid, "utf8");
  if (ssidBytes < 1 || ssidBytes > 32) {
    errors.ssid = `SSID must be 1 to 32 bytes; this one is ${ssidBytes} bytes.`;
  }
  if (password !== "" && !/^[\x20-\x7e]{8,63}$/.test(password)) {
    errors.password =
      "Password must be empty (an open network) or 8 to 63 printable ASCII characters; " +
      `this one is ${[...password].length} characters.`;
  }
  let url: URL | undefined;
  try {
    url = new URL(upstreamUrl);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:")) {
    errors.upstreamUrl = "Upstream URL must be an http:// or https:// URL.";
  }

  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, settings: { ssid, password, upstreamUrl: url!.href } };
}
