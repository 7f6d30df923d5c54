/* Stand-ins for the Arduino-ESP32 2.x core, declarations only: enough for g++ to type-check
 * boards/esp32/src/main.cpp on this machine (test/boards/sketch.test.ts). Each signature
 * follows the core's documented API; nothing here is ever linked or run. */
#ifndef ARDUINO_SHIM_H
#define ARDUINO_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>

using std::max;
using std::min;

class String {
 public:
  String(const char *text = "");
  String(const String &other);
  explicit String(char c);
  explicit String(int value);
  explicit String(long value);
  explicit String(unsigned long value);
  explicit String(unsigned int value);
  String &operator=(const String &other);
  String &operator+=(const String &other);
  String &operator+=(const char *other);
  String &operator+=(char c);
  bool operator==(const String &other) const;
  bool operator==(const char *other) const;
  bool operator!=(const String &other) const;
  char operator[](unsigned int index) const;
  const char *c_str() const;
  unsigned int length() const;
  int indexOf(char c) const;
  int indexOf(const char *text) const;
  String substring(unsigned int from) const;
  String substring(unsigned int from, unsigned int to) const;
  bool startsWith(const String &prefix) const;
  bool startsWith(const char *prefix) const;
  const char *begin() const;
  const char *end() const;
};
String operator+(const String &a, const String &b);
String operator+(const String &a, const char *b);
String operator+(const char *a, const String &b);
String operator+(const String &a, char b);

/* newlib's, which the ESP32 toolchain has and this machine's glibc may not. */
extern "C" size_t strlcpy(char *dst, const char *src, size_t size);

class HardwareSerial {
 public:
  void begin(unsigned long baud);
  size_t print(const char *text);
  size_t println(const char *text);
  size_t println(const String &text);
  size_t printf(const char *format, ...) __attribute__((format(printf, 2, 3)));
  void flush();
};
extern HardwareSerial Serial;

class EspClass {
 public:
  [[noreturn]] void restart();
};
extern EspClass ESP;

/* unsigned long on the ESP32, where long is 32 bits: declared here at the target's width. */
uint32_t millis();
uint32_t micros();
void delay(uint32_t ms);

#define RTC_DATA_ATTR
#define RTC_NOINIT_ATTR
#define SET_LOOP_TASK_STACK_SIZE(bytes) static const size_t loop_task_stack_bytes __attribute__((unused)) = (bytes)

/* FreeRTOS, as the core exposes it. */
typedef void *QueueHandle_t;
typedef void *TaskHandle_t;
typedef int BaseType_t;
typedef uint32_t TickType_t;
#define pdTRUE 1
#define pdFALSE 0
#define pdPASS 1
#define portMAX_DELAY 0xffffffffu
QueueHandle_t xQueueCreate(uint32_t length, uint32_t item_size);
BaseType_t xQueueSend(QueueHandle_t queue, const void *item, TickType_t wait);
BaseType_t xQueueReceive(QueueHandle_t queue, void *item, TickType_t wait);
BaseType_t xTaskCreate(void (*task)(void *), const char *name, uint32_t stack_bytes, void *arg,
                       uint32_t priority, TaskHandle_t *handle);

#include "esp_system.h"

#endif
