/* One buffer for the engine's first failure; tickretry_backend.h says why the first. */
#include "tickretry_backend.h"

#include <stddef.h>

#include "tickretry.h"

static char failure[192];
static size_t length;

/* Appends text, always leaving failure terminated; text beyond the buffer is cut. */
static void append(const char *text) {
  while (text && *text && length + 1 < sizeof failure) failure[length++] = *text++;
  failure[length] = '\0';
}

bool tickretry_fail(const char *backend, const char *function, const char *call, const char *why,
                    const char *detail) {
  if (length > 0) return false;
  const char *const parts[] = {backend, function, call, why};
  for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
    if (i > 0) append(": ");
    append(parts[i]);
  }
  if (detail && *detail) {
    append(" (");
    append(detail);
    append(")");
  }
  return false;
}

bool tickretry_failed(void) { return length > 0; }

void tickretry_failure_clear(void) {
  length = 0;
  failure[0] = '\0';
}

const char *tickretry_error(void) { return length > 0 ? failure : NULL; }
