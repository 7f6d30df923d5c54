/* Stand-in for Arduino-ESP32's HTTPClient, declarations only; see Arduino.h. */
#ifndef HTTPCLIENT_SHIM_H
#define HTTPCLIENT_SHIM_H
#include "Arduino.h"
#define HTTPC_ERROR_CONNECTION_REFUSED (-1)
#define HTTPC_ERROR_SEND_HEADER_FAILED (-2)
#define HTTPC_ERROR_SEND_PAYLOAD_FAILED (-3)
#define HTTPC_ERROR_NOT_CONNECTED (-4)
#define HTTPC_ERROR_CONNECTION_LOST (-5)
#define HTTPC_ERROR_NO_STREAM (-6)
#define HTTPC_ERROR_NO_HTTP_SERVER (-7)
#define HTTPC_ERROR_TOO_LESS_RAM (-8)
#define HTTPC_ERROR_ENCODING (-9)
#define HTTPC_ERROR_STREAM_WRITE (-10)
#define HTTPC_ERROR_READ_TIMEOUT (-11)
class HTTPClient {
 public:
  bool begin(const String &url);
  void end();
  void setConnectTimeout(int32_t ms);
  void setTimeout(uint16_t ms);
  void collectHeaders(const char *header_keys[], size_t count);
  void addHeader(const String &name, const String &value);
  int GET();
  int POST(uint8_t *payload, size_t size);
  bool hasHeader(const char *name);
  String header(const char *name);
};
#endif
