/*
 * ice_scan_read.c - reading the planned data files of a scan into batches
 * of the projected schema (layer 5, iceberg).
 *
 * One task (a data file and its deletes) is open at a time. Its file is
 * read through the Parquet reader with the top-level columns that the
 * projection, the filter and the task's equality deletes need, row groups
 * and pages pruned by the filter's AND-terms. Each raw batch then goes
 * through these steps, each narrowing a list of surviving row indices:
 *
 *   1. position deletes: the batch's rows sit at file positions first_pos
 *      onwards (the reader counts skipped rows, so pruning keeps them
 *      exact); a cursor walks the sorted deleted positions alongside;
 *   2. equality deletes and the residual filter: the surviving rows'
 *      key columns (filter and equality ids) are converted into a key
 *      batch; rows whose null-safe key is in a delete set go, then the
 *      filter is evaluated exactly on what is left (not for a scan whose
 *      filter only prunes, ice_scan_opts_t.prune_only);
 *   3. limit: the list is cut at the rows still wanted;
 *   4. output: the survivors' projected columns are converted into the
 *      output batch (a compact batch, no selection vector). When every
 *      raw row survives, a column the file stores exactly as the table
 *      does is not copied: its buffers are exchanged with the output
 *      column's (ty_vec_exchange), so a plain full scan costs about what
 *      the bare Parquet reader costs.
 *
 * Conversion lines file columns up with table columns by field id (or by
 * the table's name mapping for files written without ids), fills columns
 * the file lacks with their initial default or null, and widens promoted
 * types (int to long, float to double, decimal to a larger precision).
 * A conversion plan is built once per destination schema and file.
 *
 * States of a scan: between tasks (cur NULL), in a task (cur set, its
 * reader open), done (every task read or the limit reached).
 */
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "iceberg/ice_expr_int.h"
#include "iceberg/ice_scan_int.h"

/* ---- matching file fields to table fields ---- */

/*
 * How the columns of one data file line up with the scan schema. For
 * files with field ids the ids are the table's; files written without
 * them (resolved through schema.name-mapping.default) get the reader's
 * fresh ids, paired with the table ids they stand for (file_id[i] ->
 * table_id[i]).
 */
typedef struct ice_file_ids {
  bool has_ids;
  uint32_t n;
  int32_t *file_id, *table_id;
} ice_file_ids_t;

/* The table id a file field stands for (-1: none). */
static int32_t file_field_table_id(const ice_file_ids_t *m, int32_t file_id) {
  if (m->has_ids) return file_id;
  for (uint32_t i = 0; i < m->n; i++)
    if (m->file_id[i] == file_id) return m->table_id[i];
  return -1;
}

static void ids_add(fl_arena_t *a, ice_file_ids_t *m, uint32_t *cap, int32_t fid, int32_t tid) {
  if (m->n == *cap) {
    uint32_t nc = *cap ? 2 * *cap : 16;
    int32_t *f = fl_arena_alloc(a, nc * sizeof *f), *t = fl_arena_alloc(a, nc * sizeof *t);
    if (m->n) {
      memcpy(f, m->file_id, m->n * sizeof *f);
      memcpy(t, m->table_id, m->n * sizeof *t);
    }
    m->file_id = f;
    m->table_id = t;
    *cap = nc;
  }
  m->file_id[m->n] = fid;
  m->table_id[m->n] = tid;
  m->n++;
}

/* The name-mapping entry (of a JSON array) listing name. */
static const json_t *mapping_entry(const json_t *arr, const char *name) {
  if (!json_is_array(arr)) return NULL;
  size_t i, j;
  const json_t *e, *nm;
  json_array_foreach(arr, i, e) {
    json_array_foreach(json_object_get(e, "names"), j, nm) {
      if (json_is_string(nm) && strcmp(json_string_value(nm), name) == 0) return e;
    }
  }
  return NULL;
}

static void map_by_names(fl_arena_t *a, ice_file_ids_t *m, uint32_t *cap, const ty_type_t *ft,
                         const json_t *mapping, bool top) {
  for (uint32_t i = 0; i < ft->nfields; i++) {
    const ty_field_t *f = &ft->fields[i];
    const json_t *e = mapping_entry(mapping, f->name);
    int32_t tid = -1;
    if (e && json_is_integer(json_object_get(e, "field-id")))
      tid = (int32_t)json_integer_value(json_object_get(e, "field-id"));
    else if (top && strcmp(f->name, "file_path") == 0)
      tid = ICE_POS_FILE_PATH_ID; /* position delete files of old writers */
    else if (top && strcmp(f->name, "pos") == 0)
      tid = ICE_POS_POS_ID;
    ids_add(a, m, cap, f->id, tid);
    if (ty_is_nested(f->type))
      map_by_names(a, m, cap, f->type, e ? json_object_get(e, "fields") : NULL, false);
  }
}

static bool file_has_ids(const pq_file_meta_t *fm) {
  for (uint32_t i = 1; i < fm->nschema; i++)
    if (fm->schema[i].has_field_id) return true;
  return false;
}

/* ---- conversion plans ---- */

typedef enum conv_op {
  CV_MISSING, /* initial default or null */
  CV_CONST,   /* an identity partition value */
  CV_COPY,    /* same representation */
  CV_I32_I64,
  CV_F32_F64,
  CV_STRUCT,
  CV_LIST, /* and maps: children in order */
} conv_op_t;

typedef struct cnode cnode_t;
struct cnode {
  conv_op_t op;
  const ty_field_t *df; /* destination field */
  int32_t src;          /* index of the source among its parent's children (or raw columns) */
  uint32_t nkids;
  cnode_t *kids;
  const ty_value_t *value; /* CV_CONST */
  /* A top-level column that is its source column unchanged (same layout,
   * children in order, its source used by no other column): when every
   * raw row is wanted its buffers are exchanged instead of copied. */
  bool exchange;
};

