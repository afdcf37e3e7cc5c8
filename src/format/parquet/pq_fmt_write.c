/*
 * pq_fmt_write.c - the Parquet writer behind the format interface
 * (fmt_writer_t, format/format.h).
 */
#include "base/alloc.h"
#include "format/parquet/pq_writer.h"

typedef struct pq_fmt_writer {
  fmt_writer_t base;
  pq_writer_t *w;
} pq_fmt_writer_t;

static int fw_write(fmt_writer_t *fw, const ty_batch_t *b, fl_err_t *err) {
  return pq_writer_write(((pq_fmt_writer_t *)fw)->w, b, err);
}

static int fw_close(fmt_writer_t *fw, fl_err_t *err) {
  pq_fmt_writer_t *f = (pq_fmt_writer_t *)fw;
  int rc = pq_writer_close(f->w, err);
  pq_writer_free(f->w);
  fl_free(f);
  return rc;
}

static void fw_abort(fmt_writer_t *fw) {
  pq_fmt_writer_t *f = (pq_fmt_writer_t *)fw;
  pq_writer_abort(f->w);
  fl_free(f);
}

int pq_fmt_open_writer(io_fs_t *fs, const char *path, const ty_schema_t *schema,
                       const fmt_write_opts_t *opts, fmt_writer_t **out, fl_err_t *err) {
  pq_writer_t *w;
  int rc = pq_writer_open(fs, path, schema, opts, &w, err);
  if (rc) return rc;
  pq_fmt_writer_t *f = fl_calloc(1, sizeof *f);
  f->w = w;
  f->base.write = fw_write;
  f->base.close = fw_close;
  f->base.abort = fw_abort;
  *out = &f->base;
  return FL_OK;
}
