// See page_server.h.
#include "page_server.h"

#include <esp_http_server.h>
#include <esp_system.h>
#if __has_include(<esp_random.h>)  // ESP-IDF 5 moved it out of esp_system.h
#include <esp_random.h>
#endif
#include <stdlib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <string.h>

#include "broker.h"
#include "generated/app_config.h"
#include "generated/page_routes.h"
#include "generated/setup_page.h"
#include "generated/tickretry_build_key.h"
#include "module_signature.h"
#include "page.h"
#include "page_handoff.h"
#include "password.h"
#include "settings.h"
#include "status.h"

// The server's limits. A slow client holds its own connection for at most the receive
// timeout per read, and at most PAGE_SOCKETS connections are open (a new one closes the
// least recently used). PBKDF2 and the Ed25519 check run on this task, at the loop task's
// priority, so they share the CPU with the loop instead of preempting it.
#define PAGE_SOCKETS 4
#define PAGE_TIMEOUT_S 5
#define PAGE_TASK_STACK_BYTES 8192
#define PAGE_TASK_PRIORITY 1  // the Arduino loop task's

// One server task, one handler at a time: these are its alone.
static httpd_handle_t server;
static app_password_guess_limit guesses;
static PageView view;  // this request's copy of the loop's
static char form_body[APP_PAGE_FORM_BYTES + 1];
static app_page_form form;

// What a route is, from the contract's table.
struct Route {
  esp_err_t (*handler)(httpd_req_t *req);
  int guard, body;
};

static const char *status_line(int status) {
  switch (status) {
    case 200: return "200 OK";
    case 400: return "400 Bad Request";
    case 401: return "401 Unauthorized";
    case 403: return "403 Forbidden";
    case 404: return "404 Not Found";
    case 405: return "405 Method Not Allowed";
    case 409: return "409 Conflict";
    case 413: return "413 Payload Too Large";
    case 421: return "421 Misdirected Request";
    case 422: return "422 Unprocessable Entity";
    case 429: return "429 Too Many Requests";
    case 503: return "503 Service Unavailable";
    case 507: return "507 Insufficient Storage";
    default: return "500 Internal Server Error";
  }
}

// A refusal closes its connection (ESP_FAIL), so that a body left unread is not read.
static esp_err_t respond(httpd_req_t *req, int status, const char *type, const char *body, size_t length) {
  httpd_resp_set_status(req, status_line(status));
  httpd_resp_set_type(req, type);
  if (status >= 400) httpd_resp_set_hdr(req, "Connection", "close");
  bool sent = httpd_resp_send(req, body, ssize_t(length)) == ESP_OK;
  return sent && status < 400 ? ESP_OK : ESP_FAIL;
}

static esp_err_t send_text(httpd_req_t *req, int status, const char *text) {
  static char line[APP_PAGE_ANSWER_BYTES];
  snprintf(line, sizeof line, "%s\n", text);
  return respond(req, status, "text/plain", line, strlen(line));
}

static esp_err_t send_json(httpd_req_t *req, int status, const char *text) {
  static char body[APP_PAGE_ANSWER_BYTES];
  size_t length = app_page_answer_json(status, text, body, sizeof body);
  httpd_resp_set_hdr(req, "Cache-Control", "no-store");
  return respond(req, status, "application/json", body, length);
}

// A header's value into `out`; "" when absent, false when longer than `out` (which no
// guard then accepts).
template <size_t size>
static bool header(httpd_req_t *req, const char *name, char (&out)[size]) {
  esp_err_t got = httpd_req_get_hdr_value_str(req, name, out, size);
  if (got != ESP_OK) out[0] = '\0';
  return got != ESP_ERR_HTTPD_RESULT_TRUNC;
}

static bool same_origin(httpd_req_t *req, const char *host) {
  static char site[32], origin[160], referer[256];
  return header(req, "Sec-Fetch-Site", site) && header(req, "Origin", origin) && header(req, "Referer", referer) &&
         app_page_same_origin(host, site, origin, referer);
}