typedef struct conv_plan {
  const ty_schema_t *dst;
  cnode_t *cols; /* one per destination column */
} conv_plan_t;

#define MAX_PLANS 6

struct ice_file_read {
  ice_scan_t *s;
  fl_arena_t *a;
  const char *path; /* as opened, for messages */
  pq_reader_t *r;
  ice_file_ids_t ids;
  const ty_schema_t *raw; /* the reader's projection */
  conv_plan_t plans[MAX_PLANS];
  uint32_t nplans;
  /* Identity partition values standing in for source columns the file
   * lacks (as Java and PyIceberg read them). */
  uint32_t nconsts;
  int32_t *const_ids;
  const ty_value_t **const_vals;
};

static bool prim_compatible(const ty_type_t *src, const ty_type_t *dst, conv_op_t *op) {
  ty_kind_t s = src->kind, d = dst->kind;
  *op = CV_COPY;
  if (s == d) {
    if (d == TY_DECIMAL) return src->scale == dst->scale && src->precision <= dst->precision;
    if (d == TY_FIXED) return src->length == dst->length;
    return true;
  }
  if (s == TY_INT && d == TY_LONG) {
    *op = CV_I32_I64;
    return true;
  }
  if (s == TY_FLOAT && d == TY_DOUBLE) {
    *op = CV_F32_F64;
    return true;
  }
  /* Same values, different annotations some writers use. */
  if ((s == TY_TIMESTAMP && d == TY_TIMESTAMPTZ) || (s == TY_TIMESTAMPTZ && d == TY_TIMESTAMP))
    return true;
  if ((s == TY_TIMESTAMP_NS && d == TY_TIMESTAMPTZ_NS) ||
      (s == TY_TIMESTAMPTZ_NS && d == TY_TIMESTAMP_NS))
    return true;
  if ((s == TY_STRING && d == TY_BINARY) || (s == TY_BINARY && d == TY_STRING)) return true;
  if ((s == TY_FIXED && src->length == 16 && d == TY_UUID) ||
      (s == TY_UUID && d == TY_FIXED && dst->length == 16))
    return true;
  return false;
}

static int type_text(const ty_type_t *t, char *buf, size_t cap) {
  fl_buf_t b;
  fl_buf_init(&b);
  ty_type_format(t, &b);
  int n = snprintf(buf, cap, "%.*s", (int)b.len, (const char *)b.data);
  fl_buf_free(&b);
  return n;
}

/* The index of the child of file type st standing for table id tid, -1 if none. */
static int32_t find_child(const ice_file_read_t *f, const ty_type_t *st, int32_t tid) {
  for (uint32_t i = 0; i < st->nfields; i++)
    if (file_field_table_id(&f->ids, st->fields[i].id) == tid) return (int32_t)i;
  return -1;
}

static int type_mismatch(const ty_field_t *df, const ty_type_t *st, fl_err_t *err) {
  char a[64], b[64];
  type_text(st, a, sizeof a);
  type_text(df->type, b, sizeof b);
  return fl_err_set(err, FL_EUNSUPPORTED, "column '%s' (id %d) is %s in the file, %s in the table",
                    df->name, (int)df->id, a, b);
}

static int build_node(ice_file_read_t *f, cnode_t *n, const ty_field_t *df, const ty_type_t *st,
                      int32_t src, fl_err_t *err) {
  memset(n, 0, sizeof *n);
  n->df = df;
  n->src = src;
  if (!st) {
    n->op = CV_MISSING;
    for (uint32_t i = 0; i < f->nconsts; i++)
      if (f->const_ids[i] == df->id && !ty_is_nested(df->type)) {
        n->op = CV_CONST;
        n->value = f->const_vals[i];
        return FL_OK;
      }
    if (df->required && !df->initial_default)
      return fl_err_set(err, FL_ECORRUPT,
                        "required column '%s' (id %d) is missing from the file and has no default",
                        df->name, (int)df->id);
    return FL_OK;
  }
  const ty_type_t *dt = df->type;
  bool nested_d = ty_is_nested(dt), nested_s = ty_is_nested(st);
  if (nested_d || nested_s) {
    if (dt->kind != st->kind) return type_mismatch(df, st, err);
    n->op = dt->kind == TY_STRUCT ? CV_STRUCT : CV_LIST;
    n->nkids = dt->nfields;
    n->kids = fl_arena_zalloc(f->a, (dt->nfields ? dt->nfields : 1) * sizeof *n->kids);
    for (uint32_t i = 0; i < dt->nfields; i++) {
      int32_t k;
      if (dt->kind == TY_STRUCT)
        k = find_child(f, st, dt->fields[i].id);
      else
        k = i < st->nfields ? (int32_t)i : -1;
      int rc =
          build_node(f, &n->kids[i], &dt->fields[i], k >= 0 ? st->fields[k].type : NULL, k, err);
      if (rc) return rc;
    }
    return FL_OK;
  }
  if (prim_compatible(st, dt, &n->op)) return FL_OK;
  return type_mismatch(df, st, err);
}

/* Whether node n (built against source type st) copies its source as it is. */
static bool node_is_identity(const cnode_t *n, const ty_type_t *st) {
  if (n->op == CV_COPY) return !ty_is_nested(n->df->type) && ty_layout_equal(n->df->type, st);
  if (n->op != CV_STRUCT && n->op != CV_LIST) return false;
  if (st->nfields != n->nkids) return false;
  for (uint32_t i = 0; i < n->nkids; i++)
    if (n->kids[i].src != (int32_t)i || !node_is_identity(&n->kids[i], st->fields[i].type))
      return false;
  return ty_layout_equal(n->df->type, st);
}

static void mark_exchanges(const ice_file_read_t *f, conv_plan_t *p, uint32_t nc) {
  for (uint32_t i = 0; i < nc; i++) {
    cnode_t *n = &p->cols[i];
    if (n->src < 0 || !node_is_identity(n, f->raw->root.fields[n->src].type)) continue;
    bool shared = false;
    for (uint32_t j = 0; j < nc && !shared; j++) shared = j != i && p->cols[j].src == n->src;
    n->exchange = !shared;
  }
}

