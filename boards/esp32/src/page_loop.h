// The setup page's side in the loop: between passes it does what the page's handlers asked
// (page_handoff.h) with the application's rooms (a status snapshot, settings and the device
// password into NVS, a module swap, an upload, a reboot or a sleep) and publishes the view
// the handlers read. The decisions are the application's (boards/app); this file carries
// them to the rooms main.cpp composes.
#ifndef PAGE_LOOP_H
#define PAGE_LOOP_H

#include <stddef.h>
#include <stdint.h>

#include "broker.h"
#include "device.h"
#include "kept.h"
#include "readings.h"
#include "requests.h"
#include "status.h"

// What the page reads and asks: the rooms main.cpp composes.
struct PageRooms {
  app_keeper *keeper;
  app_readings *readings;
  app_status_book *book;
  app_requests *requests;
  const app_broker_settings *broker;
  const char *upload_url;  // as stored (the status shows it without credentials)
  const char *device_id;
  bool *scheduler_ok;
  app_device *device;  // for a module swap between passes
  uint32_t (*boots)();
};

// Returns what the page's power card says of the last reset when it rolled an uploaded
// module back (`watchdog_reset`: the watchdog's or a panic), else nullptr.
const char *page_loop_begin(const PageRooms &rooms, bool watchdog_reset);
// Once a pass (and on every turn of loop() while the scheduler is stopped): the page's ask
// done, if one waits, and the view published. Never waits for a client.
void page_loop_serve();
// At a pass's start: a module the last pass took, swapped in between two passes.
void page_loop_swap();
// A pass failed: an uploaded module under trial restarts the board into the embedded one.
void page_loop_module_failed();
// The status JSON into `out` (events after `since`); its length, 0 when it does not fit.
size_t page_loop_status(const PageRooms &rooms, uint32_t since, char *out, size_t size);

#endif
