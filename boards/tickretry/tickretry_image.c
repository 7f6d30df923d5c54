/* tickretry_save and tickretry_restore (tickretry.h) over the module's save, imageAddress
 * and restore exports, for both backends: the image is copied out of, or into, the
 * module's image area, IMAGE_AREA_BYTES of its linear memory at imageAddress(). */
#include <string.h>

#include "tickretry.h"
#include "tickretry_backend.h"

/* The image area when `length` bytes of it lie inside the module's memory, else NULL:
 * while no module is open, once the engine failed, or (a module bug) when the area
 * reaches past the memory, which is then recorded as the engine's failure. */
static uint8_t *image_area(const char *function, uint32_t length) {
  uint32_t size = 0;
  uint8_t *memory = tickretry_module_memory(&size);
  uint32_t address = tickretry_module_image_address();
  if (memory == NULL || tickretry_failed()) return NULL;
  if (address > size || length > size - address) {
    tickretry_fail("tickretry", function, "imageAddress()", "the image area passes the module's memory",
                   NULL);
    return NULL;
  }
  return memory + address;
}

int32_t tickretry_save(uint32_t now, void *image, uint32_t capacity) {
  int32_t length = tickretry_module_save(now);
  if (length < 0) return length;
  if ((uint32_t)length > capacity) return TICKRETRY_ERROR_IMAGE_LENGTH;
  const uint8_t *area = image_area(__func__, (uint32_t)length);
  if (area == NULL) return TICKRETRY_ENGINE_FAILED;
  memcpy(image, area, (uint32_t)length);
  return length;
}

int32_t tickretry_restore(const void *image, uint32_t length, uint32_t now, uint32_t elapsed,
                          uint32_t flags) {
  /* A length the area cannot hold is not copied: the module refuses it (IMAGE_LENGTH)
   * without reading the area, and nothing beyond the area is overwritten. */
  if (length <= TICKRETRY_IMAGE_AREA_BYTES) {
    uint8_t *area = image_area(__func__, length);
    if (area == NULL) return TICKRETRY_ENGINE_FAILED;
    memcpy(area, image, length);
  }
  return tickretry_module_restore(length, now, elapsed, flags);
}
