/* See asks.h. */
#include "asks.h"

#include <string.h>

#include "generated/page_routes.h"
#include "settings.h"

static int stored(const app_hal *hal, const char *key, const char *value) {
  return hal->nvs_put_string(hal->ctx, key, value) == strlen(value);
}

static int store_broker(const app_hal *hal, const app_broker_settings *b) {
  return stored(hal, "mqurl", b->url) && stored(hal, "mqid", b->client_id) && stored(hal, "mquser", b->username) &&
         stored(hal, "mqpass", b->password) && stored(hal, "mqtopic", b->topic);
}

static void answer(app_form_ask *ask, int status, const char *message) {
  ask->kind = APP_FORM_ASK_NONE;
  ask->answer_status = status;
  ask->answer = message;
  ask->answer_field = NULL;
}

/* The form's checks, then the URL with hidden credentials put back into `merged`: the
 * refused field, or NULL. */
static const char *settings_refused(const app_settings_ask *s, const char *stored_url, char *merged, size_t size) {
  app_settings_problem problem = app_settings_check(s->ssid, s->ssid_len, s->pass, s->pass_len, s->url, s->url_len);
  if (problem != APP_SETTINGS_OK) return app_settings_field(problem);
  if (app_settings_credentials(stored_url, s->url, merged, size) != APP_SETTINGS_CREDENTIALS_OK) return "upstreamUrl";
  return NULL;
}

int app_asks_store_settings(const app_hal *hal, const char *ssid, const char *pass, const char *url,
                            const app_broker_settings *broker, const char **message) {
  if (!stored(hal, APP_SSID_KEY, ssid) || !stored(hal, APP_WIFI_PASS_KEY, pass) || !stored(hal, APP_URL_KEY, url) ||
      !store_broker(hal, broker)) {
    *message = PAGE_MSG_STORE_FAILED;
    return 507;
  }
  hal->nvs_put_u32(hal->ctx, APP_WIFI_FAILS_KEY, 0); /* new settings get their own tries */
  *message = PAGE_MSG_SETTINGS_SAVED_RESTARTING;
  return 200;
}

int app_asks_store_password(const app_hal *hal, const char *hash, int first_setup, const char **message) {
  int set = hal->nvs_get_string(hal->ctx, APP_DEVICE_PASSWORD_KEY, "", NULL, 0) > 0;
  if (first_setup && set) return *message = PAGE_MSG_PASSWORD_ALREADY_SET, 409;
  if (!stored(hal, APP_DEVICE_PASSWORD_KEY, hash)) return *message = PAGE_MSG_STORE_FAILED, 507;
  *message = first_setup ? PAGE_MSG_PASSWORD_SET : PAGE_MSG_PASSWORD_CHANGED;
  return 200;
}

static void settings(app_requests *r, const app_hal *hal, const char *stored_url) {
  const app_settings_ask *s = &r->form.settings;
  char merged[sizeof s->url];
  const char *refused = settings_refused(s, stored_url, merged, sizeof merged);
  if (refused) {
    answer(&r->form, 400, PAGE_MSG_SETTINGS_REFUSED);
    r->form.answer_field = refused;
    return;
  }
  const char *message;
  int status = app_asks_store_settings(hal, s->ssid, s->pass, merged, &s->broker, &message);
  answer(&r->form, status, message);
  if (status == 200) app_requests_ask_restart(r);
}

/* A first setup that another one beat while its hash was computed changes nothing. */
static void password(app_requests *r, const app_hal *hal) {
  const char *message;
  int status = app_asks_store_password(hal, r->form.password_hash, r->form.first_setup, &message);
  answer(&r->form, status, message);
}

void app_asks_apply(app_requests *r, const app_hal *hal, const char *stored_url) {
  if (r->form.kind == APP_FORM_ASK_SETTINGS) settings(r, hal, stored_url);
  else if (r->form.kind == APP_FORM_ASK_PASSWORD) password(r, hal);
}
