/*
 * srv_http.h - a small HTTP/1.1 server for floe's read-only endpoints
 * (layer 11, server).
 *
 * Built on libmicrohttpd with one internal event-loop thread (epoll or
 * poll): a slow or silent client holds only its own connection, which is
 * closed after the idle timeout, and the number of connections is capped,
 * so no client can stall the others. Routes are exact paths answered to
 * GET (and HEAD, without the body); another method on a known path is 405
 * with an Allow header, an unknown path 404.
 *
 * Handlers run in the server's thread; they must be quick and thread-safe
 * with respect to whatever they read.
 */
#ifndef FL_SERVER_SRV_HTTP_H
#define FL_SERVER_SRV_HTTP_H

#include <stdint.h>

#include "base/buf.h"
#include "base/error.h"

typedef struct srv_http srv_http_t;

/* What a handler answers: status (200 unless set), content type and body. */
typedef struct srv_reply {
  int status;
  const char *content_type; /* a string literal or otherwise long-lived */
  fl_buf_t body;
} srv_reply_t;

typedef void (*srv_handler_fn)(void *arg, srv_reply_t *reply);

typedef struct srv_route {
  const char *path; /* exact, e.g. "/metrics" */
  srv_handler_fn fn;
  void *arg;
} srv_route_t;

typedef struct srv_http_opts {
  const char *bind;         /* address or host name; NULL means 127.0.0.1 */
  uint16_t port;            /* 0 picks a free port (see srv_http_port) */
  uint32_t max_connections; /* 0 means 64 */
  uint32_t timeout_s;       /* idle connection timeout; 0 means 10 */
} srv_http_opts_t;

/*
 * Binds, listens and starts serving routes (copied; n at most 16). Errors
 * name the address: a bad address is FL_EINVALID, a port in use FL_EEXISTS,
 * other socket failures FL_EIO.
 */
int srv_http_start(const srv_http_opts_t *opts, const srv_route_t *routes, uint32_t n,
                   srv_http_t **out, fl_err_t *err);
/* The port actually bound, and "HOST:PORT" ("[::1]:PORT" for IPv6). */
uint16_t srv_http_port(const srv_http_t *s);
const char *srv_http_address(const srv_http_t *s);
/* Stops serving, closes every connection and the socket, and frees; NULL
 * is fine. */
void srv_http_stop(srv_http_t *s);

#endif