static int get_plan(ice_file_read_t *f, const ty_schema_t *dst, const conv_plan_t **out,
                    fl_err_t *err) {
  for (uint32_t i = 0; i < f->nplans; i++)
    if (f->plans[i].dst == dst) {
      *out = &f->plans[i];
      return FL_OK;
    }
  if (f->nplans == MAX_PLANS) f->nplans = 0; /* reuse: plans are cheap to rebuild */
  conv_plan_t *p = &f->plans[f->nplans++];
  p->dst = NULL;
  uint32_t nc = dst->root.nfields;
  p->cols = fl_arena_zalloc(f->a, (nc ? nc : 1) * sizeof *p->cols);
  for (uint32_t i = 0; i < nc; i++) {
    const ty_field_t *df = &dst->root.fields[i];
    int32_t k = find_child(f, &f->raw->root, df->id);
    int rc = build_node(f, &p->cols[i], df, k >= 0 ? f->raw->root.fields[k].type : NULL, k, err);
    if (rc) {
      f->nplans--;
      return fl_err_prefix(err, "data file %s: ", f->path);
    }
  }
  mark_exchanges(f, p, nc);
  p->dst = dst;
  *out = p;
  return FL_OK;
}

/* ---- converting values ---- */

static void append_value(ty_vec_t *v, const ty_value_t *x) {
  if (!x || x->is_null) {
    ty_vec_append_null(v);
    return;
  }
  switch (v->type->kind) {
    case TY_BOOLEAN: ty_vec_append_bool(v, x->u.b); break;
    case TY_INT:
    case TY_DATE: ty_vec_append_i32(v, x->u.i32); break;
    case TY_LONG:
    case TY_TIME:
    case TY_TIMESTAMP:
    case TY_TIMESTAMPTZ:
    case TY_TIMESTAMP_NS:
    case TY_TIMESTAMPTZ_NS:
      ty_vec_append_i64(v, x->kind == TY_INT ? (int64_t)x->u.i32 : x->u.i64);
      break;
    case TY_FLOAT: ty_vec_append_f32(v, x->u.f32); break;
    case TY_DOUBLE: ty_vec_append_f64(v, x->kind == TY_FLOAT ? (double)x->u.f32 : x->u.f64); break;
    case TY_DECIMAL: ty_vec_append_i128(v, x->u.i128); break;
    case TY_STRING:
    case TY_BINARY: ty_vec_append_bytes(v, x->u.bytes.p, x->u.bytes.n); break;
    case TY_UUID:
    case TY_FIXED:
      if (x->u.bytes.n == ty_value_width(v->type))
        ty_vec_append_bytes(v, x->u.bytes.p, x->u.bytes.n);
      else
        ty_vec_append_null(v);
      break;
    default: ty_vec_append_null(v); break;
  }
}

static void conv_row(const cnode_t *n, ty_vec_t *dst, const ty_vec_t *src, uint32_t i) {
  if (n->op == CV_MISSING) {
    append_value(dst, n->df->initial_default);
    return;
  }
  if (n->op == CV_CONST) {
    append_value(dst, n->value);
    return;
  }
  if (ty_vec_is_null(src, i)) {
    ty_vec_append_null(dst);
    return;
  }
  switch (n->op) {
    case CV_COPY: ty_vec_append_from(dst, src, i); return;
    case CV_I32_I64: ty_vec_append_i64(dst, TY_VEC_DATA(src, int32_t)[i]); return;
    case CV_F32_F64: ty_vec_append_f64(dst, TY_VEC_DATA(src, float)[i]); return;
    case CV_STRUCT:
      for (uint32_t c = 0; c < n->nkids; c++) {
        const cnode_t *k = &n->kids[c];
        conv_row(k, dst->children[c], k->src >= 0 ? src->children[k->src] : NULL, i);
      }
      ty_vec_append_struct(dst);
      return;
    case CV_LIST:
      for (int32_t e = src->offsets[i]; e < src->offsets[i + 1]; e++)
        for (uint32_t c = 0; c < n->nkids; c++) {
          const cnode_t *k = &n->kids[c];
          conv_row(k, dst->children[c], k->src >= 0 ? src->children[k->src] : NULL, (uint32_t)e);
        }
      ty_vec_append_list_end(dst);
      return;
    case CV_MISSING:
    case CV_CONST: return;
  }
}

/* Fixed-width primitive copies in one loop: the common case. */
static bool conv_fast(const cnode_t *n, ty_vec_t *dst, const ty_vec_t *src, const uint32_t *rows,
                      uint32_t m) {
  if (n->op != CV_COPY || ty_is_nested(dst->type) || ty_is_varlen(dst->type)) return false;
  size_t w = ty_value_width(dst->type);
  if (!w || ty_value_width(src->type) != w) return false;
  ty_vec_reserve(dst, dst->len + m);
  uint8_t *out = dst->data + (size_t)dst->len * w;
  for (uint32_t k = 0; k < m; k++) {
    uint32_t r = rows[k];
    uint32_t j = dst->len + k;
    if (ty_vec_is_valid(src, r)) {
      memcpy(out + (size_t)k * w, src->data + (size_t)r * w, w);
      dst->validity[j >> 3] |= (uint8_t)(1u << (j & 7));
    } else {
      memset(out + (size_t)k * w, 0, w);
      dst->validity[j >> 3] &= (uint8_t) ~(1u << (j & 7));
      dst->null_count++;
    }
  }
  dst->len += m;
  return true;
}

