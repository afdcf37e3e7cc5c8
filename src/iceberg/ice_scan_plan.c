/*
 * ice_scan_plan.c - planning a table scan: which snapshot, which schema,
 * which data files and which delete files go with each (layer 5, iceberg).
 *
 * The snapshot comes from the options (an id, a branch or tag, a point in
 * time, or main's head); explicit snapshots and tags read with the schema
 * the snapshot was written with, main and branches with the current one,
 * as the reference implementation does. The filter is bound to that
 * schema with NOT pushed down, then projected per partition spec
 * (inclusive projection) once.
 *
 * Pruning runs in three steps, each only ruling out what it can prove
 * cannot match: a manifest's partition summaries against the projected
 * filter, a file's partition tuple against it, and the file's column
 * metrics against the row filter. Every manifest is read into a scratch
 * arena and only the surviving entries are copied into the scan's arena,
 * so planning holds the live files of the snapshot, not every entry of
 * every manifest.
 *
 * Delete files are paired with data files by the spec's rules: position
 * deletes apply to data files with a data sequence number at or below
 * theirs, in the same spec and partition (or from an unpartitioned spec),
 * whose path the delete's referenced_data_file or file_path bounds admit;
 * equality deletes to data files with a sequence number strictly below
 * theirs, in the same partition or anywhere when their spec is
 * unpartitioned.
 */
#include <inttypes.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "base/time.h"
#include "iceberg/ice_conv.h"
#include "iceberg/ice_scan_int.h"

/* ---- projection ---- */

static bool id_listed(int32_t id, const int32_t *ids, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (ids[i] == id) return true;
  return false;
}

static bool type_has_id(const ty_type_t *t, const int32_t *ids, uint32_t n) {
  for (uint32_t i = 0; i < t->nfields; i++) {
    if (id_listed(t->fields[i].id, ids, n)) return true;
    if (ty_is_nested(t->fields[i].type) && type_has_id(t->fields[i].type, ids, n)) return true;
  }
  return false;
}

const ty_type_t *ice__prune_struct(fl_arena_t *a, const ty_type_t *st, const int32_t *ids,
                                   uint32_t n) {
  ty_field_t *f = fl_arena_alloc(a, (st->nfields ? st->nfields : 1) * sizeof *f);
  uint32_t k = 0;
  for (uint32_t i = 0; i < st->nfields; i++) {
    const ty_field_t *sf = &st->fields[i];
    if (id_listed(sf->id, ids, n)) {
      f[k++] = *sf;
    } else if (sf->type->kind == TY_STRUCT) {
      const ty_type_t *sub = ice__prune_struct(a, sf->type, ids, n);
      if (sub->nfields) {
        f[k] = *sf;
        f[k++].type = sub;
      }
    } else if (ty_is_nested(sf->type) && type_has_id(sf->type, ids, n)) {
      /* Inside lists and maps the whole column is read. */
      f[k++] = *sf;
    }
  }
  return ty_struct_new(a, f, k);
}

static bool name_eq(const char *x, size_t n, const char *name, bool cs) {
  if (strlen(name) != n) return false;
  return cs ? memcmp(x, name, n) == 0 : strncasecmp(x, name, n) == 0;
}

/* Resolves a top-level or dotted column name (every split tried, so that
 * names holding dots resolve too). */
static const ty_field_t *resolve_name(const ty_type_t *st, const char *name, bool cs) {
  size_t n = strlen(name);
  for (uint32_t i = 0; i < st->nfields; i++) {
    const ty_field_t *f = &st->fields[i];
    size_t fl = strlen(f->name);
    if (name_eq(name, n, f->name, cs)) return f;
    if (f->type->kind == TY_STRUCT && fl < n && name[fl] == '.' && name_eq(name, fl, f->name, cs)) {
      const ty_field_t *g = resolve_name(f->type, name + fl + 1, cs);
      if (g) return g;
    }
  }
  return NULL;
}

/* The hidden columns a projection may end with (see ice_scan.h). */
static const struct {
  const char *name;
  int32_t id;
  ty_kind_t kind;
} hidden_cols[] = {
    {"$path", ICE_SCAN_PATH_ID, TY_STRING},
    {"$pos", ICE_SCAN_POS_ID, TY_LONG},
    {"$partition", ICE_SCAN_PARTITION_ID, TY_STRING},
    {"$file_modified_time", ICE_SCAN_MODIFIED_ID, TY_TIMESTAMPTZ},
};
#define NHIDDEN (sizeof hidden_cols / sizeof hidden_cols[0])

