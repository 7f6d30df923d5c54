// The loop task under the task watchdog, and the word of RTC memory that holds an uploaded
// module's trial mark (../app/module_swap.h): a module that loops never returns to loop(),
// the watchdog resets the board after WATCHDOG_TIMEOUT_S, and the reset leaves the upload
// behind (it lived in RAM), so the built-in module runs again. A reset keeps the mark, so
// the next boot can say what happened.
#ifndef WATCHDOG_H
#define WATCHDOG_H

#include <stdint.h>

// Far above the longest healthy pass: an NVS write with a page erase takes well under a
// second, wasm3 opening a module a few ms (a password's PBKDF2 runs on the page server's task).
#define WATCHDOG_TIMEOUT_S 30

// Registers the calling task (setup() runs on the loop task). Returns whether the last
// reset was the watchdog's (or a panic).
bool watchdog_begin();
// Once per pass: the loop is alive.
void watchdog_feed();
// The trial mark, in RTC memory (RTC_NOINIT: power-on garbage, kept by a reset).
uint32_t *watchdog_trial_mark();

#endif
