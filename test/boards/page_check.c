/* The setup page's C parts run on the host, for test/boards/page-native.test.ts:
 *   page_check verify FILE [PUBLIC_KEY_HEX]  a signed module: "accepted N" (exit 0) or
 *                                            "refused: why" (exit 1); the key defaults to
 *                                            the build key compiled into the firmware
 *   page_check hash PASSWORD SALT_HEX        the stored form of a device password
 *   page_check check STORED PASSWORD         "match" (exit 0) or "no match" (exit 1)
 *   page_check status                        a status JSON with one of everything
 *   page_check settings SSID_HEX PASSWORD_HEX URL_HEX
 *                                            "ok", or the field of the first problem and
 *                                            its message (exit 1)
 *   page_check broker URL_HEX ID_HEX USER_HEX PASSWORD_HEX TOPIC_HEX
 *                                            the same for the broker fields
 *   page_check form BODY_HEX                 a form body's fields, "name=value hex" a line
 *   page_check asks STEP...                  the page's ask slot (requests.h) through steps
 *                                            post|take|answer|answered|withdraw: each one's
 *                                            result, a line
 */
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "broker.h"
#include "kept.h"
#include "page.h"
#include "password.h"
#include "requests.h"
#include "settings.h"
#include "status.h"
#include "module_signature.h"
#include "generated/app_config.h"
#include "generated/tickretry_build_key.h"

static int verify(const char *path, const char *key_hex) {
  uint8_t key[32];
  memcpy(key, tickretry_build_key, sizeof key);
  size_t key_len = 0;
  if (key_hex && (sodium_hex2bin(key, sizeof key, key_hex, strlen(key_hex), NULL, &key_len, NULL) != 0 ||
                  key_len != sizeof key)) {
    fprintf(stderr, "bad key\n");
    return 2;
  }
  FILE *f = fopen(path, "rb");
  if (!f) return 2;
  static uint8_t bytes[1 << 16];
  size_t n = fread(bytes, 1, sizeof bytes, f);
  fclose(f);
  size_t module_length = 0;
  module_signature_result r = module_signature_check(bytes, n, key, &module_length);
  if (r != MODULE_SIGNATURE_OK) {
    printf("refused: %s\n", module_signature_meaning(r));
    return 1;
  }
  printf("accepted %zu\n", module_length);
  return 0;
}

static int status(void) {
  status_operation ops[] = {{1234, 3, 7, "WAITING", 2, 5, {1, 300}, {0, 0}, {1, 9000}, "TRANSIENT", "HTTP 503"}};
  status_ended recent[] = {{3, 1233, 6, "SUCCEEDED", 1, "SUCCESS", "HTTP 200", 42}};
  status_event events[] = {{1, 90, 1764590400000ull, "boot", 0, 0, "NONE", "NONE"},
                           {2, 100, 1764590400010ull, "begin", 1234, 0, "NONE", "NONE"},
                           {3, 100, 1764590400010ull, "start", 1234, 1, "NONE", "NONE"},
                           {4, 130, 1764590400040ull, "answer", 1234, 1, "TRANSIENT", "NONE"}};
  app_status s = {0};
  s.name = "tickretry-a1b2c3";
  s.backend = "wasm3";
  s.abi_version = TICKRETRY_ABI_VERSION;
  s.now = 4294967000u;
  s.wall_ms = 1764590400050ull;
  s.passes = 10;
  s.last_gap_ms = 1.5;
  s.budget_on = 1;
  s.tokens_milli = 10000;
  s.counters[TICKRETRY_COUNTER_BEGUN] = 2;
  s.operations = ops;
  s.operation_count = 1;
  s.recent = recent;
  s.recent_count = 1;
  s.events = events;
  s.event_count = 4;
  s.ssid = "caf\xc3\xa9 \"quoted\" \\ tab\t";
  s.upstream_url = "http://***@192.168.1.10:8080/upload";
  s.app_password_set = 1;
  s.broker_url = "mqtt://192.168.1.10:1883";
  s.broker_username = "board";
  s.broker_password_set = 1;
  s.broker_topic = "tickretry/readings";
  s.store_where = "NVS";
  s.store_writes = 9;
  s.store_write_failures = 2;
  s.store_operations_ended = 3;
  s.store_writes_per_operation = (status_number){1, 3.0};
  s.store_flash_life_years = (status_number){1, 13.8};
  s.power_kind = "deep sleep";
  s.power_count = 2;
  s.module_upload = 1;
  status_session sessions[] = {{"wifi", "up", 77, 1, 0, 0, {1, 5000}, {0, 0}, "NONE", "SUCCESS", "got IP"},
                               {"mqtt", "backing off", 78, 3, 1, 0, {0, 0}, {1, 800}, "NONE", "TRANSIENT", "ECONNREFUSED"}};
  s.sessions = sessions;
  s.session_count = 2;
  static char json[8192];
  if (app_status_json(&s, json, sizeof json) == 0) return 1;
  char tiny[64];
  if (app_status_json(&s, tiny, sizeof tiny) != 0) return 1; /* must say it did not fit */
  puts(json);
  return 0;
}