static int build_projection(ice_scan_t *s, const ice_scan_opts_t *o, fl_err_t *err) {
  s->path_col = s->pos_col = s->partition_col = s->modified_col = -1;
  if (!o->columns) {
    s->proj = s->schema;
    return FL_OK;
  }
  int32_t *ids = fl_arena_alloc(s->a, (o->ncolumns ? o->ncolumns : 1) * sizeof *ids);
  uint32_t nids = 0, nhidden = 0;
  ty_field_t hidden[NHIDDEN];
  for (uint32_t i = 0; i < o->ncolumns; i++) {
    size_t h = 0;
    while (h < NHIDDEN && strcmp(o->columns[i], hidden_cols[h].name) != 0) h++;
    if (h < NHIDDEN) {
      for (uint32_t k = 0; k < nhidden; k++)
        if (hidden[k].id == hidden_cols[h].id)
          return fl_err_set(err, FL_EINVALID, "table %s: hidden column '%s' given twice",
                            s->t->ident, o->columns[i]);
      hidden[nhidden++] = (ty_field_t){.id = hidden_cols[h].id,
                                       .name = hidden_cols[h].name,
                                       .type = ty_primitive(hidden_cols[h].kind)};
      continue;
    }
    if (nhidden)
      return fl_err_set(err, FL_EINVALID, "table %s: hidden columns must come after '%s'",
                        s->t->ident, o->columns[i]);
    const ty_field_t *f = resolve_name(&s->schema->root, o->columns[i], o->case_sensitive);
    if (!f)
      return fl_err_set(err, FL_EINVALID, "table %s: no column named '%s' in schema %d",
                        s->t->ident, o->columns[i], (int)s->schema->schema_id);
    ids[nids++] = f->id;
  }
  const ty_type_t *st = ice__prune_struct(s->a, &s->schema->root, ids, nids);
  if (!nhidden) {
    s->proj = ty_schema_new(s->a, s->schema->schema_id, st->fields, st->nfields);
    return FL_OK;
  }
  /* The hidden columns go last; reading fills them after converting. */
  ty_field_t *f = fl_arena_alloc(s->a, (st->nfields + nhidden) * sizeof *f);
  if (st->nfields) memcpy(f, st->fields, st->nfields * sizeof *f);
  for (uint32_t i = 0; i < nhidden; i++) {
    int32_t col = (int32_t)(st->nfields + i);
    f[col] = hidden[i];
    if (hidden[i].id == ICE_SCAN_PATH_ID) s->path_col = col;
    if (hidden[i].id == ICE_SCAN_POS_ID) s->pos_col = col;
    if (hidden[i].id == ICE_SCAN_PARTITION_ID) s->partition_col = col;
    if (hidden[i].id == ICE_SCAN_MODIFIED_ID) s->modified_col = col;
  }
  s->proj = ty_schema_new(s->a, s->schema->schema_id, f, st->nfields + nhidden);
  return FL_OK;
}

/* ---- snapshot ---- */

