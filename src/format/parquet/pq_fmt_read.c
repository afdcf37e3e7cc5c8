/*
 * pq_fmt_read.c - the Parquet format's entry in the format table and its
 * fmt_reader_t over pq_reader (layer 4, format/parquet).
 */
#include "base/alloc.h"
#include "format/format.h"
#include "format/parquet/pq_reader.h"

int pq_fmt_open_writer(io_fs_t *fs, const char *path, const ty_schema_t *schema,
                       const fmt_write_opts_t *opts, fmt_writer_t **out, fl_err_t *err);
int pq_fmt_inspect(io_fs_t *fs, const char *path, bool json, FILE *out, fl_err_t *err);

typedef struct pq_fmt_reader {
  fmt_reader_t base;
  pq_reader_t *r;
} pq_fmt_reader_t;

static int fr_next(fmt_reader_t *fr, ty_batch_t **out, fl_err_t *err) {
  return pq_reader_next(((pq_fmt_reader_t *)fr)->r, out, err);
}

static void fr_close(fmt_reader_t *fr) {
  pq_fmt_reader_t *p = (pq_fmt_reader_t *)fr;
  pq_reader_close(p->r);
  fl_free(p);
}

/* Collects the ids of the schema's top-level fields. */
static void collect_ids(const ty_type_t *t, int32_t **ids, uint32_t *n, uint32_t *cap) {
  for (uint32_t i = 0; i < t->nfields; i++) {
    if (*n == *cap) {
      *cap = *cap ? *cap * 2 : 16;
      *ids = fl_realloc(*ids, *cap * sizeof **ids);
    }
    (*ids)[(*n)++] = t->fields[i].id;
  }
}

/* Opens a Parquet reader; opts->schema (optional) selects and orders the
 * columns by field id. */
int pq_fmt_open_reader(io_fs_t *fs, const char *path, const fmt_read_opts_t *opts,
                       fmt_reader_t **out, fl_err_t *err) {
  pq_read_opts_t po = {0};
  int32_t *ids = NULL;
  if (opts && opts->schema) {
    uint32_t n = 0, cap = 0;
    collect_ids(&opts->schema->root, &ids, &n, &cap);
    if (!ids) ids = fl_malloc(sizeof *ids);
    po.field_ids = ids;
    po.nfield_ids = n;
  }
  pq_reader_t *r;
  int rc = pq_reader_open(fs, path, &po, &r, err);
  fl_free(ids);
  if (rc) return rc;
  pq_fmt_reader_t *p = fl_calloc(1, sizeof *p);
  p->r = r;
  p->base.schema = pq_reader_schema(r);
  p->base.next = fr_next;
  p->base.close = fr_close;
  *out = &p->base;
  return FL_OK;
}

const fmt_impl_t pq_fmt_impl = {
    .kind = FMT_PARQUET,
    .open_reader = pq_fmt_open_reader,
    .open_writer = pq_fmt_open_writer,
    .inspect = pq_fmt_inspect,
};