int ice__file_convert(ice_file_read_t *f, ty_batch_t *raw, const uint32_t *rows, uint32_t m,
                      bool take, ty_batch_t *dst, fl_err_t *err) {
  const conv_plan_t *p = NULL;
  int rc = get_plan(f, dst->schema, &p, err);
  if (rc) return rc;
  /* Every raw row, in order, into an empty batch: columns that are their
   * source unchanged are handed over whole (rows[] lists 0..m-1 ascending,
   * so m equal to the row count means all of them). */
  bool whole = take && m == raw->nrows && dst->nrows == 0 && !raw->sel;
  for (uint32_t c = 0; c < dst->ncols; c++) {
    const cnode_t *n = &p->cols[c];
    ty_vec_t *dv = dst->cols[c];
    ty_vec_t *sv = n->src >= 0 ? raw->cols[n->src] : NULL;
    if (whole && n->exchange && dv->len == 0) {
      ty_vec_exchange(dv, sv);
      continue;
    }
    if (sv && conv_fast(n, dv, sv, rows, m)) continue;
    for (uint32_t k = 0; k < m; k++) conv_row(n, dv, sv, rows[k]);
  }
  dst->nrows += m;
  return FL_OK;
}

/* ---- opening files ---- */

static void translate_terms(ice_file_read_t *f, const ty_schema_t *fs, const pq_pred_term_t *pred,
                            uint32_t npred, pq_pred_term_t **out, uint32_t *nout) {
  pq_pred_term_t *t = fl_arena_alloc(f->a, (npred ? npred : 1) * sizeof *t);
  uint32_t k = 0;
  for (uint32_t i = 0; i < npred; i++) {
    int32_t fid = -1;
    if (f->ids.has_ids) {
      fid = pred[i].field_id;
    } else {
      for (uint32_t j = 0; j < f->ids.n; j++)
        if (f->ids.table_id[j] == pred[i].field_id) fid = f->ids.file_id[j];
    }
    if (fid < 0) continue;
    const ty_field_t *ff = ty_schema_find_id(fs, fid);
    if (!ff || ty_is_nested(ff->type)) continue;
    bool unary = pred[i].op == PQ_OP_IS_NULL || pred[i].op == PQ_OP_NOT_NULL;
    if (!unary && ff->type->kind != pred[i].value.kind) continue;
    t[k] = pred[i];
    t[k++].field_id = fid;
  }
  *out = t;
  *nout = k;
}

/* ---- one file handle for every open, its tail kept in memory ---- */

/*
 * A data file may be opened twice (when its footer decides what the
 * second open asks for), so the underlying reader is shared and the
 * file's last bytes - the footer, usually the page indexes, the whole of
 * a small file - are read once and served from memory after that.
 */
#define TAIL_BYTES (64u << 10)

typedef struct shared_io {
  io_reader_t *in;
  int refs;
  uint8_t *tail;
  uint64_t tail_off;
  size_t tail_len;
} shared_io_t;

typedef struct tail_reader {
  io_reader_t base;
  shared_io_t *sh;
} tail_reader_t;

static void shared_unref(shared_io_t *sh) {
  if (--sh->refs > 0) return;
  sh->in->close(sh->in);
  fl_free(sh->tail);
  fl_free(sh);
}

static int tail_read_at(io_reader_t *r, uint64_t off, void *buf, size_t n, fl_err_t *err) {
  shared_io_t *sh = ((tail_reader_t *)r)->sh;
  if (sh->tail && off >= sh->tail_off && n <= sh->tail_len &&
      off - sh->tail_off <= sh->tail_len - n) {
    memcpy(buf, sh->tail + (off - sh->tail_off), n);
    return FL_OK;
  }
  return sh->in->read_at(sh->in, off, buf, n, err);
}

static void tail_close(io_reader_t *r) {
  shared_unref(((tail_reader_t *)r)->sh);
  fl_free(r);
}

static int shared_open(io_fs_t *fs, const char *path, shared_io_t **out, fl_err_t *err) {
  io_reader_t *in;
  int rc = fs->open_read(fs, path, &in, err);
  if (rc) return rc;
  shared_io_t *sh = fl_calloc(1, sizeof *sh);
  sh->in = in;
  sh->refs = 1;
  sh->tail_len = in->size < TAIL_BYTES ? (size_t)in->size : TAIL_BYTES;
  sh->tail_off = in->size - sh->tail_len;
  if (sh->tail_len) {
    sh->tail = fl_malloc(sh->tail_len);
    if ((rc = in->read_at(in, sh->tail_off, sh->tail, sh->tail_len, err))) {
      shared_unref(sh);
      return rc;
    }
  }
  *out = sh;
  return FL_OK;
}

static io_reader_t *shared_reader(shared_io_t *sh) {
  tail_reader_t *t = fl_calloc(1, sizeof *t);
  t->base.path = sh->in->path;
  t->base.size = sh->in->size;
  t->base.read_at = tail_read_at;
  t->base.close = tail_close;
  t->sh = sh;
  sh->refs++;
  return &t->base;
}

/* Identity-partitioned source columns of the data file's spec and their values. */
static void set_consts(ice_file_read_t *f, const ice_data_file_t *df) {
  const ice_spec_t *spec = ice_meta_spec_by_id(f->s->t->meta, df->spec_id);
  if (!spec || spec->nfields != df->npartition) return;
  f->const_ids = fl_arena_alloc(f->a, (spec->nfields ? spec->nfields : 1) * sizeof *f->const_ids);
  f->const_vals = fl_arena_alloc(f->a, (spec->nfields ? spec->nfields : 1) * sizeof *f->const_vals);
  for (uint32_t i = 0; i < spec->nfields; i++) {
    if (spec->fields[i].transform.kind != ICE_T_IDENTITY) continue;
    f->const_ids[f->nconsts] = spec->fields[i].source_id;
    f->const_vals[f->nconsts++] = &df->partition[i];
  }
}

/*
 * Opens f's reader on the table ids top_ids directly; true when the file
 * has field ids and its projection is exactly those top-level columns in
 * that order (what the probe-then-open path would ask for). Any failure
 * - a column the file lacks, a file without ids whose fresh ids happen
 * to match - leaves f without a reader for the general path to try.
 */
