/*
 * test_srv_http.c - the metrics HTTP server over real sockets: GET
 * /metrics answers the exposition with its content type, HEAD has no
 * body, /healthz is ok, an unknown path is 404 and another method 405 with
 * Allow; a client that connects and sends nothing neither blocks other
 * requests nor stays connected past the idle timeout; bad addresses and a
 * port in use are errors naming them; stopping closes the port.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/metrics.h"
#include "base/metrics_text.h"
#include "base/time.h"
#include "server/srv_metrics.h"
#include "test.h"

static int connect_to(uint16_t port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
    close(fd);
    return -1;
  }
  struct timeval tv = {5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  return fd;
}

/* Sends req and reads the whole response (the request asks to close). */
static char *http(uint16_t port, const char *req) {
  int fd = connect_to(port);
  if (fd < 0) return NULL;
  if (write(fd, req, strlen(req)) != (ssize_t)strlen(req)) {
    close(fd);
    return NULL;
  }
  fl_buf_t b;
  fl_buf_init(&b);
  char chunk[4096];
  ssize_t n;
  while ((n = read(fd, chunk, sizeof chunk)) > 0) fl_buf_append(&b, chunk, (size_t)n);
  close(fd);
  fl_buf_append_u8(&b, 0);
  return (char *)fl_buf_steal(&b, &(size_t){0});
}

static const char *body_of(const char *resp) {
  const char *p = strstr(resp, "\r\n\r\n");
  return p ? p + 4 : "";
}

TEST(http_metrics_endpoints_and_errors) {
  fl_err_t err;
  fl_metrics_t *r = fl_metrics_new();
  fl_counter_t *c;
  fl_label_t l[] = {{"topic", "q\"t"}};
  CHECK_OK(fl_metrics_counter(r, "floe_test_records_total", "Records.", l, 1, &c, &err), &err);
  fl_counter_add(c, 41);
  srv_http_t *s;
  srv_http_opts_t o = {.port = 0};
  CHECK_OK(srv_metrics_start(r, &o, &s, &err), &err);
  uint16_t port = srv_http_port(s);
  CHECK(port != 0);
  char want_addr[32];
  snprintf(want_addr, sizeof want_addr, "127.0.0.1:%u", port);
  CHECK_STR(srv_http_address(s), want_addr);
  fl_counter_inc(c);
  char *resp = http(port, "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  CHECK(resp != NULL);
  CHECK(strncmp(resp, "HTTP/1.1 200", 12) == 0);
  CHECK(strstr(resp, "Content-Type: " FL_METRICS_TEXT_CONTENT_TYPE "\r\n") != NULL);
  CHECK_STR(body_of(resp),
            "# HELP floe_test_records_total Records.\n"
            "# TYPE floe_test_records_total counter\n"
            "floe_test_records_total{topic=\"q\\\"t\"} 42\n");
  fl_free(resp);
  resp = http(port, "HEAD /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  CHECK(resp && strncmp(resp, "HTTP/1.1 200", 12) == 0);
  CHECK_STR(body_of(resp), "");
  fl_free(resp);
  resp = http(port, "GET /healthz HTTP/1.0\r\n\r\n");
  CHECK(resp && strncmp(resp, "HTTP/1.", 7) == 0 && strncmp(resp + 8, " 200", 4) == 0);
  CHECK_STR(body_of(resp), "ok\n");
  fl_free(resp);
  resp = http(port, "GET /metrics/extra HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  CHECK(resp && strncmp(resp, "HTTP/1.1 404", 12) == 0);
  fl_free(resp);
  resp = http(port,
              "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nConnection: "
              "close\r\n\r\nhello");
  CHECK(resp && strncmp(resp, "HTTP/1.1 405", 12) == 0);
  CHECK(strstr(resp, "Allow: GET, HEAD\r\n") != NULL);
  fl_free(resp);
  resp = http(port, "DELETE /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  CHECK(resp && strncmp(resp, "HTTP/1.1 405", 12) == 0);
  fl_free(resp);
  /* Garbage is answered (400) or dropped, never a hang or a crash. */
  resp = http(port, "\x01\x02 nonsense\r\n\r\n");
  CHECK(resp != NULL);
  fl_free(resp);
  srv_http_stop(s);
  /* The port is closed after stop. */
  CHECK_EQ(connect_to(port), -1);
  fl_metrics_free(r);
}

TEST(http_silent_clients_do_not_block) {
  fl_err_t err;
  fl_metrics_t *r = fl_metrics_new();
  srv_http_t *s;
  srv_http_opts_t o = {.port = 0, .timeout_s = 1, .max_connections = 16};
  CHECK_OK(srv_metrics_start(r, &o, &s, &err), &err);
  uint16_t port = srv_http_port(s);
  /* Several clients connect and send nothing, one sends half a request. */
  int idle[4];
  for (int i = 0; i < 4; i++) CHECK((idle[i] = connect_to(port)) >= 0);
  CHECK(write(idle[3], "GET /metr", 9) == 9);
  int64_t t0 = fl_monotonic_ns();
  for (int i = 0; i < 5; i++) {
    char *resp = http(port, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    CHECK(resp && strncmp(resp, "HTTP/1.1 200", 12) == 0);
    fl_free(resp);
  }
  CHECK((fl_monotonic_ns() - t0) / 1000000 < 900); /* well before the idle timeout */
  /* The silent ones are closed by the server after the timeout. */
  for (int i = 0; i < 4; i++) {
    struct pollfd p = {.fd = idle[i], .events = POLLIN};
    CHECK_EQ(poll(&p, 1, 5000), 1);
    char ch;
    ssize_t n = read(idle[i], &ch, 1);
    CHECK(n <= 0 || i == 3); /* EOF (or a 408 answer to the half request) */
    close(idle[i]);
  }
  srv_http_stop(s);
  fl_metrics_free(r);
}

TEST(http_bind_errors_name_the_address) {
  fl_err_t err;
  fl_metrics_t *r = fl_metrics_new();
  srv_http_t *s, *s2;
  srv_http_opts_t bad = {.bind = "not an address", .port = 0};
  CHECK_ERR(srv_metrics_start(r, &bad, &s, &err), FL_EINVALID);
  CHECK(strstr(err.msg, "not an address") != NULL);
  srv_http_opts_t o = {.port = 0};
  CHECK_OK(srv_metrics_start(r, &o, &s, &err), &err);
  srv_http_opts_t same = {.bind = "127.0.0.1", .port = srv_http_port(s)};
  CHECK_ERR(srv_metrics_start(r, &same, &s2, &err), FL_EEXISTS);
  CHECK(strstr(err.msg, "127.0.0.1") != NULL);
  srv_http_stop(s);
  /* IPv6 loopback, when the machine has it. */
  srv_http_opts_t v6 = {.bind = "[::1]", .port = 0};
  if (srv_metrics_start(r, &v6, &s, &err) == FL_OK) {
    CHECK(strncmp(srv_http_address(s), "[::1]:", 6) == 0);
    srv_http_stop(s);
  }
  fl_metrics_free(r);
}
