// See page_handoff.h.
#include "page_handoff.h"

#include <freertos/FreeRTOS.h>
#include <freertos/semphr.h>
#include <stdlib.h>
#include <string.h>

static SemaphoreHandle_t lock;
static SemaphoreHandle_t answered;  // given once per answer, taken by the handler waiting for it
static app_ask slot;
static PageView shared;
static const uint8_t *module_bytes;
static size_t module_size;

// Held only for copies of a few hundred bytes (the module: a few KiB): never for I/O.
struct Locked {
  Locked() { xSemaphoreTake(lock, portMAX_DELAY); }
  ~Locked() { xSemaphoreGive(lock); }
};

void page_handoff_begin() {
  lock = xSemaphoreCreateMutex();
  answered = xSemaphoreCreateBinary();
}

// Once the loop took the ask, its answer comes (a loop that never comes back is reset by
// the task watchdog, watchdog.h), and the handler must not return before it: the loop may
// be writing into the ask's data.
bool page_handoff_ask(app_ask_kind kind, uint32_t number, void *data, size_t size, int *status, char *text,
                      size_t text_size) {
  {
    Locked held;
    if (!app_ask_post(&slot, kind, number, data, size)) return false;
  }
  bool in_time = xSemaphoreTake(answered, pdMS_TO_TICKS(PAGE_ASK_TAKE_MS)) == pdTRUE;
  if (!in_time) {
    Locked held;
    if (app_ask_withdraw(&slot)) return false;
  }
  if (!in_time) xSemaphoreTake(answered, portMAX_DELAY);
  Locked held;
  return app_ask_answered(&slot, status, text, text_size);
}

void page_handoff_view(PageView *out) {
  Locked held;
  *out = shared;
}

uint8_t *page_handoff_module(size_t *size) {
  Locked held;
  uint8_t *copy = static_cast<uint8_t *>(malloc(module_size));
  if (copy) memcpy(copy, module_bytes, module_size);
  *size = module_size;
  return copy;
}

bool page_handoff_take(app_ask *out) {
  Locked held;
  return app_ask_take(&slot, out);
}

void page_handoff_answer(int status, const char *text) {
  {
    Locked held;
    app_ask_answer(&slot, status, text);
  }
  xSemaphoreGive(answered);
}

void page_handoff_publish(const PageView &view) {
  Locked held;
  shared = view;
}

void page_handoff_module_is(const uint8_t *bytes, size_t size) {
  Locked held;
  module_bytes = bytes;
  module_size = size;
}
