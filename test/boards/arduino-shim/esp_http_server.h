/* Stand-in for ESP-IDF's esp_http_server.h (the component arduino-esp32 2.x ships from
 * ESP-IDF 4.4 and 3.x from ESP-IDF 5), declarations only, as far as the sketch uses it; see
 * Arduino.h. httpd_config_t and HTTPD_DEFAULT_CONFIG() have each layout's members in its
 * order (ESP_IDF_VERSION_MAJOR 5 adds the keep-alive ones), so that code filling the
 * configuration type-checks against both. http_parser.h's methods are declared here. */
#ifndef ESP_HTTP_SERVER_SHIM_H
#define ESP_HTTP_SERVER_SHIM_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "Arduino.h"
#include "esp_idf_version.h"
#include "esp_system.h"

enum http_method { HTTP_DELETE = 0, HTTP_GET = 1, HTTP_HEAD = 2, HTTP_POST = 3, HTTP_PUT = 4 };

#define tskIDLE_PRIORITY 0
#define tskNO_AFFINITY 0x7fffffff
#define ESP_FAIL -1
#define ESP_ERR_HTTPD_BASE (0xb000)
#define ESP_ERR_HTTPD_RESULT_TRUNC (ESP_ERR_HTTPD_BASE + 4)

typedef void *httpd_handle_t;
typedef enum http_method httpd_method_t;
typedef void (*httpd_free_ctx_fn_t)(void *ctx);
typedef esp_err_t (*httpd_open_func_t)(httpd_handle_t hd, int sockfd);
typedef void (*httpd_close_func_t)(httpd_handle_t hd, int sockfd);
typedef bool (*httpd_uri_match_func_t)(const char *reference_uri, const char *uri_to_match, size_t match_upto);

typedef struct httpd_config {
  unsigned task_priority;
  size_t stack_size;
  BaseType_t core_id;
  uint16_t server_port;
  uint16_t ctrl_port;
  uint16_t max_open_sockets;
  uint16_t max_uri_handlers;
  uint16_t max_resp_headers;
  uint16_t backlog_conn;
  bool lru_purge_enable;
  uint16_t recv_wait_timeout;
  uint16_t send_wait_timeout;
  void *global_user_ctx;
  httpd_free_ctx_fn_t global_user_ctx_free_fn;
  void *global_transport_ctx;
  httpd_free_ctx_fn_t global_transport_ctx_free_fn;
  bool enable_so_linger;
  int linger_timeout;
#if ESP_IDF_VERSION_MAJOR >= 5
  bool keep_alive_enable;
  int keep_alive_idle;
  int keep_alive_interval;
  int keep_alive_count;
#endif
  httpd_open_func_t open_fn;
  httpd_close_func_t close_fn;
  httpd_uri_match_func_t uri_match_fn;
} httpd_config_t;

#if ESP_IDF_VERSION_MAJOR >= 5
#define HTTPD_KEEP_ALIVE_DEFAULTS .keep_alive_enable = false, .keep_alive_idle = 0, .keep_alive_interval = 0, .keep_alive_count = 0,
#else
#define HTTPD_KEEP_ALIVE_DEFAULTS
#endif
#define HTTPD_DEFAULT_CONFIG()                                                                                      \
  {                                                                                                                 \
    .task_priority = tskIDLE_PRIORITY + 5, .stack_size = 4096, .core_id = tskNO_AFFINITY, .server_port = 80,      \
    .ctrl_port = 32768, .max_open_sockets = 7, .max_uri_handlers = 8, .max_resp_headers = 8, .backlog_conn = 5,    \
    .lru_purge_enable = false, .recv_wait_timeout = 5, .send_wait_timeout = 5, .global_user_ctx = NULL,           \
    .global_user_ctx_free_fn = NULL, .global_transport_ctx = NULL, .global_transport_ctx_free_fn = NULL,          \
    .enable_so_linger = false, .linger_timeout = 0, HTTPD_KEEP_ALIVE_DEFAULTS.open_fn = NULL, .close_fn = NULL,   \
    .uri_match_fn = NULL                                                                                            \
  }

#define HTTPD_MAX_URI_LEN 512
typedef struct httpd_req {
  httpd_handle_t handle;
  int method;
  const char uri[HTTPD_MAX_URI_LEN + 1];
  size_t content_len;
  void *aux;
  void *user_ctx;
  void *sess_ctx;
  httpd_free_ctx_fn_t free_ctx;
  bool ignore_sess_ctx_changes;
} httpd_req_t;

typedef struct httpd_uri {
  const char *uri;
  httpd_method_t method;
  esp_err_t (*handler)(httpd_req_t *r);
  void *user_ctx;
} httpd_uri_t;

typedef enum {
  HTTPD_500_INTERNAL_SERVER_ERROR = 0,
  HTTPD_501_METHOD_NOT_IMPLEMENTED,
  HTTPD_505_VERSION_NOT_SUPPORTED,
  HTTPD_400_BAD_REQUEST,
  HTTPD_401_UNAUTHORIZED,
  HTTPD_403_FORBIDDEN,
  HTTPD_404_NOT_FOUND,
  HTTPD_405_METHOD_NOT_ALLOWED,
  HTTPD_408_REQ_TIMEOUT,
  HTTPD_411_LENGTH_REQUIRED,
  HTTPD_414_URI_TOO_LONG,
  HTTPD_431_REQ_HDR_FIELDS_TOO_LARGE,
  HTTPD_ERR_CODE_MAX
} httpd_err_code_t;
typedef esp_err_t (*httpd_err_handler_func_t)(httpd_req_t *req, httpd_err_code_t error);

esp_err_t httpd_start(httpd_handle_t *handle, const httpd_config_t *config);
esp_err_t httpd_register_uri_handler(httpd_handle_t handle, const httpd_uri_t *uri_handler);
esp_err_t httpd_register_err_handler(httpd_handle_t handle, httpd_err_code_t error,
                                     httpd_err_handler_func_t handler_fn);
int httpd_req_recv(httpd_req_t *r, char *buf, size_t buf_len);
int httpd_req_to_sockfd(httpd_req_t *r);
esp_err_t httpd_req_get_hdr_value_str(httpd_req_t *r, const char *field, char *val, size_t val_size);
esp_err_t httpd_req_get_url_query_str(httpd_req_t *r, char *buf, size_t buf_len);
bool httpd_uri_match_wildcard(const char *uri_template, const char *uri_to_match, size_t match_upto);
esp_err_t httpd_resp_send(httpd_req_t *r, const char *buf, ssize_t buf_len);
esp_err_t httpd_resp_set_status(httpd_req_t *r, const char *status);
esp_err_t httpd_resp_set_type(httpd_req_t *r, const char *type);
esp_err_t httpd_resp_set_hdr(httpd_req_t *r, const char *field, const char *value);

#endif
