// The loop task under the task watchdog, and the trial of an uploaded module: a module that
// loops never returns to loop(), the watchdog resets the board after WATCHDOG_TIMEOUT_S,
// and the reset leaves the upload behind (it lived in RAM), so the built-in module runs
// again. The trial mark lives in RTC memory, which a reset keeps, so the next boot can say
// what happened.
#ifndef WATCHDOG_H
#define WATCHDOG_H

// Far above the longest healthy pass: an NVS write with a page erase takes well under a
// second, wasm3 opening a module a few ms (a password's PBKDF2 runs on the page server's task).
#define WATCHDOG_TIMEOUT_S 30

// Registers the calling task (setup() runs on the loop task). Returns what the page should
// say about the last reset when it rolled an uploaded module back, else nullptr.
const char *watchdog_begin();
// Once per pass: the loop is alive.
void watchdog_feed();
// An uploaded module runs from now on (true), or the built-in one again (false).
void watchdog_trial(bool uploaded);

#endif