static int choose_snapshot(ice_scan_t *s, const ice_scan_opts_t *o, fl_err_t *err) {
  const ice_meta_t *m = s->t->meta;
  int nset = (o->snapshot_id >= 0) + (o->ref != NULL) + (o->as_of_ms >= 0);
  if (nset > 1)
    return fl_err_set(err, FL_EINVALID,
                      "table %s: give only one of a snapshot id, a ref and a timestamp",
                      s->t->ident);
  bool snapshot_schema = true;
  const ice_snapshot_t *snap = NULL;
  if (o->snapshot_id >= 0) {
    snap = ice_meta_snapshot(m, o->snapshot_id);
    if (!snap)
      return fl_err_set(err, FL_ENOTFOUND, "table %s: no snapshot with id %" PRId64, s->t->ident,
                        o->snapshot_id);
  } else if (o->ref) {
    const ice_ref_t *r = ice_meta_ref(m, o->ref);
    if (!r && strcmp(o->ref, "main") == 0) {
      snap = ice_meta_current_snapshot(m);
      snapshot_schema = false;
    } else if (!r) {
      return fl_err_set(err, FL_ENOTFOUND, "table %s: no branch or tag named '%s'", s->t->ident,
                        o->ref);
    } else {
      snap = ice_meta_snapshot(m, r->snapshot_id);
      if (!snap)
        return fl_err_set(err, FL_ECORRUPT, "table %s: %s '%s' points at missing snapshot %" PRId64,
                          s->t->ident, r->is_tag ? "tag" : "branch", o->ref, r->snapshot_id);
      snapshot_schema = r->is_tag;
    }
  } else if (o->as_of_ms >= 0) {
    snap = ice_meta_snapshot_as_of(m, o->as_of_ms);
    if (!snap)
      return fl_err_set(err, FL_ENOTFOUND,
                        "table %s: no snapshot at or before %" PRId64 " ms since the epoch",
                        s->t->ident, o->as_of_ms);
  } else {
    snap = ice_meta_current_snapshot(m);
    snapshot_schema = false;
  }
  s->snap = snap;
  s->schema = ice_meta_schema(m);
  if (snap && snapshot_schema && snap->schema_id >= 0) {
    const ty_schema_t *ss = ice_meta_schema_by_id(m, snap->schema_id);
    if (ss) s->schema = ss;
  }
  if (!s->schema)
    return fl_err_set(err, FL_ECORRUPT, "table %s: metadata has no current schema", s->t->ident);
  return FL_OK;
}

/* ---- per-spec pruning state ---- */

typedef struct spec_info {
  int32_t spec_id;
  const ice_spec_t *spec; /* NULL: unknown to the metadata */
  const ty_type_t *ptype; /* NULL: partitions cannot be evaluated */
  ice_expr_t *projected;  /* NULL: no pruning */
  bool unpartitioned;
} spec_info_t;

typedef struct planner {
  ice_scan_t *s;
  spec_info_t **specs; /* each in the scan's arena, so pointers stay valid */
  uint32_t nspecs, specs_cap;
  /* Live entries copied out of the manifests. */
  ice_manifest_entry_t **data, **pos, **eq;
  size_t ndata, npos, neq, data_cap, pos_cap, eq_cap;
} planner_t;

static const spec_info_t *spec_info(planner_t *p, int32_t spec_id) {
  for (uint32_t i = 0; i < p->nspecs; i++)
    if (p->specs[i]->spec_id == spec_id) return p->specs[i];
  if (p->nspecs == p->specs_cap) {
    p->specs_cap = p->specs_cap ? 2 * p->specs_cap : 4;
    p->specs = fl_realloc(p->specs, p->specs_cap * sizeof *p->specs);
  }
  ice_scan_t *s = p->s;
  spec_info_t *si = fl_arena_zalloc(s->a, sizeof *si);
  p->specs[p->nspecs++] = si;
  si->spec_id = spec_id;
  si->spec = spec_id >= 0 ? ice_meta_spec_by_id(s->t->meta, spec_id) : NULL;
  if (!si->spec) return si;
  si->unpartitioned = ice_spec_is_unpartitioned(si->spec);
  /* The same partition type the manifest reader types the tuples with. */
  fl_err_t ignored;
  if (ice_spec_partition_type(s->a, si->spec, ice_meta_schema(s->t->meta), &si->ptype, &ignored))
    si->ptype = NULL;
  if (si->ptype && s->filter && !si->unpartitioned)
    si->projected = ice_expr_project_inclusive(s->a, s->filter, si->spec, s->schema, si->ptype);
  return si;
}

static void push_entry(ice_manifest_entry_t ***v, size_t *n, size_t *cap, ice_manifest_entry_t *e) {
  if (*n == *cap) {
    *cap = *cap ? 2 * *cap : 64;
    *v = fl_realloc(*v, *cap * sizeof **v);
  }
  (*v)[(*n)++] = e;
}

static ice_bytes_t copy_bytes(fl_arena_t *a, ice_bytes_t b) {
  ice_bytes_t r = {NULL, b.n};
  if (b.p) r.p = fl_arena_memdup(a, b.p, b.n ? b.n : 1);
  return r;
}

static const char *copy_str(fl_arena_t *a, const char *s) {
  return s ? fl_arena_strdup(a, s) : NULL;
}

