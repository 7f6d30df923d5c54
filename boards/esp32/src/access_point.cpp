// See access_point.h.
#include "access_point.h"

#include <Arduino.h>
#include <WiFi.h>

#include "board_hal.h"
#include "sketch_sessions.h"

static const app_hal &hal = board_hal;
static bool nvs_open;
static const char *id;

// The setup access point is WPA2 with a per-device passphrase, made from the hardware RNG
// at first boot, kept in NVS and printed on the serial console at every boot that opens
// the access point (the label or the console is how its owner learns it). In radio range
// without it, an attacker sees the network's name and can jam or deauthenticate, but
// neither joins, nor claims the board, nor reads the device password on its way.
#define AP_PASS_KEY "appass"
#define AP_PASS_CHARS 12
static void access_point_passphrase(char *out) {
  static const char alphabet[] = "abcdefghjkmnpqrstuvwxyz23456789";  // no 0/o, 1/l/i
  size_t kept = nvs_open ? hal.nvs_get_string(hal.ctx, AP_PASS_KEY, "", out, AP_PASS_CHARS + 1) : 0;
  if (kept == AP_PASS_CHARS) return;
  uint8_t random[AP_PASS_CHARS];
  hal.random_bytes(hal.ctx, random, sizeof random);
  for (int i = 0; i < AP_PASS_CHARS; i++) out[i] = alphabet[random[i] % (sizeof alphabet - 1)];
  out[AP_PASS_CHARS] = '\0';
  if (!nvs_open || hal.nvs_put_string(hal.ctx, AP_PASS_KEY, out) != AP_PASS_CHARS) {
    Serial.println("NVS refused the AP passphrase: it changes at the next boot");
  }
}

// After WIFI_MAX_FAILED_CONNECTS connect attempts of the Wi-Fi session in a row that got
// no IP (each within the session policy's 30 s: a wrong SSID or password), the board opens
// its access point beside the station, so that the page is reachable to fix the settings,
// while the session goes on trying; the count is kept in NVS, so the next boot opens the
// access point at once, and an IP or saving the settings resets it.
#define WIFI_MAX_FAILED_CONNECTS 3
static bool wifi_fails_noted;  // the count in NVS is this boot's last word on it

static void open_access_point(wifi_mode_t mode) {
  char passphrase[AP_PASS_CHARS + 1];
  access_point_passphrase(passphrase);
  WiFi.mode(mode);
  String name = String("tickretry-") + (id + 8);
  WiFi.softAP(name.c_str(), passphrase);
  Serial.printf("setup access point %s, passphrase %s, page http://192.168.4.1/\n", name.c_str(), passphrase);
}

void access_point_boot(bool nvs_ok, const char *device_id) {
  nvs_open = nvs_ok;
  id = device_id;
  bool ssid = hal.nvs_get_string(hal.ctx, "ssid", "", nullptr, 0) > 0;
  if (ssid && hal.nvs_get_u32(hal.ctx, WIFI_FAILS_KEY, 0) < WIFI_MAX_FAILED_CONNECTS) WiFi.mode(WIFI_STA);
  else open_access_point(ssid ? WIFI_AP_STA : WIFI_AP);
}

void access_point_watch() {
  if (!nvs_open || wifi_fails_noted) return;
  if (sessions_wifi_up()) {
    if (hal.nvs_get_u32(hal.ctx, WIFI_FAILS_KEY, 0) != 0) hal.nvs_put_u32(hal.ctx, WIFI_FAILS_KEY, 0);
    wifi_fails_noted = true;
    return;
  }
  if (sessions_wifi_failed_in_row() < WIFI_MAX_FAILED_CONNECTS) return;
  hal.nvs_put_u32(hal.ctx, WIFI_FAILS_KEY, WIFI_MAX_FAILED_CONNECTS);
  wifi_fails_noted = true;
  Serial.printf("Wi-Fi: %d connects without an IP\n", WIFI_MAX_FAILED_CONNECTS);
  if (WiFi.getMode() == WIFI_STA) open_access_point(WIFI_AP_STA);
}
