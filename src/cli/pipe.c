/*
 * pipe.c - reader-to-writer copy used by convert and generate.
 */
#include "cli/pipe.h"

int cli_pipe(fmt_reader_t *r, fmt_writer_t *w, uint64_t *rows, fl_err_t *err) {
  uint64_t n = 0;
  for (;;) {
    ty_batch_t *b;
    int rc = r->next(r, &b, err);
    if (rc) {
      w->abort(w);
      return rc;
    }
    if (!b) break;
    rc = w->write(w, b, err);
    if (rc) {
      w->abort(w);
      return rc;
    }
    n += ty_batch_live(b);
  }
  if (rows) *rows = n;
  return w->close(w, err);
}