/* A deep copy of an entry into a. */
static ice_manifest_entry_t *copy_entry(fl_arena_t *a, const ice_manifest_entry_t *e) {
  ice_manifest_entry_t *c = fl_arena_alloc(a, sizeof *c);
  *c = *e;
  ice_data_file_t *f = &c->file;
  const ice_data_file_t *g = &e->file;
  f->path = copy_str(a, g->path);
  f->format = copy_str(a, g->format);
  f->referenced_data_file = copy_str(a, g->referenced_data_file);
  f->key_metadata = copy_bytes(a, g->key_metadata);
  f->partition = fl_arena_alloc(a, (g->npartition ? g->npartition : 1) * sizeof *f->partition);
  for (uint32_t i = 0; i < g->npartition; i++) {
    f->partition[i] = g->partition[i];
    ty_value_t *v = &f->partition[i];
    if (!v->is_null &&
        (v->kind == TY_STRING || v->kind == TY_BINARY || v->kind == TY_FIXED || v->kind == TY_UUID))
      v->u.bytes.p = fl_arena_memdup(a, v->u.bytes.p, v->u.bytes.n ? v->u.bytes.n : 1);
  }
  f->cols = fl_arena_alloc(a, (g->ncols ? g->ncols : 1) * sizeof *f->cols);
  for (uint32_t i = 0; i < g->ncols; i++) {
    f->cols[i] = g->cols[i];
    f->cols[i].lower = copy_bytes(a, g->cols[i].lower);
    f->cols[i].upper = copy_bytes(a, g->cols[i].upper);
  }
  f->split_offsets = g->nsplit_offsets
                         ? fl_arena_memdup(a, g->split_offsets, g->nsplit_offsets * sizeof(int64_t))
                         : NULL;
  f->equality_ids = g->nequality_ids
                        ? fl_arena_memdup(a, g->equality_ids, g->nequality_ids * sizeof(int32_t))
                        : NULL;
  return c;
}

static int read_manifest(planner_t *p, const ice_manifest_file_t *mf, fl_err_t *err) {
  ice_scan_t *s = p->s;
  s->stats.manifests_total++;
  const spec_info_t *msi = spec_info(p, mf->spec_id);
  if (msi->projected && mf->partitions && msi->ptype &&
      !ice_manifest_might_match(msi->projected, msi->ptype, mf)) {
    s->stats.manifests_skipped++;
    return FL_OK;
  }
  fl_arena_t *scratch = fl_arena_new(0);
  ice_manifest_entry_t *es;
  size_t ne;
  int rc = ice__read_manifest(s->t, scratch, mf, &es, &ne, err);
  if (rc) {
    fl_arena_free(scratch);
    return fl_err_prefix(err, "table %s: ", s->t->ident);
  }
  for (size_t i = 0; i < ne; i++) {
    const ice_manifest_entry_t *e = &es[i];
    if (e->status == ICE_STATUS_DELETED) continue;
    const spec_info_t *si = e->file.spec_id == mf->spec_id ? msi : spec_info(p, e->file.spec_id);
    bool part_ok = !si->projected || !si->ptype || e->file.npartition != si->ptype->nfields ||
                   ice_partition_eval(si->projected, si->ptype, e->file.partition);
    switch (e->file.content) {
      case ICE_CONTENT_DATA:
        s->stats.files_total++;
        if (!part_ok) {
          s->stats.files_skipped_partition++;
          continue;
        }
        if (s->filter && !ice_metrics_might_match(s->filter, s->schema, &e->file)) {
          s->stats.files_skipped_metrics++;
          continue;
        }
        push_entry(&p->data, &p->ndata, &p->data_cap, copy_entry(s->a, e));
        break;
      case ICE_CONTENT_POSITION_DELETES:
        if (!part_ok) continue;
        push_entry(&p->pos, &p->npos, &p->pos_cap, copy_entry(s->a, e));
        break;
      case ICE_CONTENT_EQUALITY_DELETES:
        if (!part_ok) continue;
        push_entry(&p->eq, &p->neq, &p->eq_cap, copy_entry(s->a, e));
        break;
      default:
        rc = fl_err_set(err, FL_ECORRUPT, "table %s: manifest %s: entry %zu has content %d",
                        s->t->ident, mf->path, i, (int)e->file.content);
        fl_arena_free(scratch);
        return rc;
    }
  }
  fl_arena_free(scratch);
  return FL_OK;
}

/* ---- pairing deletes with data files ---- */

/* The bytes that identify a file's spec and partition tuple: equal keys,
 * equal partitions (values compared by representation, as the spec's
 * partition equality does within one spec). */