static bool open_direct(ice_file_read_t *f, shared_io_t *sh, const int32_t *top_ids,
                        uint32_t ntop) {
  pq_read_opts_t opts = {.field_ids = top_ids, .nfield_ids = ntop};
  if (f->s->rg_active) {
    opts.rg_begin = f->s->rg_begin;
    opts.rg_end = f->s->rg_end;
  }
  pq_reader_t *r;
  fl_err_t ignored;
  if (pq_reader_open_io(shared_reader(sh), &opts, &r, &ignored) != FL_OK) return false;
  const ty_schema_t *proj = pq_reader_schema(r);
  bool ok = file_has_ids(pq_reader_file_meta(r)) && proj->root.nfields == ntop;
  for (uint32_t i = 0; ok && i < ntop; i++) ok = proj->root.fields[i].id == top_ids[i];
  if (!ok) {
    pq_reader_close(r);
    return false;
  }
  f->ids.has_ids = true;
  f->r = r;
  return true;
}

int ice__file_open(ice_scan_t *s, const char *path, const ice_data_file_t *df,
                   const int32_t *top_ids, uint32_t ntop, const pq_pred_term_t *pred,
                   uint32_t npred, ice_file_read_t **out, fl_err_t *err) {
  *out = NULL;
  ice_file_read_t *f = fl_calloc(1, sizeof *f);
  f->s = s;
  f->a = fl_arena_new(0);
  f->path = fl_arena_strdup(f->a, path);
  if (df) set_consts(f, df);
  shared_io_t *sh = NULL;
  int rc = shared_open(s->t->fs, path, &sh, err);
  if (rc) goto fail;
  /* Without terms to translate, a file with field ids and every wanted
   * column - what floe and other writers produce for a table that never
   * evolved - opens once with the table's ids as they are. */
  if (!npred && ntop && open_direct(f, sh, top_ids, ntop)) {
    shared_unref(sh);
    f->raw = pq_reader_schema(f->r);
    *out = f;
    return FL_OK;
  }
  /* Otherwise a first open reads only the footer: whether the file carries
   * field ids, which of the wanted columns it has, which terms can prune. */
  pq_reader_t *probe;
  int32_t none = 0;
  pq_read_opts_t popts = {.field_ids = &none, .nfield_ids = 0};
  rc = pq_reader_open_io(shared_reader(sh), &popts, &probe, err);
  if (rc) goto fail;
  f->ids.has_ids = file_has_ids(pq_reader_file_meta(probe));
  const ty_schema_t *fs = pq_reader_file_schema(probe);
  if (!f->ids.has_ids) {
    json_error_t je;
    json_t *mapping = s->name_mapping ? json_loads(s->name_mapping, 0, &je) : NULL;
    if (s->name_mapping && !mapping) {
      pq_reader_close(probe);
      rc = fl_err_set(err, FL_ECORRUPT, "table property schema.name-mapping.default: %s", je.text);
      goto fail;
    }
    uint32_t cap = 0;
    map_by_names(f->a, &f->ids, &cap, &fs->root, mapping, true);
    json_decref(mapping);
  }
  int32_t *fids = fl_arena_alloc(f->a, (ntop ? ntop : 1) * sizeof *fids);
  uint32_t nf = 0;
  for (uint32_t i = 0; i < ntop; i++) {
    int32_t k = find_child(f, &fs->root, top_ids[i]);
    if (k >= 0) fids[nf++] = fs->root.fields[k].id;
  }
  pq_read_opts_t opts = {.field_ids = fids, .nfield_ids = nf};
  pq_pred_term_t *terms = NULL;
  uint32_t nt = 0;
  if (npred) translate_terms(f, fs, pred, npred, &terms, &nt);
  opts.pred = terms;
  opts.npred = nt;
  if (s->rg_active) {
    opts.rg_begin = s->rg_begin;
    opts.rg_end = s->rg_end;
  }
  pq_reader_close(probe);
  rc = pq_reader_open_io(shared_reader(sh), &opts, &f->r, err);
  if (rc) goto fail;
  shared_unref(sh);
  f->raw = pq_reader_schema(f->r);
  *out = f;
  return FL_OK;
fail:
  if (sh) shared_unref(sh);
  ice__file_close(f);
  return rc;
}

int ice__file_next(ice_file_read_t *f, ty_batch_t **raw, int64_t *first_pos, fl_err_t *err) {
  int rc = pq_reader_next(f->r, raw, err);
  if (rc) return rc;
  if (*raw) {
    /* Every row before this batch was either read or counted as skipped. */
    const pq_read_stats_t *st = pq_reader_stats(f->r);
    *first_pos = (int64_t)(st->rows_read + st->rows_skipped) - (int64_t)(*raw)->nrows;
  }
  return FL_OK;
}

const pq_read_stats_t *ice__file_stats(const ice_file_read_t *f) { return pq_reader_stats(f->r); }

void ice__file_close(ice_file_read_t *f) {
  if (!f) return;
  pq_reader_close(f->r);
  fl_arena_free(f->a);
  fl_free(f);
}

void ice__find_cols(const ty_schema_t *sch, const ty_batch_t *b, const int32_t *ids, uint32_t n,
                    const ty_vec_t **out) {
  for (uint32_t i = 0; i < n; i++) {
    uint32_t path[16];
    int depth = ice__find_struct_path(&sch->root, ids[i], path, 16);
    if (depth <= 0 || path[0] >= b->ncols) {
      out[i] = NULL;
      continue;
    }
    const ty_vec_t *v = b->cols[path[0]];
    for (int d = 1; d < depth && v; d++) v = path[d] < v->nchildren ? v->children[path[d]] : NULL;
    out[i] = v;
  }
}

/* ---- tasks ---- */

