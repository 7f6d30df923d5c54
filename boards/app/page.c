/* See page.h. */
#include "page.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generated/page_routes.h"

int app_page_host_allowed(const char *host, const char *ap_ip, const char *local_ip) {
  const char *colon = strchr(host, ':');
  size_t n = colon ? (size_t)(colon - host) : strlen(host);
  return (strlen(ap_ip) == n && strncmp(host, ap_ip, n) == 0) ||
         (strlen(local_ip) == n && strncmp(host, local_ip, n) == 0);
}

int app_page_same_origin(const char *host, const char *fetch_site, const char *origin, const char *referer) {
  char own[160];
  int own_len = snprintf(own, sizeof own, "http://%s", host);
  if (own_len < 0 || (size_t)own_len >= sizeof own) return 0; /* no own name that long */
  int site_ok = fetch_site[0] == '\0' || strcmp(fetch_site, "same-origin") == 0 || strcmp(fetch_site, "none") == 0;
  if (origin[0]) return site_ok && strcmp(origin, own) == 0;
  return site_ok && (referer[0] == '\0' || strcmp(referer, own) == 0 ||
                     (strncmp(referer, own, (size_t)own_len) == 0 && referer[own_len] == '/'));
}

int app_page_password_given(app_password_guess_limit *guesses, uint32_t address, uint32_t now, const char *stored,
                            const char *given, app_page_refusal *refusal) {
  *refusal = (app_page_refusal){0, NULL, 0};
  if (stored[0] == '\0') {
    *refusal = (app_page_refusal){403, PAGE_MSG_SET_PASSWORD_FIRST, 0};
    return 0;
  }
  if (given[0] == '\0') {
    *refusal = (app_page_refusal){401, PAGE_MSG_WRONG_PASSWORD, 0};
    return 0;
  }
  uint32_t wait_ms = app_password_guess_wait_ms(guesses, address, now);
  if (wait_ms > 0) {
    *refusal = (app_page_refusal){429, PAGE_MSG_TOO_MANY_GUESSES, (wait_ms + 999) / 1000};
    return 0;
  }
  if (!app_password_check(stored, given)) {
    app_password_guess_wrong(guesses, address, now); /* after the PBKDF2: its time counts */
    *refusal = (app_page_refusal){401, PAGE_MSG_WRONG_PASSWORD, 0};
    return 0;
  }
  app_password_guess_right(guesses, address);
  return 1;
}

int app_page_module_fits(size_t have, size_t more) { return have + more <= APP_PAGE_MODULE_LIMIT; }

static int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Decodes text[0..length) in place: a '%' without two hex digits stays as it is (as the
 * simulator's parseForm has it). Its decoded length. */
static size_t form_decode(char *text, size_t length) {
  size_t out = 0;
  for (size_t i = 0; i < length; i++) {
    int high = text[i] == '%' && i + 2 < length ? hex_digit(text[i + 1]) : -1;
    int low = high >= 0 ? hex_digit(text[i + 2]) : -1;
    if (low >= 0) {
      text[out++] = (char)(high * 16 + low);
      i += 2;
    } else {
      text[out++] = text[i] == '+' ? ' ' : text[i];
    }
  }
  return out;
}

void app_page_form_parse(char *body, size_t length, app_page_form *form) {
  form->count = 0;
  body[length] = '\0';
  for (char *pair = body; pair < body + length && form->count < APP_PAGE_FORM_FIELDS;) {
    char *end = memchr(pair, '&', (size_t)(body + length - pair));
    if (!end) end = body + length;
    char *eq = memchr(pair, '=', (size_t)(end - pair));
    char *value = eq ? eq + 1 : end;
    char *name_end = eq ? eq : end;
    if (end > pair) {
      size_t value_len = form_decode(value, (size_t)(end - value));
      value[value_len] = '\0';
      pair[form_decode(pair, (size_t)(name_end - pair))] = '\0';
      form->fields[form->count++] = (app_page_field){pair, value, value_len};
    }
    pair = end + 1;
  }
}

const app_page_field *app_page_form_get(const app_page_form *form, const char *name) {
  for (size_t i = 0; i < form->count; i++) {
    if (strcmp(form->fields[i].name, name) == 0) return &form->fields[i];
  }
  return NULL;
}

uint32_t app_page_sleep_seconds(const char *text, size_t length) {
  if (length < 1 || length > 4 || strspn(text, "0123456789") != length) return 0;
  unsigned long seconds = strtoul(text, NULL, 10);
  return seconds >= 1 && seconds <= 3600 ? (uint32_t)seconds : 0;
}

size_t app_page_answer_json(int status, const char *text, char *out, size_t size) {
  int ok = status == 200;
  size_t len = (size_t)snprintf(out, size, "{\"ok\":%s,\"%s\":\"", ok ? "true" : "false", ok ? "message" : "error");
  for (const char *c = text; *c && len + 3 < size; c++) {
    if (*c == '"' || *c == '\\') out[len++] = '\\';
    out[len++] = *c;
  }
  if (len + 3 > size) len = size - 3;
  memcpy(out + len, "\"}", 3);
  return len + 2;
}

void app_page_without_credentials(const char *url, char *out, size_t size) {
  const char *scheme = strstr(url, "://");
  const char *at = scheme ? strchr(scheme + 3, '@') : NULL;
  const char *slash = scheme ? strchr(scheme + 3, '/') : NULL;
  if (!at || (slash && slash < at)) {
    snprintf(out, size, "%s", url);
    return;
  }
  snprintf(out, size, "%.*s***%s", (int)(scheme + 3 - url), url, at);
}