static void partition_key(const ice_data_file_t *f, fl_buf_t *out) {
  fl_buf_clear(out);
  fl_buf_append_le32(out, (uint32_t)f->spec_id);
  for (uint32_t i = 0; i < f->npartition; i++) {
    const ty_value_t *v = &f->partition[i];
    if (v->is_null) {
      fl_buf_append_u8(out, 0);
      continue;
    }
    fl_buf_append_u8(out, 1);
    fl_buf_append_u8(out, (uint8_t)v->kind);
    switch (v->kind) {
      case TY_BOOLEAN: fl_buf_append_u8(out, v->u.b); break;
      case TY_INT:
      case TY_DATE: fl_buf_append_le32(out, (uint32_t)v->u.i32); break;
      case TY_FLOAT: fl_buf_append(out, &v->u.f32, sizeof v->u.f32); break;
      case TY_DOUBLE: fl_buf_append(out, &v->u.f64, sizeof v->u.f64); break;
      case TY_DECIMAL: fl_buf_append(out, &v->u.i128, sizeof v->u.i128); break;
      case TY_STRING:
      case TY_BINARY:
      case TY_FIXED:
      case TY_UUID:
        fl_buf_append_le32(out, (uint32_t)v->u.bytes.n);
        fl_buf_append(out, v->u.bytes.p, v->u.bytes.n);
        break;
      default: fl_buf_append_le64(out, (uint64_t)v->u.i64); break;
    }
  }
}

static int cmp_path_bytes(const char *path, ice_bytes_t b) {
  size_t n = strlen(path), m = b.n < n ? b.n : n;
  int c = memcmp(path, b.p, m);
  if (c) return c;
  return n < b.n ? -1 : n > b.n ? 1 : 0;
}

/* Whether a position delete file can hold rows for data file path. */
static bool pos_admits_path(const ice_data_file_t *d, const char *path) {
  if (d->referenced_data_file) return strcmp(d->referenced_data_file, path) == 0;
  const ice_col_metrics_t *c = ice_data_file_col(d, ICE_POS_FILE_PATH_ID);
  if (!c) return true;
  if (c->lower.p && cmp_path_bytes(path, c->lower) < 0) return false;
  if (c->upper.p && cmp_path_bytes(path, c->upper) > 0) return false;
  return true;
}

/* ---- equality deletes that cannot touch a data file ---- */

static bool may_have_nulls(const ice_col_metrics_t *c) { return !c || c->null_count != 0; }
static bool all_null(const ice_col_metrics_t *c) {
  return c && c->null_count >= 0 && c->value_count >= 0 && c->null_count == c->value_count;
}

/* Decodes a bound with the column's type; false when absent or undecodable. */
static bool bound(fl_arena_t *a, const ty_type_t *t, ice_bytes_t b, ty_value_t *out) {
  fl_err_t ignored;
  return b.p && ice_value_from_bytes(a, t, b.p, b.n, "bound", out, &ignored) == FL_OK &&
         !out->is_null;
}

/*
 * Whether equality delete file x can delete rows of data file d, judged
 * by their column metrics per equality column: rows with nulls meet only
 * nulls, values only overlapping value ranges (as Java's delete index
 * decides). Floating-point columns are never ruled out (NaN bounds).
 */
static bool eq_may_apply(ice_scan_t *s, fl_arena_t *a, const ice_data_file_t *x,
                         const ice_data_file_t *d) {
  for (uint32_t i = 0; i < x->nequality_ids; i++) {
    int32_t id = x->equality_ids[i];
    const ty_field_t *f = ty_schema_find_id(s->schema, id);
    if (!f || ty_is_nested(f->type) || f->type->kind == TY_FLOAT || f->type->kind == TY_DOUBLE)
      continue;
    const ice_col_metrics_t *dc = ice_data_file_col(d, id), *xc = ice_data_file_col(x, id);
    if (may_have_nulls(dc) && may_have_nulls(xc)) continue;
    if (all_null(dc) || all_null(xc)) return false; /* nulls on one side only */
    ty_value_t dl, du, xl, xu;
    if (!dc || !xc || !bound(a, f->type, dc->lower, &dl) || !bound(a, f->type, dc->upper, &du) ||
        !bound(a, f->type, xc->lower, &xl) || !bound(a, f->type, xc->upper, &xu))
      continue;
    if (ty_value_cmp(&dl, &xu) > 0 || ty_value_cmp(&du, &xl) < 0) return false;
  }
  return true;
}