struct ice_task_state {
  fl_arena_t *a;
  uint32_t index;
  const ice_scan_task_t *task;
  ice_file_read_t *f;
  int64_t *pos;
  size_t npos, pos_i;
  ice_eq_set_t **eqs;
  uint32_t neqs;
  const ty_vec_t ***eq_cols;     /* per set, its columns in the key batch */
  const ty_schema_t *key_schema; /* NULL: neither filter nor equality deletes */
  ty_batch_t *key;
  uint32_t *rows, *sel;
  fl_buf_t keybuf;
  const char *partition_path; /* "$partition" (only when projected) */
  int64_t modified_us;        /* "$file_modified_time"; -1: unknown */
};
typedef struct ice_task_state task_state_t;

/* The modification time of a data file (micros since the epoch), from a
 * listing of its folder (the file-system interface has no stat); -1 when
 * the file is not listed. Only read when "$file_modified_time" is. */
static int64_t file_modified_us(io_fs_t *fs, const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash) return -1;
  char *dir = fl_malloc((size_t)(slash - path) + 1);
  memcpy(dir, path, (size_t)(slash - path));
  dir[slash - path] = 0;
  io_entry_t *e = NULL;
  size_t n = 0;
  fl_err_t err;
  fl_err_clear(&err);
  int64_t us = -1;
  if (fs->list(fs, dir, &e, &n, &err) == FL_OK) {
    for (size_t i = 0; i < n && us < 0; i++) {
      const char *b = strrchr(e[i].path, '/');
      b = b ? b + 1 : e[i].path;
      if (!strcmp(b, slash + 1)) us = e[i].mtime_ms * 1000;
    }
    io_entries_free(e, n);
  }
  fl_free(dir);
  return us;
}

static void close_task(ice_scan_t *s) {
  task_state_t *ts = s->cur;
  if (!ts) return;
  if (ts->f) {
    const pq_read_stats_t *st = ice__file_stats(ts->f);
    s->stats.row_groups_read += st->row_groups_read;
    s->stats.row_groups_skipped += st->row_groups_skipped;
    s->stats.pages_skipped += st->pages_skipped;
    s->stats.bytes_read += st->bytes_read;
    ice__file_close(ts->f);
  }
  /* Equality sets no later task needs are dropped. */
  for (uint32_t i = 0; i < s->neq_sets; i++) {
    ice_eq_set_t *set = &s->eq_sets[i];
    if (set->loaded && set->last_task <= ts->index) {
      fl_strset_free(&set->keys);
      set->loaded = false;
    }
  }
  fl_free(ts->pos);
  ty_batch_free(ts->key);
  fl_free(ts->rows);
  fl_free(ts->sel);
  fl_buf_free(&ts->keybuf);
  fl_arena_free(ts->a);
  fl_free(ts);
  s->cur = NULL;
}

static void add_ids(fl_arena_t *a, int32_t **ids, uint32_t *n, uint32_t *cap, const int32_t *more,
                    uint32_t nm) {
  for (uint32_t i = 0; i < nm; i++) {
    bool dup = false;
    for (uint32_t j = 0; j < *n && !dup; j++) dup = (*ids)[j] == more[i];
    if (dup) continue;
    if (*n == *cap) {
      uint32_t nc = *cap ? 2 * *cap : 16;
      int32_t *x = fl_arena_alloc(a, nc * sizeof *x);
      if (*n) memcpy(x, *ids, *n * sizeof *x);
      *ids = x;
      *cap = nc;
    }
    (*ids)[(*n)++] = more[i];
  }
}

static int open_task(ice_scan_t *s, uint32_t index, fl_err_t *err) {
  const ice_scan_task_t *task = &s->tasks[index];
  const ice_data_file_t *df = &task->data->file;
  task_state_t *ts = fl_calloc(1, sizeof *ts);
  s->cur = ts;
  ts->a = fl_arena_new(0);
  ts->index = index;
  ts->task = task;
  fl_buf_init(&ts->keybuf);
  int rc;
  if (df->format && strcasecmp(df->format, "PARQUET") != 0)
    return fl_err_set(err, FL_EUNSUPPORTED, "table %s: data file %s is %s; only Parquet is read",
                      s->t->ident, df->path, df->format);
  ts->partition_path = "";
  if (s->partition_col >= 0) {
    const ice_spec_t *spec = ice_meta_spec_by_id(s->t->meta, df->spec_id);
    const ty_type_t *pt;
    if (spec && spec->nfields && df->npartition == spec->nfields &&
        ice_spec_partition_type(ts->a, spec, s->schema, &pt, err) == FL_OK) {
      fl_buf_t b;
      fl_buf_init(&b);
      ice_spec_partition_path(spec, pt, df->partition, &b);
      ts->partition_path = fl_arena_strndup(ts->a, b.data ? (const char *)b.data : "", b.len);
      fl_buf_free(&b);
    }
    fl_err_clear(err);
  }
  ts->modified_us = -1;
  if (s->modified_col >= 0) ts->modified_us = file_modified_us(s->t->fs, df->path);
  /* Deletes. */
  bool any_pos = false;
  ts->eqs = fl_arena_alloc(ts->a, (task->ndeletes ? task->ndeletes : 1) * sizeof *ts->eqs);
  for (uint32_t i = 0; i < task->ndeletes; i++) {
    const ice_manifest_entry_t *d = task->deletes[i];
    if (d->file.content == ICE_CONTENT_POSITION_DELETES) {
      any_pos = true;
      continue;
    }
    for (uint32_t k = 0; k < s->neq_sets; k++)
      if (s->eq_sets[k].file == d) {
        ts->eqs[ts->neqs++] = &s->eq_sets[k];
        if ((rc = ice__load_eq_set(s, &s->eq_sets[k], err))) return rc;
        break;
      }
  }
  if (any_pos && (rc = ice__load_positions(s, task, &ts->pos, &ts->npos, err))) return rc;
  /* Key columns: the filter's and the equality deletes'. */
  int32_t *kids = NULL;
  uint32_t nk = 0, kcap = 0;
  if (s->filter && !s->prune_only) {
    int32_t *fids;
    uint32_t nf;
    ice_expr_field_ids(ts->a, s->filter, &fids, &nf);
    add_ids(ts->a, &kids, &nk, &kcap, fids, nf);
  }
  for (uint32_t i = 0; i < ts->neqs; i++)
    add_ids(ts->a, &kids, &nk, &kcap, ts->eqs[i]->ids, ts->eqs[i]->nids);
  if (nk) {
    const ty_type_t *kt = ice__prune_struct(ts->a, &s->schema->root, kids, nk);
    ts->key_schema = ty_schema_new(ts->a, s->schema->schema_id, kt->fields, kt->nfields);
    ts->key = ty_batch_new(ts->key_schema, TY_BATCH_ROWS);
    /* The key batch's vectors live as long as it: look the columns up once. */
    ts->eq_cols = fl_arena_alloc(ts->a, (ts->neqs ? ts->neqs : 1) * sizeof *ts->eq_cols);
    for (uint32_t i = 0; i < ts->neqs; i++) {
      ts->eq_cols[i] = fl_arena_alloc(ts->a, ts->eqs[i]->nids * sizeof **ts->eq_cols);
      ice__find_cols(ts->key_schema, ts->key, ts->eqs[i]->ids, ts->eqs[i]->nids, ts->eq_cols[i]);
    }
  }
  /* Top-level columns to read. */
  int32_t *top = NULL;
  uint32_t ntop = 0, tcap = 0;
  for (uint32_t i = 0; i < s->proj->root.nfields; i++)
    if ((int32_t)i != s->path_col && (int32_t)i != s->pos_col && (int32_t)i != s->partition_col &&
        (int32_t)i != s->modified_col)
      add_ids(ts->a, &top, &ntop, &tcap, &s->proj->root.fields[i].id, 1);
  if (ts->key_schema)
    for (uint32_t i = 0; i < ts->key_schema->root.nfields; i++)
      add_ids(ts->a, &top, &ntop, &tcap, &ts->key_schema->root.fields[i].id, 1);
  pq_pred_term_t *terms = NULL;
  uint32_t nterms = 0;
  if (s->filter) ice_expr_pq_terms(ts->a, s->filter, &terms, &nterms);
  const char *path = ice_table_path(s->t, ts->a, df->path);
  s->rg_active = true;
  rc = ice__file_open(s, path, df, top, ntop, terms, nterms, &ts->f, err);
  s->rg_active = false;
  if (rc) return fl_err_prefix(err, "table %s: ", s->t->ident);
  ts->rows = fl_malloc(TY_BATCH_ROWS * sizeof *ts->rows);
  ts->sel = fl_malloc(TY_BATCH_ROWS * sizeof *ts->sel);
  return FL_OK;
}

