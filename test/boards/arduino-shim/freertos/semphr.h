/* Stand-in for FreeRTOS's semphr.h as ESP-IDF ships it, declarations only; see ../Arduino.h.
 * The real names are macros over the queue functions; here they are functions of the same
 * signature. */
#ifndef FREERTOS_SEMPHR_SHIM_H
#define FREERTOS_SEMPHR_SHIM_H
#include "FreeRTOS.h"
typedef QueueHandle_t SemaphoreHandle_t;
SemaphoreHandle_t xSemaphoreCreateMutex(void);
SemaphoreHandle_t xSemaphoreCreateBinary(void);
BaseType_t xSemaphoreTake(SemaphoreHandle_t semaphore, TickType_t wait);
BaseType_t xSemaphoreGive(SemaphoreHandle_t semaphore);
#define portTICK_PERIOD_MS 1
#define pdMS_TO_TICKS(ms) ((TickType_t)(ms) / portTICK_PERIOD_MS)
#endif
