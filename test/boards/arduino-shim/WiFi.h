/* Stand-in for Arduino-ESP32's WiFi, declarations only; see Arduino.h. */
#ifndef WIFI_SHIM_H
#define WIFI_SHIM_H
#include "Arduino.h"
class IPAddress {
 public:
  String toString() const;
};
typedef enum { WIFI_OFF, WIFI_STA, WIFI_AP, WIFI_AP_STA } wifi_mode_t;
typedef enum { WL_IDLE_STATUS, WL_NO_SSID_AVAIL, WL_CONNECTED = 3, WL_CONNECT_FAILED, WL_CONNECTION_LOST, WL_DISCONNECTED } wl_status_t;
class WiFiClass {
 public:
  bool mode(wifi_mode_t mode);
  wifi_mode_t getMode();
  wl_status_t begin(const char *ssid, const char *passphrase = nullptr);
  bool disconnect(bool wifi_off = false);
  bool softAP(const char *ssid, const char *passphrase = nullptr);
  wl_status_t status();
  IPAddress softAPIP();
  IPAddress localIP();
};
extern WiFiClass WiFi;
#endif