/* Applies deletes and the filter to raw; leaves the surviving raw row
 * indices in ts->rows and returns their count. */
static int select_rows(ice_scan_t *s, task_state_t *ts, ty_batch_t *raw, int64_t first_pos,
                       uint32_t *count, fl_err_t *err) {
  uint32_t m = 0;
  if (ts->pos_i >= ts->npos) {
    /* No position deletes left: every row survives this step. */
    for (uint32_t k = 0; k < raw->nrows; k++) ts->rows[k] = k;
    m = raw->nrows;
  }
  for (uint32_t k = m; k < raw->nrows; k++) {
    if (ts->pos_i < ts->npos) {
      int64_t p = first_pos + k;
      while (ts->pos_i < ts->npos && ts->pos[ts->pos_i] < p) ts->pos_i++;
      if (ts->pos_i < ts->npos && ts->pos[ts->pos_i] == p) {
        s->stats.rows_deleted++;
        continue;
      }
    }
    ts->rows[m++] = k;
  }
  if (!ts->key_schema || m == 0) {
    *count = m;
    return FL_OK;
  }
  ty_batch_reset(ts->key);
  int rc = ice__file_convert(ts->f, raw, ts->rows, m, false, ts->key, err);
  if (rc) return rc;
  /* sel: surviving key-batch rows. */
  uint32_t live = 0;
  for (uint32_t k = 0; k < m; k++) {
    bool deleted = false;
    for (uint32_t i = 0; i < ts->neqs && !deleted; i++) {
      fl_buf_clear(&ts->keybuf);
      ice__eq_key(ts->eq_cols[i], ts->eqs[i]->nids, k, &ts->keybuf);
      deleted = fl_strset_has(&ts->eqs[i]->keys, ts->keybuf.data, ts->keybuf.len);
    }
    if (deleted)
      s->stats.rows_deleted++;
    else
      ts->sel[live++] = k;
  }
  if (s->filter && !s->prune_only && live) {
    uint32_t n;
    ty_batch_select(ts->key, ts->sel, live);
    rc = ice_expr_eval_batch(s->filter, ts->key_schema, ts->key, ts->sel, &n, err);
    if (rc) return fl_err_prefix(err, "data file %s: ", ts->task->data->file.path);
    s->stats.rows_filtered += live - n;
    live = n;
  }
  for (uint32_t k = 0; k < live; k++) ts->rows[k] = ts->rows[ts->sel[k]];
  *count = live;
  return FL_OK;
}

/* Overwrites the hidden columns of the output (converted as missing, so
 * null) with the data file's path and the rows' positions. */
