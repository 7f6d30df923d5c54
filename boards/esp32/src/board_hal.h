// The application's HAL (boards/app/app_hal.h) over arduino-esp32 and ESP-IDF.
#ifndef BOARD_HAL_H
#define BOARD_HAL_H

#include "app_hal.h"

extern const app_hal board_hal;

// Opens the NVS namespace the HAL's NVS entries use; false when it would not open.
bool board_nvs_open();

#endif