/* A hex argument as bytes (which may hold NUL); its length, or -1. */
static long from_hex(const char *hex, char *out, size_t size) {
  size_t n = 0;
  if (sodium_hex2bin((unsigned char *)out, size, hex, strlen(hex), NULL, &n, NULL) != 0) return -1;
  return (long)n;
}

static int settings(const char *ssid_hex, const char *password_hex, const char *url_hex) {
  static char ssid[256], password[256], url[512];
  long s = from_hex(ssid_hex, ssid, sizeof ssid), p = from_hex(password_hex, password, sizeof password),
       u = from_hex(url_hex, url, sizeof url);
  if (s < 0 || p < 0 || u < 0) return 2;
  app_settings_problem problem = app_settings_check(ssid, (size_t)s, password, (size_t)p, url, (size_t)u);
  if (problem == APP_SETTINGS_OK) {
    puts("ok");
    return 0;
  }
  printf("%s: %s\n", app_settings_field(problem), app_settings_meaning(problem));
  return 1;
}

/* The broker fields, each given in hex: the first problem's field and meaning, or "ok". */
static int broker(char **hex) {
  static char fields[5][512];
  long n[5];
  for (int i = 0; i < 5; i++)
    if ((n[i] = from_hex(hex[i], fields[i], sizeof fields[i])) < 0) return 2;
  app_broker_form form = {fields[0], fields[1], fields[2], fields[3], fields[4],
                             (size_t)n[0], (size_t)n[1], (size_t)n[2], (size_t)n[3], (size_t)n[4]};
  app_broker_problem problem = app_broker_check(&form);
  if (problem == APP_BROKER_OK) {
    puts("ok");
    return 0;
  }
  printf("%s: %s\n", app_broker_field(problem), app_broker_meaning(problem));
  return 1;
}

/* guesses W:t:a ... R:t:a ... C:t:a: a wrong guess at t from address a, a right one, or the
 * wait a check from a meets at t */
static int guesses(int n, char **steps) {
  static app_password_guess_limit limit;
  memset(&limit, 0, sizeof limit);
  const char *sep = "";
  for (int i = 0; i < n; i++) {
    char *end;
    uint32_t t = (uint32_t)strtoul(steps[i] + 2, &end, 10);
    uint32_t a = (uint32_t)strtoul(end + 1, NULL, 10);
    if (steps[i][0] == 'W') app_password_guess_wrong(&limit, a, t);
    else if (steps[i][0] == 'R') app_password_guess_right(&limit, a);
    else {
      printf("%s%lu", sep, (unsigned long)app_password_guess_wait_ms(&limit, a, t));
      sep = " ";
    }
  }
  printf("\n");
  return 0;
}

static int hash(char **argv) {
  uint8_t salt[APP_PASSWORD_SALT_BYTES];
  size_t n = 0;
  if (sodium_hex2bin(salt, sizeof salt, argv[1], strlen(argv[1]), NULL, &n, NULL) != 0 || n != sizeof salt) return 2;
  char stored[APP_PASSWORD_STORED_MAX];
  if (app_password_hash(argv[0], salt, stored, sizeof stored) != 0) return 2;
  puts(stored);
  return 0;
}

static int check(char **argv) {
  int ok = app_password_check(argv[0], argv[1]);
  puts(ok ? "match" : "no match");
  return ok ? 0 : 1;
}

static int version(char **argv) {
  FILE *f = fopen(argv[0], "rb");
  static uint8_t bytes[256 * 1024];
  size_t n = f ? fread(bytes, 1, sizeof bytes, f) : 0;
  if (f) fclose(f);
  printf("%lld\n", (long long)module_version(bytes, n));
  return 0;
}

