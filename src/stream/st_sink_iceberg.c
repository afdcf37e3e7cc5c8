/*
 * st_sink_iceberg.c - the Iceberg sink operator of a streaming job
 * (layer 10, stream). See st_sink_iceberg.h.
 *
 * States: idle (no writer) -> writing (a writer open since the first row
 * after the last checkpoint) -> idle again at st_sink_take_files, or
 * failed after a write error (the job stops; recovery deletes the files
 * of the unfinished checkpoint).
 */
#include "stream/st_sink_iceberg.h"

#include "base/alloc.h"
#include "iceberg/ice_data_writer.h"

struct st_sink {
  ex_op_t op;
  ice_table_t *t;
  const ty_schema_t *table_schema;
  ice_dw_t *w;
  st_sink_writer_fn on_writer;
  void *arg;
  uint64_t rows;
  uint32_t epoch;
};

static int sink_push(ex_op_t *op, const ty_batch_t *b, fl_err_t *err) {
  st_sink_t *s = (st_sink_t *)op;
  if (ty_batch_live(b) == 0) return FL_OK;
  int rc;
  if (!s->w) {
    const ice_meta_t *m = s->t->meta;
    const ice_sort_order_t *so = ice_meta_sort_order(m);
    ice_dw_opts_t o = {.content = ICE_CONTENT_DATA,
                       .spec = ice_meta_spec(m),
                       .props = m->properties,
                       .nprops = m->nproperties,
                       .sort_order_id = so ? so->order_id : 0,
                       .task_id = ++s->epoch};
    if ((rc = ice_dw_open(s->t->fs, m->location, s->table_schema, &o, &s->w, err)))
      return fl_err_prefix(err, "%s: ", s->t->ident);
    if (s->on_writer && (rc = s->on_writer(s->arg, ice_dw_uuid(s->w), ice_dw_data_dir(s->w), err)))
      return rc;
  }
  /* The plan's columns are the table's, in order and of its types: the
   * same vectors under the table schema (field ids). */
  ty_batch_t view = *b;
  view.schema = s->table_schema;
  if ((rc = ice_dw_write(s->w, &view, err))) return fl_err_prefix(err, "%s: ", s->t->ident);
  s->rows += ty_batch_live(b);
  return FL_OK;
}

static int sink_watermark(ex_op_t *op, int64_t ts, fl_err_t *err) {
  (void)op;
  (void)ts;
  (void)err;
  return FL_OK;
}
static int sink_finish(ex_op_t *op, fl_err_t *err) {
  (void)op;
  (void)err;
  return FL_OK;
}
/* The open files are not state: they become the checkpoint's pending
 * commit through st_sink_take_files. */
static int sink_checkpoint(ex_op_t *op, fl_buf_t *w, fl_err_t *err) {
  (void)op;
  (void)w;
  (void)err;
  return FL_OK;
}
static int sink_restore(ex_op_t *op, fl_rd_t *r, fl_err_t *err) {
  (void)op;
  (void)r;
  (void)err;
  return FL_OK;
}
static void sink_destroy(ex_op_t *op) { (void)op; }

static const ex_op_vt_t sink_vt = {
    .name = "iceberg sink",
    .push = sink_push,
    .watermark = sink_watermark,
    .finish = sink_finish,
    .checkpoint = sink_checkpoint,
    .restore = sink_restore,
    .destroy = sink_destroy,
};

st_sink_t *st_sink_new(ice_table_t *t, const ty_schema_t *in, st_sink_writer_fn on_writer,
                       void *arg) {
  st_sink_t *s = fl_calloc(1, sizeof *s);
  s->op.vt = &sink_vt;
  s->op.out_schema = in;
  s->t = t;
  s->table_schema = ice_meta_schema(t->meta);
  s->on_writer = on_writer;
  s->arg = arg;
  return s;
}

ex_op_t *st_sink_op(st_sink_t *s) { return &s->op; }
uint64_t st_sink_rows(const st_sink_t *s) { return s->rows; }

int st_sink_take_files(st_sink_t *s, fl_arena_t *a, ice_data_file_t **files, size_t *n,
                       fl_err_t *err) {
  *files = NULL;
  *n = 0;
  if (!s->w) return FL_OK;
  int rc = ice_dw_close(s->w, a, files, n, err);
  /* On failure the files stay where they are: recovery deletes them. */
  ice_dw_free(s->w);
  s->w = NULL;
  return rc ? fl_err_prefix(err, "%s: ", s->t->ident) : FL_OK;
}

void st_sink_free(st_sink_t *s) {
  if (!s) return;
  ice_dw_free(s->w);
  fl_free(s);
}
