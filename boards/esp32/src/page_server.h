// The setup page over Arduino's WebServer: every route of the contract
// (generated/page_routes.h) through one guard, the page's files from flash, and the
// handlers, which read the request's fields, ask the application's rooms and answer. The
// decisions are the application's (boards/app/page.c); this file only carries them.
#ifndef PAGE_SERVER_H
#define PAGE_SERVER_H

#include "broker.h"
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
  void (*start_scheduler)();  // a module swap with no state to carry starts afresh
  uint32_t (*boots)();
};

void page_server_begin(const PageRooms &rooms);
// Answers the clients waiting, one request each.
void page_server_serve();
// An uploaded module failed in a pass: back to the embedded one.
void page_server_module_failed();

#endif