/* A delete file of a partitioned spec, keyed by its partition. */
typedef struct keyed_delete {
  const uint8_t *key;
  size_t klen;
  const ice_manifest_entry_t *e;
  int32_t eq_index; /* index into p->eq for equality deletes, -1 for position deletes */
} keyed_delete_t;

static int cmp_keyed(const void *x, const void *y) {
  const keyed_delete_t *a = x, *b = y;
  size_t n = a->klen < b->klen ? a->klen : b->klen;
  int c = memcmp(a->key, b->key, n);
  if (c) return c;
  return a->klen < b->klen ? -1 : a->klen > b->klen;
}

typedef struct pairing {
  planner_t *p;
  keyed_delete_t *keyed, *global;
  size_t nkeyed, nglobal;
  int32_t *eq_set_of; /* by index into p->eq: its set, -1 until used */
  const ice_manifest_entry_t **buf;
  fl_arena_t *scratch; /* decoded bounds */
} pairing_t;

/* Adds delete x to task i's list when its sequence number and path allow. */
static int consider(pairing_t *pr, const keyed_delete_t *kd, const ice_manifest_entry_t *d,
                    uint32_t i, uint32_t *k, fl_err_t *err) {
  ice_scan_t *s = pr->p->s;
  const ice_manifest_entry_t *x = kd->e;
  if (kd->eq_index < 0) {
    if (x->sequence_number < d->sequence_number || !pos_admits_path(&x->file, d->file.path))
      return FL_OK;
    pr->buf[(*k)++] = x;
    return FL_OK;
  }
  if (x->sequence_number <= d->sequence_number) return FL_OK;
  if (x->file.nequality_ids == 0)
    return fl_err_set(err, FL_ECORRUPT, "table %s: equality delete file %s has no equality ids",
                      s->t->ident, x->file.path);
  if (!eq_may_apply(s, pr->scratch, &x->file, &d->file)) return FL_OK;
  int32_t *set_of = &pr->eq_set_of[kd->eq_index];
  if (*set_of < 0) {
    *set_of = (int32_t)s->neq_sets;
    ice_eq_set_t *set = &s->eq_sets[s->neq_sets++];
    set->file = x;
    set->nids = x->file.nequality_ids;
    set->ids = x->file.equality_ids;
  }
  s->eq_sets[*set_of].last_task = i;
  pr->buf[(*k)++] = x;
  return FL_OK;
}

/*
 * Delete files of partitioned specs are sorted by partition key, so each
 * data file finds the ones of its own partition by binary search; those
 * of unpartitioned specs apply everywhere and are checked for every file.
 */
static int pair_deletes(planner_t *p, fl_err_t *err) {
  ice_scan_t *s = p->s;
  size_t nd = p->npos + p->neq;
  s->ntasks = (uint32_t)p->ndata;
  s->tasks = fl_arena_zalloc(s->a, (p->ndata ? p->ndata : 1) * sizeof *s->tasks);
  s->eq_sets = fl_arena_zalloc(s->a, (p->neq ? p->neq : 1) * sizeof *s->eq_sets);
  s->stats.delete_files = nd;
  pairing_t pr = {.p = p, .scratch = fl_arena_new(0)};
  pr.keyed = fl_malloc((nd ? nd : 1) * sizeof *pr.keyed);
  pr.global = fl_malloc((nd ? nd : 1) * sizeof *pr.global);
  pr.eq_set_of = fl_malloc((p->neq ? p->neq : 1) * sizeof *pr.eq_set_of);
  pr.buf = fl_malloc((nd ? nd : 1) * sizeof *pr.buf);
  fl_buf_t key;
  fl_buf_init(&key);
  for (size_t j = 0; j < nd; j++) {
    bool is_eq = j >= p->npos;
    const ice_manifest_entry_t *x = is_eq ? p->eq[j - p->npos] : p->pos[j];
    keyed_delete_t kd = {.e = x, .eq_index = is_eq ? (int32_t)(j - p->npos) : -1};
    if (is_eq) pr.eq_set_of[j - p->npos] = -1;
    if (spec_info(p, x->file.spec_id)->unpartitioned) {
      pr.global[pr.nglobal++] = kd;
      continue;
    }
    partition_key(&x->file, &key);
    kd.key = fl_arena_memdup(s->a, key.data, key.len);
    kd.klen = key.len;
    pr.keyed[pr.nkeyed++] = kd;
  }
  qsort(pr.keyed, pr.nkeyed, sizeof *pr.keyed, cmp_keyed);
  int rc = FL_OK;
  for (size_t i = 0; i < p->ndata && !rc; i++) {
    const ice_manifest_entry_t *d = p->data[i];
    uint32_t k = 0;
    if (pr.nkeyed) {
      partition_key(&d->file, &key);
      keyed_delete_t probe = {.key = key.data, .klen = key.len};
      size_t lo = 0, hi = pr.nkeyed;
      while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cmp_keyed(&pr.keyed[mid], &probe) < 0)
          lo = mid + 1;
        else
          hi = mid;
      }
      for (; lo < pr.nkeyed && !rc && cmp_keyed(&pr.keyed[lo], &probe) == 0; lo++)
        rc = consider(&pr, &pr.keyed[lo], d, (uint32_t)i, &k, err);
    }
    for (size_t j = 0; j < pr.nglobal && !rc; j++)
      rc = consider(&pr, &pr.global[j], d, (uint32_t)i, &k, err);
    fl_arena_reset(pr.scratch);
    ice_scan_task_t *t = &s->tasks[i];
    t->data = d;
    t->ndeletes = k;
    t->deletes = k ? fl_arena_memdup(s->a, pr.buf, k * sizeof *pr.buf) : NULL;
  }
  fl_buf_free(&key);
  fl_arena_free(pr.scratch);
  fl_free(pr.keyed);
  fl_free(pr.global);
  fl_free(pr.eq_set_of);
  fl_free(pr.buf);
  return rc;
}

