/* Stand-in for Arduino-ESP32's WiFi, declarations only; see Arduino.h. The Wi-Fi events
 * are those of WiFiGeneric.h (core 2.x; core 3.x keeps the names in NetworkEvents.h with
 * other values, so the sketch uses the names only) and of ESP-IDF's esp_wifi_types.h
 * (wifi_event_sta_disconnected_t), as the APIs' documentation gives them. */
#ifndef WIFI_SHIM_H
#define WIFI_SHIM_H
#include "Arduino.h"
class IPAddress {
 public:
  String toString() const;
  operator uint32_t() const;
};
class WiFiClient {
 public:
  IPAddress remoteIP();
};
typedef enum { WIFI_OFF, WIFI_STA, WIFI_AP, WIFI_AP_STA } wifi_mode_t;
typedef enum { WL_IDLE_STATUS, WL_NO_SSID_AVAIL, WL_CONNECTED = 3, WL_CONNECT_FAILED, WL_CONNECTION_LOST, WL_DISCONNECTED } wl_status_t;

typedef enum {
  ARDUINO_EVENT_WIFI_READY = 0,
  ARDUINO_EVENT_WIFI_SCAN_DONE,
  ARDUINO_EVENT_WIFI_STA_START,
  ARDUINO_EVENT_WIFI_STA_STOP,
  ARDUINO_EVENT_WIFI_STA_CONNECTED,
  ARDUINO_EVENT_WIFI_STA_DISCONNECTED,
  ARDUINO_EVENT_WIFI_STA_AUTHMODE_CHANGE,
  ARDUINO_EVENT_WIFI_STA_GOT_IP,
  ARDUINO_EVENT_WIFI_STA_GOT_IP6,
  ARDUINO_EVENT_WIFI_STA_LOST_IP,
  ARDUINO_EVENT_MAX
} arduino_event_id_t;
typedef struct {
  uint8_t ssid[32];
  uint8_t ssid_len;
  uint8_t bssid[6];
  uint8_t reason; /* wifi_err_reason_t */
} wifi_event_sta_disconnected_t;
typedef union {
  wifi_event_sta_disconnected_t wifi_sta_disconnected;
} arduino_event_info_t;
typedef struct {
  arduino_event_id_t event_id;
  arduino_event_info_t event_info;
} arduino_event_t;
typedef void (*WiFiEventSysCb)(arduino_event_t *event);
typedef size_t wifi_event_id_t;

class WiFiClass {
 public:
  bool mode(wifi_mode_t mode);
  wifi_mode_t getMode();
  wl_status_t begin(const char *ssid, const char *passphrase = nullptr, int32_t channel = 0,
                    const uint8_t *bssid = nullptr, bool connect = true);
  bool disconnect(bool wifi_off = false, bool erase_ap = false);
  bool setAutoReconnect(bool auto_reconnect);
  wifi_event_id_t onEvent(WiFiEventSysCb callback, arduino_event_id_t event = ARDUINO_EVENT_MAX);
  bool softAP(const char *ssid, const char *passphrase = nullptr);
  wl_status_t status();
  IPAddress softAPIP();
  IPAddress localIP();
};
extern WiFiClass WiFi;
#endif
