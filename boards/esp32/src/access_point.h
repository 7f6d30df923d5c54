// The setup access point: opened at boot without Wi-Fi settings, or beside the station
// after WIFI_MAX_FAILED_CONNECTS connect attempts in a row got no IP.
#ifndef ACCESS_POINT_H
#define ACCESS_POINT_H

#include "asks.h"

#define WIFI_FAILS_KEY APP_WIFI_FAILS_KEY  // failed Wi-Fi connects in a row (access_point_watch; asks.h)

// The radio's mode at boot: the station when it has settings that have not failed
// WIFI_MAX_FAILED_CONNECTS times, the access point (beside it, with settings) otherwise.
// The station connects once the scheduler runs: its Wi-Fi session's first attempt.
void access_point_boot(bool nvs_ok, const char *device_id);
// After each pass: opens the access point beside the station when its connects keep
// failing, and keeps the count in NVS.
void access_point_watch();

#endif