// The client's IPv4 address, for the guess limit (0 when unknown). lwIP serves IPv4 clients
// on an IPv6 socket as mapped addresses, whose last four bytes are the IPv4 one.
static uint32_t client_address(httpd_req_t *req) {
  struct sockaddr_storage peer;
  socklen_t length = sizeof peer;
  uint32_t address = 0;
  if (getpeername(httpd_req_to_sockfd(req), reinterpret_cast<struct sockaddr *>(&peer), &length) != 0) return 0;
  if (peer.ss_family == AF_INET) memcpy(&address, &reinterpret_cast<struct sockaddr_in *>(&peer)->sin_addr, 4);
  if (peer.ss_family == AF_INET6) memcpy(&address, &reinterpret_cast<struct sockaddr_in6 *>(&peer)->sin6_addr.s6_addr[12], 4);
  return address;
}

// The password runs through PBKDF2 here, on the server's task; the guess limit's clock is
// the loop's tick as of its last pass.
static esp_err_t refused_password(httpd_req_t *req) {
  static char given[APP_PASSWORD_STORED_MAX];
  if (!header(req, "X-Device-Password", given)) given[0] = '\0';
  app_page_refusal refusal;
  uint32_t address = client_address(req);
  if (app_page_password_given(&guesses, address, view.now, view.stored_password, given, &refusal)) return ESP_OK;
  static char retry_after[12];
  if (refusal.retry_after_s > 0) {
    snprintf(retry_after, sizeof retry_after, "%lu", (unsigned long)refusal.retry_after_s);
    httpd_resp_set_hdr(req, "Retry-After", retry_after);
  }
  send_json(req, refusal.status, refusal.error);
  return ESP_FAIL;
}

// A body of `length` bytes into `out`; false when the client closed or sent nothing within
// the receive timeout.
static bool receive(httpd_req_t *req, char *out, size_t length) {
  for (size_t have = 0; have < length;) {
    int got = httpd_req_recv(req, out + have, length - have);
    if (got <= 0) return false;
    have += size_t(got);
  }
  return true;
}

// A form post's body, at most APP_PAGE_FORM_BYTES, decoded into `form`.
static esp_err_t read_form(httpd_req_t *req) {
  form.count = 0;
  if (req->content_len > APP_PAGE_FORM_BYTES) return send_json(req, 413, PAGE_MSG_FORM_TOO_LARGE);
  if (!receive(req, form_body, req->content_len)) return ESP_FAIL;
  app_page_form_parse(form_body, req->content_len, &form);
  return ESP_OK;
}

// What every route passes before its handler: the Host (every route, not only the files),
// for a post its origin, then its guard, then its body's size.
static esp_err_t guarded(httpd_req_t *req, const Route &route) {
  static char host[64];
  page_handoff_view(&view);
  if (!header(req, "Host", host) || !app_page_host_allowed(host, view.ap_ip, view.local_ip)) {
    return send_text(req, 421, PAGE_MSG_WRONG_HOST);
  }
  if (req->method == HTTP_POST && !same_origin(req, host)) return send_json(req, 403, PAGE_MSG_CROSS_SITE);
  if (route.guard != PAGE_GUARD_OPEN && !view.nvs_ok) return send_json(req, 503, PAGE_MSG_STORE_FAILED);
  bool first_setup = route.guard == PAGE_GUARD_FIRST_SETUP && view.stored_password[0] == '\0';
  if (route.guard != PAGE_GUARD_OPEN && !first_setup && refused_password(req) != ESP_OK) return ESP_FAIL;
  if (route.body == PAGE_BODY_FORM && read_form(req) != ESP_OK) return ESP_FAIL;
  return route.handler(req);
}

static esp_err_t routed(httpd_req_t *req) { return guarded(req, *static_cast<const Route *>(req->user_ctx)); }

