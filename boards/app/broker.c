/* See app_broker.h. */
#include "broker.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every byte within [low, 0x7e], and at most `most` of them. */
static int ascii_within(const char *s, size_t n, uint8_t low, size_t most) {
  if (n > most) return 0;
  for (size_t i = 0; i < n; i++)
    if ((uint8_t)s[i] < low || (uint8_t)s[i] > 0x7e) return 0;
  return 1;
}

static int host_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-';
}

/* Empty, or mqtt:// or mqtts://, a host name or IPv4 address, an optional port 1 to 65535,
 * an optional "/": what esp-mqtt and MQTT.js both take, and nothing they read otherwise. */
static int url_acceptable(const char *url, size_t n) {
  if (n == 0) return 1;
  if (n > APP_BROKER_URL_MAX) return 0;
  size_t i = n >= 7 && memcmp(url, "mqtt://", 7) == 0 ? 7 : n >= 8 && memcmp(url, "mqtts://", 8) == 0 ? 8 : 0;
  if (i == 0) return 0;
  size_t host = i;
  while (i < n && host_char(url[i])) i++;
  if (i == host) return 0;
  if (i < n && url[i] == ':') {
    size_t digits = ++i;
    unsigned long port = 0;
    while (i < n && i - digits < 5 && url[i] >= '0' && url[i] <= '9') port = port * 10 + (unsigned long)(url[i++] - '0');
    if (i == digits || port < 1 || port > 65535) return 0;
  }
  if (i < n && url[i] == '/') i++;
  return i == n;
}

app_broker_problem app_broker_check(const app_broker_form *f) {
  if (!url_acceptable(f->url, f->url_len)) return APP_BROKER_URL;
  if (!ascii_within(f->client_id, f->client_id_len, 0x21, APP_BROKER_NAME_MAX)) return APP_BROKER_CLIENT_ID;
  if (!ascii_within(f->username, f->username_len, 0x20, APP_BROKER_NAME_MAX)) return APP_BROKER_USERNAME;
  if (!ascii_within(f->password, f->password_len, 0x20, APP_BROKER_NAME_MAX)) return APP_BROKER_PASSWORD;
  /* A broker acknowledges a publish to its own $ topics and drops it (mosquitto denies $SYS/
   * writes yet sends the PUBACK): readings would end SUCCEEDED and vanish. */
  int topic_ok = f->topic_len >= 1 && ascii_within(f->topic, f->topic_len, 0x20, APP_BROKER_TOPIC_MAX) &&
                 memchr(f->topic, '+', f->topic_len) == NULL && memchr(f->topic, '#', f->topic_len) == NULL &&
                 f->topic[0] != '$';
  return topic_ok ? APP_BROKER_OK : APP_BROKER_TOPIC;
}

const char *app_broker_field(app_broker_problem problem) {
  static const char *const fields[] = {"", "brokerUrl", "brokerClientId", "brokerUsername", "brokerPassword",
                                       "brokerTopic"};
  return problem <= APP_BROKER_TOPIC ? fields[problem] : "";
}

const char *app_broker_meaning(app_broker_problem problem) {
  switch (problem) {
    case APP_BROKER_OK:
      return "";
    case APP_BROKER_URL:
      return "Broker URL must be empty or mqtt://host:port (or mqtts://), at most 127 characters, with no "
             "path and no credentials: the user name and password have their own fields.";
    case APP_BROKER_CLIENT_ID:
      return "Client id must be at most 63 printable ASCII characters without spaces (empty: the device's own).";
    case APP_BROKER_USERNAME:
      return "Broker user name must be at most 63 printable ASCII characters.";
    case APP_BROKER_PASSWORD:
      return "Broker password must be at most 63 printable ASCII characters.";
    default:
      return "Topic must be 1 to 95 printable ASCII characters, without the wildcards + and #, not starting with $ "
             "(the broker's own topics, such as $SYS/).";
  }
}

/* The authority an acceptable URL names as "scheme://host:port", the host in lower case and
 * the port spelled out; any other text (empty: the broker the device started with) as itself.
 * `out` holds APP_BROKER_URL_MAX + 8 bytes: an acceptable URL is at most APP_BROKER_URL_MAX. */
static int authority_of(const char *url, size_t n, char *out, size_t size) {
  if (n > APP_BROKER_URL_MAX || !url_acceptable(url, n)) return snprintf(out, size, "%.*s", (int)n, url) < (int)size;
  if (n == 0) return snprintf(out, size, "%s", "") >= 0;
  size_t host = url[4] == 's' ? 8 : 7, end = host; /* after "mqtts://" or "mqtt://" */
  while (end < n && host_char(url[end])) end++;
  unsigned long port = host == 7 ? 1883 : 8883;
  if (end < n && url[end] == ':') port = strtoul(url + end + 1, NULL, 10);
  size_t w = 0;
  for (size_t i = 0; i < end; i++) out[w++] = i < host ? url[i] : (char)tolower((unsigned char)url[i]);
  return snprintf(out + w, size - w, ":%lu", port) < (int)(size - w);
}

int app_broker_same_broker(const char *stored, size_t stored_len, const char *given, size_t given_len) {
  char a[APP_BROKER_URL_MAX + 8], b[APP_BROKER_URL_MAX + 8];
  if (!authority_of(stored, stored_len, a, sizeof a) || !authority_of(given, given_len, b, sizeof b)) return 0;
  return strcmp(a, b) == 0;
}

const char *app_broker_password_cleared(void) {
  return "Broker password cleared: the stored one was typed for another scheme, host or port; type it again for "
         "this broker.";
}
