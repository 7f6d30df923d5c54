// The HTTP build's uploads off the main loop: one FreeRTOS task runs each attempt with
// HTTPClient and hands its answer back through a queue (the module is not thread-safe, so
// the loop task classifies it). The application's HAL entries http_start and http_collect.
#ifndef HTTP_UPLOAD_H
#define HTTP_UPLOAD_H

#include "app_hal.h"

#if !UPLOAD_MQTT
// Starts the task; `url` (the settings' upload URL) is read at each attempt.
void http_upload_begin(const char *url);
void http_upload_start(void *ctx, const app_http_attempt *attempt);
int http_upload_collect(void *ctx, app_http_answer *out);
#endif

#endif