/* ---- the API ---- */

int ice_scan_plan(const ice_table_t *t, const ice_scan_opts_t *opts, ice_scan_t **out,
                  fl_err_t *err) {
  ice_scan_opts_t dflt = {.snapshot_id = -1, .as_of_ms = -1, .case_sensitive = true, .limit = -1};
  const ice_scan_opts_t *o = opts ? opts : &dflt;
  *out = NULL;
  ice_scan_t *s = fl_calloc(1, sizeof *s);
  s->t = t;
  s->a = fl_arena_new(0);
  s->limit = o->limit;
  s->prune_only = o->prune_only;
  s->name_mapping = ice_meta_property(t->meta, "schema.name-mapping.default");
  planner_t p = {.s = s};
  int rc = choose_snapshot(s, o, err);
  if (rc) goto fail;
  if ((rc = build_projection(s, o, err))) goto fail;
  if (o->filter) {
    ice_expr_t *bound;
    rc = ice_expr_bind(s->a, o->filter, s->schema, o->case_sensitive, &bound, err);
    if (rc) {
      fl_err_prefix(err, "table %s: filter: ", t->ident);
      goto fail;
    }
    s->filter = ice_expr_rewrite_not(s->a, bound);
    if (s->filter->kind == ICE_E_TRUE) s->filter = NULL;
  }
  if (s->snap) {
    ice_manifest_file_t *mfs;
    size_t nm;
    fl_arena_t *lists = fl_arena_new(0);
    rc = ice_snapshot_manifests(t, lists, s->snap, &mfs, &nm, err);
    if (rc) {
      fl_arena_free(lists);
      fl_err_prefix(err, "table %s: ", t->ident);
      goto fail;
    }
    for (size_t i = 0; i < nm && !rc; i++) rc = read_manifest(&p, &mfs[i], err);
    fl_arena_free(lists);
    if (rc) goto fail;
  }
  if ((rc = pair_deletes(&p, err))) goto fail;
  fl_free(p.specs);
  fl_free(p.data);
  fl_free(p.pos);
  fl_free(p.eq);
  *out = s;
  return FL_OK;
fail:
  fl_free(p.specs);
  fl_free(p.data);
  fl_free(p.pos);
  fl_free(p.eq);
  ice_scan_free(s);
  return rc;
}

const ty_schema_t *ice_scan_schema(const ice_scan_t *s) { return s->proj; }
const ice_snapshot_t *ice_scan_snapshot(const ice_scan_t *s) { return s->snap; }
const ice_scan_stats_t *ice_scan_stats(const ice_scan_t *s) { return &s->stats; }

const ice_scan_task_t *ice_scan_tasks(const ice_scan_t *s, uint32_t *n) {
  *n = s->ntasks;
  return s->tasks;
}
