/* Stand-in for FreeRTOS.h as ESP-IDF ships it: the types ../Arduino.h declares. */
#ifndef FREERTOS_SHIM_H
#define FREERTOS_SHIM_H
#include "../Arduino.h"
#endif