static void fill_hidden(ice_scan_t *s, const task_state_t *ts, int64_t first_pos, uint32_t m) {
  if (s->path_col >= 0) {
    ty_vec_t *v = s->out->cols[s->path_col];
    const char *path = ts->task->data->file.path;
    size_t len = strlen(path);
    ty_vec_reset(v);
    ty_vec_reserve(v, m);
    ty_vec_reserve_heap(v, len * m);
    for (uint32_t k = 0; k < m; k++) ty_vec_append_bytes(v, path, len);
  }
  if (s->pos_col >= 0) {
    ty_vec_t *v = s->out->cols[s->pos_col];
    ty_vec_reset(v);
    ty_vec_reserve(v, m);
    for (uint32_t k = 0; k < m; k++) ty_vec_append_i64(v, first_pos + ts->rows[k]);
  }
  if (s->partition_col >= 0) {
    ty_vec_t *v = s->out->cols[s->partition_col];
    size_t len = strlen(ts->partition_path);
    ty_vec_reset(v);
    ty_vec_reserve(v, m);
    ty_vec_reserve_heap(v, len * m);
    for (uint32_t k = 0; k < m; k++) ty_vec_append_bytes(v, ts->partition_path, len);
  }
  if (s->modified_col >= 0) {
    ty_vec_t *v = s->out->cols[s->modified_col];
    ty_vec_reset(v);
    ty_vec_reserve(v, m);
    for (uint32_t k = 0; k < m; k++) {
      if (ts->modified_us < 0)
        ty_vec_append_null(v);
      else
        ty_vec_append_i64(v, ts->modified_us);
    }
  }
}

int ice_scan_next(ice_scan_t *s, ty_batch_t **out, fl_err_t *err) {
  *out = NULL;
  int rc;
  while (!s->done) {
    if (s->limit >= 0 && s->stats.rows_out >= (uint64_t)s->limit) break;
    task_state_t *ts = s->cur;
    if (!ts) {
      if (s->task_i >= (s->task_end ? s->task_end : s->ntasks)) break;
      rc = open_task(s, s->task_i++, err);
      if (rc) {
        close_task(s);
        s->done = true;
        return rc;
      }
      continue;
    }
    ty_batch_t *raw;
    int64_t first_pos = 0;
    rc = ice__file_next(ts->f, &raw, &first_pos, err);
    if (rc) goto fail;
    if (!raw) {
      close_task(s);
      continue;
    }
    s->stats.rows_read += raw->nrows;
    uint32_t m = 0;
    if ((rc = select_rows(s, ts, raw, first_pos, &m, err))) goto fail;
    if (s->limit >= 0 && s->stats.rows_out + m > (uint64_t)s->limit)
      m = (uint32_t)((uint64_t)s->limit - s->stats.rows_out);
    if (m == 0) continue;
    if (!s->out) s->out = ty_batch_new(s->proj, TY_BATCH_ROWS);
    ty_batch_reset(s->out);
    if ((rc = ice__file_convert(ts->f, raw, ts->rows, m, true, s->out, err))) goto fail;
    s->out->nrows = m;
    if (s->path_col >= 0 || s->pos_col >= 0 || s->partition_col >= 0 || s->modified_col >= 0)
      fill_hidden(s, ts, first_pos, m);
    s->stats.rows_out += m;
    *out = s->out;
    return FL_OK;
  }
  close_task(s);
  s->done = true;
  return FL_OK;
fail:
  fl_err_prefix(err, "table %s: ", s->t->ident);
  close_task(s);
  s->done = true;
  return rc;
}

int ice_scan_read_task(ice_scan_t *s, uint32_t index, fl_err_t *err) {
  if (index >= s->ntasks)
    return fl_err_set(err, FL_EINVALID, "table %s: scan has no task %u (of %u)", s->t->ident, index,
                      s->ntasks);
  close_task(s);
  s->filter = NULL; /* every live row, no page pruning */
  s->limit = -1;
  s->rg_begin = s->rg_end = 0;
  s->task_i = index;
  s->task_end = index + 1;
  s->done = false;
  return FL_OK;
}

int ice_scan_task_positions(ice_scan_t *s, uint32_t index, int64_t **out, size_t *n,
                            fl_err_t *err) {
  *out = NULL;
  *n = 0;
  if (index >= s->ntasks)
    return fl_err_set(err, FL_EINVALID, "table %s: scan has no task %u (of %u)", s->t->ident, index,
                      s->ntasks);
  return ice__load_positions(s, &s->tasks[index], out, n, err);
}

int ice_scan_fork(const ice_scan_t *s, ice_scan_t **out, fl_err_t *err) {
  (void)err;
  ice_scan_t *f = fl_calloc(1, sizeof *f);
  *f = *s;
  f->is_fork = true;
  f->limit = s->limit; /* each reader stops after the limit; LIMIT cuts the rest */
  f->cur = NULL;
  f->out = NULL;
  f->done = true; /* nothing to read until ice_scan_read_range */
  f->task_i = f->task_end = 0;
  /* Reading counters are the fork's own; planning ones stay with s. */
  ice_scan_stats_t st = {0};
  f->stats = st;
  /* Equality delete sets are loaded per reader. */
  f->eq_sets = fl_calloc(s->neq_sets ? s->neq_sets : 1, sizeof *f->eq_sets);
  for (uint32_t i = 0; i < s->neq_sets; i++) {
    f->eq_sets[i] = s->eq_sets[i];
    f->eq_sets[i].loaded = false;
    memset(&f->eq_sets[i].keys, 0, sizeof f->eq_sets[i].keys);
  }
  *out = f;
  return FL_OK;
}

int ice_scan_read_range(ice_scan_t *s, uint32_t begin, uint32_t end, uint32_t rg_begin,
                        uint32_t rg_end, fl_err_t *err) {
  if (begin > end || end > s->ntasks)
    return fl_err_set(err, FL_EINVALID, "table %s: scan has no tasks [%u, %u) (of %u)", s->t->ident,
                      begin, end, s->ntasks);
  close_task(s);
  s->rg_begin = rg_begin;
  s->rg_end = rg_end;
  s->task_i = begin;
  s->task_end = end;
  s->done = begin == end;
  return FL_OK;
}

void ice_scan_free(ice_scan_t *s) {
  if (!s) return;
  close_task(s);
  for (uint32_t i = 0; i < s->neq_sets; i++)
    if (s->eq_sets[i].loaded) fl_strset_free(&s->eq_sets[i].keys);
  ty_batch_free(s->out);
  if (s->is_fork) {
    fl_free(s->eq_sets);
  } else {
    fl_arena_free(s->a);
  }
  fl_free(s);
}