static int crc(char **argv) {
  printf("%08lx\n", (unsigned long)app_kept_crc32(argv[0], strlen(argv[0])));
  return 0;
}

static int credentials(char **argv) {
  char out[160];
  app_settings_credentials_result r = app_settings_credentials(argv[0], argv[1], out, sizeof out);
  printf("%s\n", r == APP_SETTINGS_CREDENTIALS_OK ? out : r == APP_SETTINGS_CREDENTIALS_OTHER_HOST ? "other host" : "too long");
  return r == APP_SETTINGS_CREDENTIALS_OK ? 0 : 1;
}

/* same-broker STORED GIVEN: "same", or "cleared: why" when a stored password would be dropped. */
static int same_broker(char **argv) {
  if (app_broker_same_broker(argv[0], strlen(argv[0]), argv[1], strlen(argv[1]))) {
    puts("same");
    return 0;
  }
  printf("cleared: %s\n", app_broker_password_cleared());
  return 1;
}

static int form(char **argv) {
  static char body[APP_PAGE_FORM_BYTES + 1];
  size_t length = 0;
  if (sodium_hex2bin((unsigned char *)body, sizeof body - 1, argv[0], strlen(argv[0]), NULL, &length, NULL) != 0)
    return 2;
  app_page_form parsed;
  app_page_form_parse(body, length, &parsed);
  for (size_t i = 0; i < parsed.count; i++) {
    char hex[2 * APP_PAGE_FORM_BYTES + 1];
    sodium_bin2hex(hex, sizeof hex, (const unsigned char *)parsed.fields[i].value, parsed.fields[i].value_len);
    printf("%s=%s\n", parsed.fields[i].name, hex);
  }
  return 0;
}

/* The handler's and the loop's calls in the order given; the answer is the step's count. */
static int asks(int argc, char **argv) {
  app_ask slot = {0}, taken;
  char text[APP_ASK_TEXT_BYTES];
  int status = 0;
  for (int i = 0; i < argc; i++) {
    const char *step = argv[i];
    if (strcmp(step, "post") == 0) printf("post %d\n", app_ask_post(&slot, APP_ASK_UPLOAD, (uint32_t)i, NULL, 0));
    if (strcmp(step, "take") == 0) {
      int got = app_ask_take(&slot, &taken);
      printf("take %d %d\n", got, got ? (int)taken.number : -1);
    }
    if (strcmp(step, "answer") == 0) {
      snprintf(text, sizeof text, "answer %d", i);
      app_ask_answer(&slot, 200, text);
      printf("answered by the loop\n");
    }
    if (strcmp(step, "answered") == 0) {
      int got = app_ask_answered(&slot, &status, text, sizeof text);
      printf("answered %d %s\n", got, got ? text : "-");
    }
    if (strcmp(step, "withdraw") == 0) printf("withdraw %d\n", app_ask_withdraw(&slot));
  }
  return 0;
}

/* Each command with its argument count (-1: any), after the command's name. */
static const struct {
  const char *name;
  int args;
  int (*run)(char **argv);
} COMMANDS[] = {
    {"hash", 2, hash},     {"check", 2, check},         {"version", 1, version},
    {"crc32", 1, crc},   {"credentials", 2, credentials}, {"same-broker", 2, same_broker},
    {"broker", 5, broker}, {"form", 1, form},
};

int main(int argc, char **argv) {
  if (argc == 5 && strcmp(argv[1], "settings") == 0) return settings(argv[2], argv[3], argv[4]);
  if (argc >= 3 && strcmp(argv[1], "verify") == 0) return verify(argv[2], argc > 3 ? argv[3] : NULL);
  if (argc == 2 && strcmp(argv[1], "status") == 0) return status();
  if (argc >= 2 && strcmp(argv[1], "guesses") == 0) return guesses(argc - 2, argv + 2);
  if (argc >= 2 && strcmp(argv[1], "asks") == 0) return asks(argc - 2, argv + 2);
  for (size_t i = 0; argc >= 2 && i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
    if (strcmp(argv[1], COMMANDS[i].name) == 0 && argc - 2 == COMMANDS[i].args) return COMMANDS[i].run(argv + 2);
  fprintf(stderr, "usage: page_check verify|hash|check|status|settings|broker|guesses|credentials|same-broker ...\n");
  return 2;
}
