/* Stand-in for Arduino-ESP32's Preferences (NVS), declarations only; see Arduino.h. */
#ifndef PREFERENCES_SHIM_H
#define PREFERENCES_SHIM_H
#include "Arduino.h"
class Preferences {
 public:
  bool begin(const char *name, bool read_only = false, const char *partition = nullptr);
  void end();
  bool clear();
  bool remove(const char *key);
  bool isKey(const char *key);
  size_t putBytes(const char *key, const void *value, size_t len);
  size_t putString(const char *key, const char *value);
  size_t putString(const char *key, const String &value);
  size_t putUInt(const char *key, uint32_t value);
  uint32_t getUInt(const char *key, uint32_t default_value = 0);
  size_t getBytesLength(const char *key);
  size_t getBytes(const char *key, void *buf, size_t max_len);
  String getString(const char *key, const String &default_value = String());
  size_t freeEntries();
};
#endif
