/*
 * srv_http.c - the HTTP server over libmicrohttpd (layer 11, server).
 *
 * The listening socket is made here (getaddrinfo, bind, listen) and handed
 * to libmicrohttpd, so that bind errors are ours to word and port 0 can be
 * read back with getsockname. The daemon runs its own thread with an
 * epoll/poll loop; each request is answered in the first callback, since
 * the endpoints take no body. Limits: a cap on connections, an idle
 * timeout, and libmicrohttpd's per-connection memory pool (32 KiB), which
 * bounds the request line and headers a client can send.
 */
#include "server/srv_http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/alloc.h"

#define SRV_MAX_ROUTES 16

struct srv_http {
  struct MHD_Daemon *d;
  srv_route_t routes[SRV_MAX_ROUTES];
  char *paths[SRV_MAX_ROUTES];
  uint32_t nroutes;
  uint16_t port;
  char address[INET6_ADDRSTRLEN + 16];
};

static enum MHD_Result send_reply(struct MHD_Connection *conn, int status, const char *type,
                                  const void *body, size_t len, const char *allow) {
  struct MHD_Response *r =
      MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
  if (!r) return MHD_NO;
  MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
  if (allow) MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
  enum MHD_Result ok = MHD_queue_response(conn, (unsigned)status, r);
  MHD_destroy_response(r);
  return ok;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_size, void **con_cls) {
  (void)version;
  (void)upload;
  (void)con_cls;
  srv_http_t *s = cls;
  /* A body (which no endpoint takes) is discarded; the reply is queued on
   * the first call and the connection closed after it. */
  if (*upload_size) {
    *upload_size = 0;
    return MHD_YES;
  }
  const srv_route_t *route = NULL;
  for (uint32_t i = 0; i < s->nroutes; i++)
    if (strcmp(s->routes[i].path, url) == 0) route = &s->routes[i];
  static const char not_found[] = "not found\n", not_allowed[] = "method not allowed\n";
  if (!route)
    return send_reply(conn, MHD_HTTP_NOT_FOUND, "text/plain; charset=utf-8", not_found,
                      sizeof not_found - 1, NULL);
  if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
    return send_reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain; charset=utf-8", not_allowed,
                      sizeof not_allowed - 1, "GET, HEAD");
  srv_reply_t reply = {.status = MHD_HTTP_OK, .content_type = "text/plain; charset=utf-8"};
  fl_buf_init(&reply.body);
  route->fn(route->arg, &reply);
  enum MHD_Result ok =
      send_reply(conn, reply.status, reply.content_type, reply.body.data, reply.body.len, NULL);
  fl_buf_free(&reply.body);
  return ok;
}

/* Makes a listening socket for host:port; writes the bound port. */
static int listen_on(const char *host, uint16_t port, int *fd_out, uint16_t *port_out,
                     char *addr_text, size_t addr_size, fl_err_t *err) {
  /* "[::1]" is accepted as well as "::1". */
  char h[256];
  size_t hl = strlen(host);
  if (hl >= sizeof h) return fl_err_set(err, FL_EINVALID, "bind address '%s' is too long", host);
  if (hl >= 2 && host[0] == '[' && host[hl - 1] == ']') {
    memcpy(h, host + 1, hl - 2);
    h[hl - 2] = 0;
  } else {
    memcpy(h, host, hl + 1);
  }
  char portstr[8];
  snprintf(portstr, sizeof portstr, "%u", (unsigned)port);
  struct addrinfo hints = {.ai_family = AF_UNSPEC,
                           .ai_socktype = SOCK_STREAM,
                           .ai_flags = AI_PASSIVE | AI_NUMERICSERV},
                  *res = NULL;
  int g = getaddrinfo(h, portstr, &hints, &res);
  if (g) return fl_err_set(err, FL_EINVALID, "bind address '%s': %s", host, gai_strerror(g));
  int fd = socket(res->ai_family, res->ai_socktype | SOCK_CLOEXEC, res->ai_protocol);
  if (fd < 0) {
    freeaddrinfo(res);
    return fl_err_set(err, FL_EIO, "socket for %s: %s", host, strerror(errno));
  }
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (res->ai_family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
  if (bind(fd, res->ai_addr, res->ai_addrlen) != 0 || listen(fd, 64) != 0) {
    int e = errno;
    freeaddrinfo(res);
    close(fd);
    return fl_err_set(err, e == EADDRINUSE ? FL_EEXISTS : FL_EIO, "listening on %s port %u: %s",
                      host, (unsigned)port, strerror(e));
  }
  freeaddrinfo(res);
  struct sockaddr_storage ss;
  socklen_t sl = sizeof ss;
  getsockname(fd, (struct sockaddr *)&ss, &sl);
  char ip[INET6_ADDRSTRLEN] = "?";
  if (ss.ss_family == AF_INET6) {
    struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
    inet_ntop(AF_INET6, &a->sin6_addr, ip, sizeof ip);
    *port_out = ntohs(a->sin6_port);
    snprintf(addr_text, addr_size, "[%s]:%u", ip, (unsigned)*port_out);
  } else {
    struct sockaddr_in *a = (struct sockaddr_in *)&ss;
    inet_ntop(AF_INET, &a->sin_addr, ip, sizeof ip);
    *port_out = ntohs(a->sin_port);
    snprintf(addr_text, addr_size, "%s:%u", ip, (unsigned)*port_out);
  }
  *fd_out = fd;
  return FL_OK;
}

int srv_http_start(const srv_http_opts_t *opts, const srv_route_t *routes, uint32_t n,
                   srv_http_t **out, fl_err_t *err) {
  if (n > SRV_MAX_ROUTES)
    return fl_err_set(err, FL_EINVALID, "http server: %u routes, at most %d", n, SRV_MAX_ROUTES);
  srv_http_t *s = fl_calloc(1, sizeof *s);
  for (uint32_t i = 0; i < n; i++) {
    s->paths[i] = fl_strdup(routes[i].path);
    s->routes[i] = routes[i];
    s->routes[i].path = s->paths[i];
  }
  s->nroutes = n;
  int fd = -1;
  int rc = listen_on(opts->bind ? opts->bind : "127.0.0.1", opts->port, &fd, &s->port, s->address,
                     sizeof s->address, err);
  if (rc) {
    srv_http_stop(s);
    return rc;
  }
  unsigned max_conn = opts->max_connections ? opts->max_connections : 64;
  unsigned timeout = opts->timeout_s ? opts->timeout_s : 10;
  s->d = MHD_start_daemon(MHD_USE_AUTO_INTERNAL_THREAD, 0, NULL, NULL, on_request, s,
                          MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd, MHD_OPTION_CONNECTION_LIMIT,
                          max_conn, MHD_OPTION_CONNECTION_TIMEOUT, timeout,
                          MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)32 * 1024, MHD_OPTION_END);
  if (!s->d) {
    close(fd);
    rc = fl_err_set(err, FL_EIO, "http server on %s did not start", s->address);
    srv_http_stop(s);
    return rc;
  }
  *out = s;
  return FL_OK;
}

uint16_t srv_http_port(const srv_http_t *s) { return s->port; }
const char *srv_http_address(const srv_http_t *s) { return s->address; }

void srv_http_stop(srv_http_t *s) {
  if (!s) return;
  if (s->d) MHD_stop_daemon(s->d); /* also closes the listening socket */
  for (uint32_t i = 0; i < s->nroutes; i++) fl_free(s->paths[i]);
  fl_free(s);
}
