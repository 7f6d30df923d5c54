/* Stand-in for Arduino-ESP32's WebServer, declarations only; see Arduino.h. */
#ifndef WEBSERVER_SHIM_H
#define WEBSERVER_SHIM_H
#include "Arduino.h"
#include "WiFi.h"
typedef enum { HTTP_ANY, HTTP_GET, HTTP_HEAD, HTTP_POST, HTTP_PUT, HTTP_PATCH, HTTP_DELETE, HTTP_OPTIONS } HTTPMethod;
enum HTTPRawStatus { RAW_START, RAW_WRITE, RAW_END, RAW_ABORTED };
struct HTTPRaw {
  HTTPRawStatus status;
  size_t totalSize;
  size_t currentSize;
  uint8_t buf[1436];
};
class WebServer {
 public:
  typedef void (*THandlerFunction)();
  explicit WebServer(int port = 80);
  void begin();
  void handleClient();
  void on(const String &uri, HTTPMethod method, THandlerFunction fn);
  void on(const String &uri, HTTPMethod method, THandlerFunction fn, THandlerFunction ufn);
  void onNotFound(THandlerFunction fn);
  void collectHeaders(const char *header_keys[], size_t count);
  String header(const char *name);
  String hostHeader();
  WiFiClient &client();
  String arg(const char *name);
  bool hasArg(const char *name) const;
  String uri();
  HTTPMethod method();
  HTTPRaw &raw();
  void sendHeader(const String &name, const String &value, bool first = false);
  void send(int code, const char *content_type = nullptr, const String &content = String(""));
  void send_P(int code, const char *content_type, const char *content, size_t length);
};
#endif