// The loop's answer to an ask, or 503 when the loop did not take it in time.
static esp_err_t ask(httpd_req_t *req, app_ask_kind kind, uint32_t number = 0, void *data = nullptr, size_t size = 0) {
  static char text[APP_ASK_TEXT_BYTES];
  int status = 0;
  if (!page_handoff_ask(kind, number, data, size, &status, text, sizeof text)) {
    return send_json(req, 503, PAGE_MSG_LOOP_BUSY);
  }
  return send_json(req, status, text);
}

static void security_headers(httpd_req_t *req) {
  httpd_resp_set_hdr(req, "Content-Security-Policy",
                     "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'; style-src 'self'; "
                     "img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
  httpd_resp_set_hdr(req, "X-Content-Type-Options", "nosniff");
}

// Every file of the page, straight from flash: what no route of the contract names.
static esp_err_t handle_file(httpd_req_t *req) {
  if (req->method != HTTP_GET) return send_text(req, 405, PAGE_MSG_WRONG_METHOD);
  size_t path_length = strcspn(req->uri, "?");
  for (const page_asset &a : PAGE_ASSETS) {
    if (strlen(a.path) != path_length || strncmp(req->uri, a.path, path_length) != 0) continue;
    security_headers(req);
    httpd_resp_set_hdr(req, "Content-Encoding", "gzip");
    return respond(req, 200, a.type, reinterpret_cast<const char *>(a.gzip), a.length);
  }
  return send_text(req, 404, PAGE_MSG_NOT_FOUND);
}
static const Route FILES = {handle_file, PAGE_GUARD_OPEN, PAGE_BODY_NONE};

// No route for the path and method: the files' guard and answers (a 404 or a 405).
static esp_err_t unrouted(httpd_req_t *req, httpd_err_code_t) { return guarded(req, FILES); }

// The loop makes the status into this buffer while the handler waits for it.
static esp_err_t handle_status(httpd_req_t *req) {
  static char json[12 * 1024];
  static char query[64];
  uint32_t since = 0;
  if (httpd_req_get_url_query_str(req, query, sizeof query) == ESP_OK) {
    app_page_form_parse(query, strlen(query), &form);
    const app_page_field *field = app_page_form_get(&form, "since");
    if (field) since = app_status_since(field->value);
  }
  static char text[APP_ASK_TEXT_BYTES];
  int status = 0;
  if (!page_handoff_ask(APP_ASK_STATUS, since, json, sizeof json, &status, text, sizeof text)) {
    return send_json(req, 503, PAGE_MSG_LOOP_BUSY);
  }
  if (status != 200) return send_text(req, status, text);
  httpd_resp_set_hdr(req, "Cache-Control", "no-store");
  return respond(req, 200, "application/json", json, strlen(json));
}

// The module the playground runs: a copy, since the loop may swap it meanwhile.
static esp_err_t handle_module_bytes(httpd_req_t *req) {
  size_t size = 0;
  uint8_t *bytes = page_handoff_module(&size);
  if (!bytes) return send_text(req, 503, PAGE_MSG_LOOP_BUSY);
  security_headers(req);
  esp_err_t sent = respond(req, 200, "application/wasm", reinterpret_cast<const char *>(bytes), size);
  free(bytes);
  return sent;
}

// The first setup sets the device password without one (the guard let it through only
// while none was stored; the loop refuses it if one was stored meanwhile); changing it
// needs the current one.
static esp_err_t handle_password(httpd_req_t *req) {
  bool first = view.stored_password[0] == '\0';
  const app_page_field *password = app_page_form_get(&form, "password");
  if (!password || !app_password_acceptable(password->value) || strlen(password->value) != password->value_len) {
    return send_json(req, 400, PAGE_MSG_PASSWORD_RULE);
  }
  uint8_t salt[APP_PASSWORD_SALT_BYTES];
  esp_fill_random(salt, sizeof salt);
  static char stored[APP_PASSWORD_STORED_MAX];
  if (app_password_hash(password->value, salt, stored, sizeof stored) != 0) {
    return send_json(req, 500, PAGE_MSG_PASSWORD_HASH_FAILED);
  }
  return ask(req, APP_ASK_PASSWORD, first ? 1 : 0, stored, sizeof stored);
}

// A field of the form, or `fallback` (a stored value) when the form does not carry it.
static app_page_field field_or(const char *name, const char *fallback) {
  const app_page_field *field = app_page_form_get(&form, name);
  return field ? *field : app_page_field{name, fallback, strlen(fallback)};
}

// The broker fields of the form (a field it does not carry keeps its stored value), checked
// as the simulator checks them (broker.c); into `out` when they pass.
static app_broker_problem broker_form(app_broker_settings *out) {
  const app_broker_settings &b = view.broker;
  const app_page_field v[] = {field_or("brokerUrl", b.url), field_or("brokerClientId", b.client_id),
                              field_or("brokerUsername", b.username), field_or("brokerPassword", b.password),
                              field_or("brokerTopic", b.topic)};
  app_broker_form checked = {v[0].value,     v[1].value,     v[2].value,     v[3].value,     v[4].value,
                             v[0].value_len, v[1].value_len, v[2].value_len, v[3].value_len, v[4].value_len};
  app_broker_problem problem = app_broker_check(&checked);
  if (problem != APP_BROKER_OK) return problem;
  strlcpy(out->url, v[0].value, sizeof out->url);
  strlcpy(out->client_id, v[1].value, sizeof out->client_id);
  strlcpy(out->username, v[2].value, sizeof out->username);
  strlcpy(out->password, v[3].value, sizeof out->password);
  strlcpy(out->topic, v[4].value, sizeof out->topic);
  return APP_BROKER_OK;
}

// The same checks as the simulator's (settings.c, tested beside
// host/tools/src/device/app/settings.ts); a form with any bad field stores nothing. Hidden
// credentials in the URL ("***") are put back only for their own scheme, host and port.
static esp_err_t handle_settings(httpd_req_t *req) {
  app_page_field ssid = field_or("ssid", ""), pass = field_or("password", ""), url = field_or("upstreamUrl", "");
  app_settings_problem problem =
      app_settings_check(ssid.value, ssid.value_len, pass.value, pass.value_len, url.value, url.value_len);
  if (problem != APP_SETTINGS_OK) return send_json(req, 400, app_settings_meaning(problem));
  static PageSettings settings;
  app_broker_problem broker_problem = broker_form(&settings.broker);
  if (broker_problem != APP_BROKER_OK) return send_json(req, 400, app_broker_meaning(broker_problem));
  app_settings_credentials_result credentials =
      app_settings_credentials(view.upload_url, url.value, settings.url, sizeof settings.url);
  if (credentials != APP_SETTINGS_CREDENTIALS_OK) {
    return send_json(req, 400, app_settings_credentials_meaning(credentials));
  }
  strlcpy(settings.ssid, ssid.value, sizeof settings.ssid);
  strlcpy(settings.pass, pass.value, sizeof settings.pass);
  return ask(req, APP_ASK_SETTINGS, 0, &settings, sizeof settings);
}

static esp_err_t handle_upload(httpd_req_t *req) { return ask(req, APP_ASK_UPLOAD); }
static esp_err_t handle_loop_reset(httpd_req_t *req) { return ask(req, APP_ASK_LOOP_RESET); }

// "Reboot" and "Deep sleep for N s", as the simulator has them: after the answer has left,
// the board restarts (and resumes from RTC memory) or sleeps (and resumes from it).
static esp_err_t handle_reboot(httpd_req_t *req) { return ask(req, APP_ASK_RESTART); }

static esp_err_t handle_sleep(httpd_req_t *req) {
  const app_page_field *field = app_page_form_get(&form, "s");
  uint32_t seconds = field ? app_page_sleep_seconds(field->value, field->value_len) : 0;
  if (seconds == 0) return send_json(req, 400, PAGE_MSG_SLEEP_RULE);
  return ask(req, APP_ASK_SLEEP, seconds * 1000);
}

#if TICKRETRY_BACKEND_WASM3
// Replacing the module over the air (page_loop.cpp swaps it in): the upload, the module
// then the build key's Ed25519 signature over it (`npm run sign`), is read into RAM only
// once the guard passed, and its signature checked here before the loop sees a byte of it.
static esp_err_t handle_module(httpd_req_t *req) {
  if (!app_page_module_fits(0, req->content_len)) return send_json(req, 413, PAGE_MSG_MODULE_TOO_LARGE);
  uint8_t *incoming = static_cast<uint8_t *>(req->content_len > 0 ? malloc(req->content_len) : nullptr);
  if (!incoming) return send_json(req, 400, PAGE_MSG_NO_MODULE);
  if (!receive(req, reinterpret_cast<char *>(incoming), req->content_len)) {
    free(incoming);
    return ESP_FAIL;
  }
  size_t module_size = 0;
  module_signature_result signature =
      module_signature_check(incoming, req->content_len, tickretry_build_key, &module_size);
  static char text[APP_ASK_TEXT_BYTES];
  if (signature != MODULE_SIGNATURE_OK) {
    free(incoming);
    snprintf(text, sizeof text, "%s%s.", PAGE_MSG_MODULE_REFUSED, module_signature_meaning(signature));
    return send_json(req, 422, text);
  }
  int status = 0;
  if (!page_handoff_ask(APP_ASK_MODULE, 0, incoming, module_size, &status, text, sizeof text)) {
    free(incoming);  // the loop never took it
    return send_json(req, 503, PAGE_MSG_LOOP_BUSY);
  }
  return send_json(req, status, text);
}
#endif

// The contract's table: every route through routed(), so none can skip the guard.
struct Registered {
  const char *path;
  httpd_method_t method;
  Route route;
};
#define ROUTE(path, method, handler, guard, body) {path, method, {handler, guard, body}},
static const Registered ROUTES[] = {PAGE_ROUTES(ROUTE)
#if TICKRETRY_BACKEND_WASM3
                                        PAGE_ROUTES_WASM3(ROUTE)
#endif
};
#undef ROUTE
static const Registered FILE_ROUTE = {"/*", HTTP_GET, FILES};

static void register_route(const Registered &r) {
  httpd_uri_t uri = {};
  uri.uri = r.path;
  uri.method = r.method;
  uri.handler = routed;
  uri.user_ctx = const_cast<Route *>(&r.route);
  httpd_register_uri_handler(server, &uri);
}

bool page_server_begin() {
  httpd_config_t config = HTTPD_DEFAULT_CONFIG();
  config.task_priority = PAGE_TASK_PRIORITY;
  config.stack_size = PAGE_TASK_STACK_BYTES;
  config.max_open_sockets = PAGE_SOCKETS;
  config.lru_purge_enable = true;
  config.recv_wait_timeout = PAGE_TIMEOUT_S;
  config.send_wait_timeout = PAGE_TIMEOUT_S;
  config.max_uri_handlers = sizeof ROUTES / sizeof ROUTES[0] + 1;
  config.uri_match_fn = httpd_uri_match_wildcard;  // for the files' "/*"
  if (httpd_start(&server, &config) != ESP_OK) return false;
  for (const Registered &r : ROUTES) register_route(r);
  register_route(FILE_ROUTE);  // after the contract's: the first route that matches serves
  httpd_register_err_handler(server, HTTPD_404_NOT_FOUND, unrouted);
  httpd_register_err_handler(server, HTTPD_405_METHOD_NOT_ALLOWED, unrouted);
  return true;
}
