/*
 * sql_bind_files.c - the table functions over files in FROM (layer 7,
 * sql): read_parquet, read_csv and read_json, with DuckDB's names and
 * options since Trino has no such functions.
 *
 * Binding expands the path arguments (one string or a list of strings,
 * each a path or a glob pattern, io_glob) into the files to read, in
 * sorted order per pattern, and reads each file's schema: the Parquet
 * footer, or for CSV and JSON the format layer's inference over the
 * first rows (unless `columns => '...'` gives it). The files' schemas
 * are then unified by column name into the scan's schema:
 *
 *   - without union_by_name every file must have the same column names
 *     (in any order, ignoring case) as the first one, and an error names
 *     the first file that differs;
 *   - with union_by_name => true the columns are the union in first-seen
 *     order, and a file lacking a column reads NULL there;
 *   - a column's types must agree: Parquet allows int with long (long)
 *     and float with double (double); inferred CSV and JSON types widen
 *     (long and double to double, date and timestamp to timestamp,
 *     anything else to string), since those files are decoded again with
 *     the unified schema. Other differences are errors naming both files.
 *
 * Hive partitioning (`year=2024/month=01/` folders): when every path has
 * such folders with the same keys (or hive_partitioning => true says so),
 * each key becomes a column after the files' own, bigint when every value
 * is an integer, date when every value is a date, else varchar, and each
 * file's rows carry its folders' values.
 *
 * The result is a SCAN node with `files` set (sql_plan.h); the executor's
 * file scan (exec/op_file_scan.c) reads it, and the optimizer's
 * pushdown, pruning and limit rules treat it like a table scan.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/time.h"
#include "format/parquet/pq_reader.h"
#include "sql/sql_bind_int.h"

typedef struct func_desc {
  const char *name;
  fmt_kind_t kind;
  int json_format; /* read_ndjson: lines */
} func_desc_t;

static const func_desc_t funcs[] = {
    {"read_parquet", FMT_PARQUET, 0},
    {"parquet_scan", FMT_PARQUET, 0},
    {"read_csv", FMT_CSV, 0},
    {"read_csv_auto", FMT_CSV, 0},
    {"read_json", FMT_JSONL, FMT_JSON_AUTO},
    {"read_json_auto", FMT_JSONL, FMT_JSON_AUTO},
    {"read_ndjson", FMT_JSONL, FMT_JSON_LINES},
    {"read_ndjson_auto", FMT_JSONL, FMT_JSON_LINES},
};

/* One input file and its own schema. */
typedef struct in_file {
  const char *path;
  uint64_t size;
  const ty_schema_t *schema;
} in_file_t;

typedef struct fbind {
  sql_binder_t *b;
  const func_desc_t *fn;
  sql_pos_t pos;
  in_file_t *files;
  uint32_t n, cap;
  const ty_schema_t *columns; /* columns => ... */
  bool all_varchar;
  int hive; /* hive_partitioning: -1 detect, 0 off, 1 on */
  sql_files_t *out;
} fbind_t;

/* ---- argument values ---- */

static int arg_string(fbind_t *f, const sql_table_arg_t *a, const char *what, const char **out) {
  const sql_expr_t *e = a->expr;
  if (a->kind != SQL_TARG_EXPR || e->kind != SQL_E_STRING || memchr(e->u.str.data, 0, e->u.str.len))
    return sql__errf(f->b, a->pos, FL_EINVALID, "%s: %s must be a string literal", f->fn->name,
                     what);
  *out = fl_arena_strndup(f->b->a, e->u.str.data, e->u.str.len);
  return FL_OK;
}

static int arg_bool(fbind_t *f, const sql_table_arg_t *a, bool *out) {
  const sql_expr_t *e = a->expr;
  if (a->kind != SQL_TARG_EXPR || e->kind != SQL_E_BOOL)
    return sql__errf(f->b, a->pos, FL_EINVALID, "%s: %s must be true or false", f->fn->name,
                     a->name.name);
  *out = e->u.b;
  return FL_OK;
}

static int arg_int(fbind_t *f, const sql_table_arg_t *a, int64_t *out) {
  const sql_expr_t *e = a->expr;
  bool neg = false;
  if (a->kind == SQL_TARG_EXPR && e->kind == SQL_E_UNARY && e->u.unary.op == SQL_UN_NEG) {
    neg = true;
    e = e->u.unary.arg;
  }
  if (a->kind != SQL_TARG_EXPR || e->kind != SQL_E_INT)
    return sql__errf(f->b, a->pos, FL_EINVALID, "%s: %s must be an integer", f->fn->name,
                     a->name.name);
  *out = neg ? -e->u.i.value : e->u.i.value;
  return FL_OK;
}

/* ---- files ---- */

static void add_file(fbind_t *f, const char *path, uint64_t size) {
  if (f->n == f->cap) {
    uint32_t nc = f->cap ? f->cap * 2 : 16;
    in_file_t *v = fl_arena_zalloc(f->b->a, nc * sizeof *v);
    if (f->n) memcpy(v, f->files, f->n * sizeof *v);
    f->files = v;
    f->cap = nc;
  }
  f->files[f->n++] = (in_file_t){.path = fl_arena_strdup(f->b->a, path), .size = size};
}

static int cmp_entry_path(const void *a, const void *b) {
  return strcmp(((const io_entry_t *)a)->path, ((const io_entry_t *)b)->path);
}

/* A directory: the files below it, at any depth, whose extension is the
 * function's format (as DuckDB reads a directory); false when path is not
 * a directory with files. */
static bool expand_dir(fbind_t *f, const char *path, sql_pos_t pos, int *rc) {
  io_fs_t *fs = f->b->o->fs;
  io_entry_t *e;
  size_t n;
  fl_err_t e2;
  fl_err_clear(&e2);
  *rc = FL_OK;
  if (fs->list(fs, path, &e, &n, &e2) != FL_OK) return false; /* a file */
  if (n == 0) {
    io_entries_free(e, n);
    return false;
  }
  qsort(e, n, sizeof *e, cmp_entry_path);
  uint32_t added = 0;
  for (size_t i = 0; i < n; i++)
    if (fmt_kind_from_path(e[i].path) == f->fn->kind) {
      add_file(f, e[i].path, e[i].size);
      added++;
    }
  io_entries_free(e, n);
  if (!added)
    *rc = sql__errf(f->b, pos, FL_ENOTFOUND, "%s: directory '%s' holds no %s files", f->fn->name,
                    path, fmt_kind_name(f->fn->kind));
  return true;
}

static int expand(fbind_t *f, const char *pattern, sql_pos_t pos) {
  io_fs_t *fs = f->b->o->fs;
  io_entry_t *e;
  size_t n;
  fl_err_t e2;
  fl_err_clear(&e2);
  int drc;
  if (!io_glob_has_magic(pattern) && expand_dir(f, pattern, pos, &drc)) return drc;
  int rc = io_glob(fs, pattern, &e, &n, &e2);
  if (rc) return sql__errf(f->b, pos, rc, "%s: %s", f->fn->name, e2.msg);
  if (n == 0) {
    if (!io_glob_has_magic(pattern))
      return sql__errf(f->b, pos, FL_ENOTFOUND, "%s: file '%s' does not exist", f->fn->name,
                       pattern);
    return sql__errf(f->b, pos, FL_ENOTFOUND, "%s: no files match the pattern '%s'", f->fn->name,
                     pattern);
  }
  for (size_t i = 0; i < n; i++) add_file(f, e[i].path, e[i].size);
  io_entries_free(e, n);
  return FL_OK;
}

static int paths_arg(fbind_t *f, const sql_table_arg_t *a) {
  const sql_expr_t *e = a->expr;
  if (a->kind == SQL_TARG_EXPR && e->kind == SQL_E_ARRAY) {
    if (e->u.row.items.n == 0)
      return sql__errf(f->b, a->pos, FL_EINVALID, "%s: the list of files is empty", f->fn->name);
    for (size_t i = 0; i < e->u.row.items.n; i++) {
      const sql_expr_t *x = e->u.row.items.items[i];
      if (x->kind != SQL_E_STRING || memchr(x->u.str.data, 0, x->u.str.len))
        return sql__errf(f->b, x->pos, FL_EINVALID,
                         "%s: the list of files must hold string literals", f->fn->name);
      int rc = expand(f, fl_arena_strndup(f->b->a, x->u.str.data, x->u.str.len), x->pos);
      if (rc) return rc;
    }
    return FL_OK;
  }
  const char *p;
  int rc = arg_string(f, a, "the path", &p);
  if (rc) return rc;
  return expand(f, p, a->pos);
}

/* ---- schemas ---- */

/* A copy of t in arena a (readers' schemas die with them). */
static const ty_type_t *copy_type(fl_arena_t *a, const ty_type_t *t) {
  if (t->kind == TY_DECIMAL) return ty_decimal(a, t->precision, t->scale);
  if (t->kind == TY_FIXED) return ty_fixed(a, t->length);
  if (!ty_is_nested(t)) return ty_primitive(t->kind);
  fl_buf_t b;
  fl_buf_init(&b);
  ty_type_format(t, &b);
  fl_buf_append_u8(&b, 0);
  int32_t next = 1;
  const ty_type_t *c = NULL;
  fl_err_t e;
  fl_err_clear(&e);
  if (ty_type_parse(a, (const char *)b.data, &next, &c, &e)) c = NULL;
  fl_buf_free(&b);
  return c;
}

static const ty_schema_t *copy_schema(fl_arena_t *a, const ty_schema_t *s) {
  uint32_t n = s->root.nfields;
  ty_field_t *fs = fl_arena_zalloc(a, (n ? n : 1) * sizeof *fs);
  uint32_t k = 0;
  for (uint32_t i = 0; i < n; i++) {
    const ty_type_t *t = copy_type(a, s->root.fields[i].type);
    if (!t) continue;
    fs[k] = (ty_field_t){
        .id = (int32_t)k + 1, .name = fl_arena_strdup(a, s->root.fields[i].name), .type = t};
    k++;
  }
  return ty_schema_new(a, 0, fs, k);
}

static int read_schema(fbind_t *f, in_file_t *in) {
  fl_err_t e2;
  fl_err_clear(&e2);
  io_fs_t *fs = f->b->o->fs;
  int rc;
  if (f->fn->kind == FMT_PARQUET) {
    io_reader_t *io;
    if ((rc = fs->open_read(fs, in->path, &io, &e2))) goto fail;
    in->size = io->size;
    int32_t none = 0;
    pq_read_opts_t o = {.field_ids = &none, .nfield_ids = 0};
    pq_reader_t *r;
    if ((rc = pq_reader_open_io(io, &o, &r, &e2))) goto fail;
    in->schema = copy_schema(f->b->a, pq_reader_file_schema(r));
    const pq_file_meta_t *m = pq_reader_file_meta(r);
    if (f->out->est_rows >= 0) f->out->est_rows += m->num_rows;
    pq_reader_close(r);
    return FL_OK;
  }
  if (f->columns) {
    /* The given columns: the file need only exist and be readable. */
    io_reader_t *io;
    if ((rc = fs->open_read(fs, in->path, &io, &e2))) goto fail;
    in->size = io->size;
    io->close(io);
    in->schema = f->columns;
    return FL_OK;
  }
  fmt_reader_t *r;
  fmt_read_opts_t o = f->out->read;
  if ((rc = fmt_open_reader(fs, in->path, &o, &r, &e2))) goto fail;
  in->schema = copy_schema(f->b->a, r->schema);
  r->close(r);
  io_reader_t *io;
  if (!fs->open_read(fs, in->path, &io, &e2)) {
    in->size = io->size;
    io->close(io);
  }
  return FL_OK;
fail:
  /* Readers' messages begin with the path; add it when they do not. */
  if (strstr(e2.msg, in->path)) return sql__errf(f->b, f->pos, rc, "%s: %s", f->fn->name, e2.msg);
  return sql__errf(f->b, f->pos, rc, "%s: %s: %s", f->fn->name, in->path, e2.msg);
}

static int find_field(const ty_field_t *fs, uint32_t n, const char *name) {
  for (uint32_t i = 0; i < n; i++)
    if (!strcasecmp(fs[i].name, name)) return (int)i;
  return -1;
}

static bool same_type(const ty_type_t *a, const ty_type_t *b) {
  if (a->kind != b->kind || a->nfields != b->nfields) return false;
  if (a->kind == TY_DECIMAL && (a->precision != b->precision || a->scale != b->scale)) return false;
  if (a->kind == TY_FIXED && a->length != b->length) return false;
  for (uint32_t i = 0; i < a->nfields; i++) {
    if (a->kind == TY_STRUCT && strcasecmp(a->fields[i].name, b->fields[i].name)) return false;
    if (!same_type(a->fields[i].type, b->fields[i].type)) return false;
  }
  return true;
}

/* The type a column of types x and y reads as, or NULL when they conflict. */
static const ty_type_t *unify(const fbind_t *f, const ty_type_t *x, const ty_type_t *y) {
  if (same_type(x, y)) return x;
  ty_kind_t a = x->kind, b = y->kind;
  if (a > b) {
    ty_kind_t t = a;
    a = b;
    b = t;
  }
  if (a == TY_INT && b == TY_LONG) return ty_primitive(TY_LONG);
  if (a == TY_FLOAT && b == TY_DOUBLE) return ty_primitive(TY_DOUBLE);
  if (f->fn->kind == FMT_PARQUET) return NULL;
  /* Inferred text types. */
  if ((a == TY_LONG || a == TY_INT) && b == TY_DOUBLE) return ty_primitive(TY_DOUBLE);
  if (a == TY_DATE && b == TY_TIMESTAMP) return ty_primitive(TY_TIMESTAMP);
  return ty_primitive(TY_STRING);
}

static void type_text(const ty_type_t *t, char *buf, size_t cap) {
  fl_buf_t b;
  fl_buf_init(&b);
  ty_type_format(t, &b);
  snprintf(buf, cap, "%.*s", (int)b.len, (const char *)b.data);
  fl_buf_free(&b);
}

static int unify_schemas(fbind_t *f) {
  fl_arena_t *a = f->b->a;
  uint32_t cap = 16, n = 0;
  ty_field_t *u = fl_arena_zalloc(a, cap * sizeof *u);
  uint32_t *origin = fl_arena_zalloc(a, cap * sizeof *origin); /* file that set the type */
  for (uint32_t fi = 0; fi < f->n; fi++) {
    const ty_schema_t *s = f->files[fi].schema;
    for (uint32_t i = 0; i < s->root.nfields; i++) {
      const ty_field_t *fd = &s->root.fields[i];
      int j = find_field(u, n, fd->name);
      if (j < 0) {
        if (fi > 0 && !f->out->union_by_name)
          return sql__errf(f->b, f->pos, FL_EINVALID,
                           "%s: file '%s' has a column '%s' that '%s' does not have (use "
                           "union_by_name => true to read the union of the files' columns)",
                           f->fn->name, f->files[fi].path, fd->name, f->files[0].path);
        if (n == cap) {
          ty_field_t *nu = fl_arena_zalloc(a, 2 * cap * sizeof *nu);
          uint32_t *no = fl_arena_zalloc(a, 2 * cap * sizeof *no);
          memcpy(nu, u, n * sizeof *u);
          memcpy(no, origin, n * sizeof *origin);
          u = nu;
          origin = no;
          cap *= 2;
        }
        u[n] = (ty_field_t){.id = (int32_t)n + 1, .name = fd->name, .type = fd->type};
        origin[n] = fi;
        n++;
        continue;
      }
      const ty_type_t *t = unify(f, u[j].type, fd->type);
      if (!t) {
        char ta[128], tb[128];
        type_text(u[j].type, ta, sizeof ta);
        type_text(fd->type, tb, sizeof tb);
        return sql__errf(f->b, f->pos, FL_EINVALID, "%s: column '%s' is %s in '%s' but %s in '%s'",
                         f->fn->name, fd->name, tb, f->files[fi].path, ta,
                         f->files[origin[j]].path);
      }
      u[j].type = t;
    }
    if (fi > 0 && !f->out->union_by_name && s->root.nfields != n) {
      for (uint32_t j = 0; j < n; j++)
        if (find_field(s->root.fields, s->root.nfields, u[j].name) < 0)
          return sql__errf(f->b, f->pos, FL_EINVALID,
                           "%s: file '%s' lacks the column '%s' of '%s' (use union_by_name => "
                           "true to read the union of the files' columns)",
                           f->fn->name, f->files[fi].path, u[j].name, f->files[0].path);
    }
  }
  if (f->all_varchar)
    for (uint32_t j = 0; j < n; j++) u[j].type = ty_primitive(TY_STRING);
  f->out->schema = ty_schema_new(a, 0, u, n);
  return FL_OK;
}

/* ---- Hive partitioning ---- */

typedef struct hive_kv {
  const char *key, *value;
} hive_kv_t;

static int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* %XX escapes decoded, as Hive writes them. */
static const char *url_decode(fl_arena_t *a, const char *s, size_t n) {
  char *o = fl_arena_alloc(a, n + 1), *d = o;
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '%' && i + 2 < n && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0 &&
        (hex(s[i + 1]) || hex(s[i + 2]))) {
      *d++ = (char)(hex(s[i + 1]) * 16 + hex(s[i + 2]));
      i += 2;
      continue;
    }
    *d++ = s[i];
  }
  *d = 0;
  return o;
}

/* The key=value folders of path (later ones win), in *kv. */
static uint32_t path_keys(fl_arena_t *a, const char *path, hive_kv_t **kv) {
  uint32_t n = 0, cap = 0;
  *kv = NULL;
  const char *seg = path;
  for (const char *slash; (slash = strchr(seg, '/')); seg = slash + 1) {
    const char *eq = memchr(seg, '=', (size_t)(slash - seg));
    if (!eq || eq == seg) continue;
    const char *key = url_decode(a, seg, (size_t)(eq - seg));
    const char *val = url_decode(a, eq + 1, (size_t)(slash - eq - 1));
    if (!strcmp(val, "__HIVE_DEFAULT_PARTITION__")) val = NULL;
    uint32_t k = 0;
    while (k < n && strcasecmp((*kv)[k].key, key)) k++;
    if (k == n) {
      if (n == cap) {
        cap = cap ? cap * 2 : 4;
        hive_kv_t *v = fl_arena_zalloc(a, cap * sizeof *v);
        if (n) memcpy(v, *kv, n * sizeof *v);
        *kv = v;
      }
      n++;
    }
    (*kv)[k] = (hive_kv_t){key, val};
  }
  return n;
}

static int cmp_kv(const void *x, const void *y) {
  return strcasecmp(((const hive_kv_t *)x)->key, ((const hive_kv_t *)y)->key);
}

/* Whether s is an integer written as bigint prints it (so "01" is not:
 * DuckDB keeps such values text as well). */
static bool all_integers(const char *s) {
  if (*s == '-') s++;
  size_t n = strlen(s);
  if (n == 0 || n > 18 || (n > 1 && s[0] == '0')) return false;
  for (; *s; s++)
    if (*s < '0' || *s > '9') return false;
  return true;
}

/* Finds the files' partition keys and appends their columns to the schema. */
static int bind_hive(fbind_t *f) {
  sql_files_t *o = f->out;
  if (f->hive == 0 || f->n == 0) return FL_OK;
  fl_arena_t *a = f->b->a;
  hive_kv_t *first;
  uint32_t nk = path_keys(a, f->files[0].path, &first);
  if (nk == 0) {
    if (f->hive == 1)
      return sql__errf(f->b, f->pos, FL_EINVALID,
                       "%s: hive_partitioning: '%s' has no key=value folders", f->fn->name,
                       f->files[0].path);
    return FL_OK;
  }
  qsort(first, nk, sizeof *first, cmp_kv);
  const char **values = fl_arena_zalloc(a, (size_t)f->n * nk * sizeof *values);
  for (uint32_t i = 0; i < f->n; i++) {
    hive_kv_t *kv;
    uint32_t m = path_keys(a, f->files[i].path, &kv);
    bool same = m == nk;
    if (same) qsort(kv, m, sizeof *kv, cmp_kv);
    for (uint32_t k = 0; same && k < nk; k++) same = !strcasecmp(kv[k].key, first[k].key);
    if (!same) {
      if (f->hive == -1) return FL_OK; /* not a partitioned layout: no columns */
      return sql__errf(f->b, f->pos, FL_EINVALID,
                       "%s: hive_partitioning: '%s' has other key=value folders than '%s'",
                       f->fn->name, f->files[i].path, f->files[0].path);
    }
    for (uint32_t k = 0; k < nk; k++) values[(size_t)i * nk + k] = kv[k].value;
  }
  /* Keys the files have as columns stay the files' columns. */
  const ty_schema_t *s = o->schema;
  uint32_t nf = s->root.nfields;
  ty_field_t *fs = fl_arena_zalloc(a, (nf + nk) * sizeof *fs);
  memcpy(fs, s->root.fields, nf * sizeof *fs);
  const char **keys = fl_arena_zalloc(a, nk * sizeof *keys);
  const char **vals = fl_arena_zalloc(a, (size_t)f->n * nk * sizeof *vals);
  uint32_t kept = 0;
  for (uint32_t k = 0; k < nk; k++) {
    if (find_field(fs, nf, first[k].key) >= 0) continue;
    bool ints = true, dates = true;
    for (uint32_t i = 0; i < f->n; i++) {
      const char *v = values[(size_t)i * nk + k];
      if (!v) continue;
      int32_t days;
      ints &= all_integers(v);
      dates &= strlen(v) == 10 && fl_parse_date(v, 10, &days);
    }
    ty_kind_t kind = f->all_varchar ? TY_STRING : ints ? TY_LONG : dates ? TY_DATE : TY_STRING;
    fs[nf + kept] = (ty_field_t){
        .id = (int32_t)(nf + kept) + 1, .name = first[k].key, .type = ty_primitive(kind)};
    keys[kept] = first[k].key;
    for (uint32_t i = 0; i < f->n; i++) vals[(size_t)i * nk + kept] = values[(size_t)i * nk + k];
    kept++;
  }
  /* Repack the values to the kept keys. */
  size_t cells = (size_t)f->n * kept;
  const char **packed = fl_arena_zalloc(a, (cells ? cells : 1) * sizeof *packed);
  for (uint32_t i = 0; i < f->n; i++)
    for (uint32_t k = 0; k < kept; k++) packed[(size_t)i * kept + k] = vals[(size_t)i * nk + k];
  o->schema = ty_schema_new(a, 0, fs, nf + kept);
  o->nhive = kept;
  o->hive_keys = keys;
  o->hive_values = packed;
  return FL_OK;
}

/* ---- options ---- */

/* A DuckDB type name as the schema syntax spells it. */
static const char *duckdb_type(const char *t) {
  static const struct {
    const char *duck, *ours;
  } map[] = {{"tinyint", "int"},
             {"smallint", "int"},
             {"int1", "int"},
             {"int2", "int"},
             {"int4", "int"},
             {"int8", "long"},
             {"float4", "float"},
             {"float8", "double"},
             {"text", "string"},
             {"blob", "binary"},
             {"bytea", "binary"},
             {"timestamptz", "timestamptz"},
             {"timestamp with time zone", "timestamptz"}};
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (!strcasecmp(t, map[i].duck)) return map[i].ours;
  return t;
}

/* columns => {'name': 'TYPE', ...} (DuckDB's form) as schema text. */
static int columns_struct(fbind_t *f, const sql_table_arg_t *a, const char **out) {
  const sql_call_t *c = &a->expr->u.call;
  if (c->args.n == 0)
    return sql__errf(f->b, a->pos, FL_EINVALID, "%s: columns is empty", f->fn->name);
  fl_buf_t b;
  fl_buf_init(&b);
  for (size_t i = 0; i < c->args.n; i++) {
    const sql_expr_t *v = c->args.items[i];
    if (v->kind != SQL_E_STRING || memchr(v->u.str.data, 0, v->u.str.len)) {
      fl_buf_free(&b);
      return sql__errf(f->b, v->pos, FL_EINVALID,
                       "%s: columns => {'name': 'TYPE', ...} takes type names as strings",
                       f->fn->name);
    }
    if (i) fl_buf_append_str(&b, ", ");
    fl_buf_append_u8(&b, '"');
    for (const char *n = c->arg_names[i].name; *n; n++) {
      if (*n == '"') fl_buf_append_u8(&b, '"');
      fl_buf_append_u8(&b, (uint8_t)*n);
    }
    fl_buf_append_str(&b, "\" ");
    char *t = fl_arena_strndup(f->b->a, v->u.str.data, v->u.str.len);
    fl_buf_append_str(&b, duckdb_type(t));
  }
  *out = fl_arena_strndup(f->b->a, (const char *)b.data, b.len);
  fl_buf_free(&b);
  return FL_OK;
}

static int option(fbind_t *f, const sql_table_arg_t *a) {
  const char *name = a->name.name;
  sql_files_t *o = f->out;
  int rc;
  bool text = f->fn->kind != FMT_PARQUET;
  if (!strcasecmp(name, "union_by_name")) return arg_bool(f, a, &o->union_by_name);
  if (!strcasecmp(name, "filename")) return arg_bool(f, a, &o->filename);
  if (!strcasecmp(name, "hive_partitioning")) {
    bool v = false;
    if ((rc = arg_bool(f, a, &v))) return rc;
    f->hive = v;
    return FL_OK;
  }
  if (text && !strcasecmp(name, "columns")) {
    const char *s = NULL;
    if (a->kind == SQL_TARG_EXPR && a->expr->kind == SQL_E_CALL &&
        !strcmp(a->expr->u.call.name.parts[0].name, "struct_pack")) {
      if ((rc = columns_struct(f, a, &s))) return rc;
    } else if ((rc = arg_string(f, a, "columns (a list such as 'id bigint, name varchar')", &s))) {
      return rc;
    }
    ty_schema_t *sch;
    fl_err_t e2;
    fl_err_clear(&e2);
    if (ty_schema_parse(f->b->a, s, &sch, &e2))
      return sql__errf(f->b, a->pos, FL_EINVALID, "%s: columns: %s", f->fn->name, e2.msg);
    if (sch->root.nfields == 0)
      return sql__errf(f->b, a->pos, FL_EINVALID, "%s: columns is empty", f->fn->name);
    f->columns = sch;
    return FL_OK;
  }
  if (text && !strcasecmp(name, "sample_size")) {
    int64_t v = 0;
    if ((rc = arg_int(f, a, &v))) return rc;
    if (v == 0 || v < -1)
      return sql__errf(f->b, a->pos, FL_EINVALID, "%s: sample_size must be positive or -1 (all)",
                       f->fn->name);
    o->read.infer_rows = v < 0 || v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
    return FL_OK;
  }
  if (f->fn->kind == FMT_CSV) {
    if (!strcasecmp(name, "header")) {
      bool v = false;
      if ((rc = arg_bool(f, a, &v))) return rc;
      o->read.csv_no_header = !v;
      return FL_OK;
    }
    if (!strcasecmp(name, "delim") || !strcasecmp(name, "sep") || !strcasecmp(name, "delimiter")) {
      const char *s;
      if ((rc = arg_string(f, a, name, &s))) return rc;
      if (!strcmp(s, "\\t")) s = "\t";
      if (strlen(s) != 1 || *s == '"' || *s == '\n' || *s == '\r')
        return sql__errf(f->b, a->pos, FL_EINVALID,
                         "%s: %s must be one character other than a quote or a newline",
                         f->fn->name, name);
      o->read.csv_delimiter = *s;
      return FL_OK;
    }
    if (!strcasecmp(name, "all_varchar")) return arg_bool(f, a, &f->all_varchar);
    if (!strcasecmp(name, "auto_detect")) {
      bool v = false;
      return arg_bool(f, a, &v);
    }
  }
  if (f->fn->kind == FMT_JSONL) {
    if (!strcasecmp(name, "format")) {
      const char *s;
      if ((rc = arg_string(f, a, "format", &s))) return rc;
      if (!strcasecmp(s, "auto"))
        o->read.json_format = FMT_JSON_AUTO;
      else if (!strcasecmp(s, "newline_delimited"))
        o->read.json_format = FMT_JSON_LINES;
      else if (!strcasecmp(s, "array"))
        o->read.json_format = FMT_JSON_ARRAY;
      else
        return sql__errf(f->b, a->pos, FL_EUNSUPPORTED,
                         "%s: format '%s' is not supported (auto, newline_delimited, array)",
                         f->fn->name, s);
      return FL_OK;
    }
    if (!strcasecmp(name, "records")) {
      const char *s;
      if ((rc = arg_string(f, a, "records", &s))) return rc;
      if (strcasecmp(s, "auto") && strcasecmp(s, "true"))
        return sql__errf(f->b, a->pos, FL_EUNSUPPORTED,
                         "%s: records must be 'auto' or 'true' (rows are JSON objects)",
                         f->fn->name);
      return FL_OK;
    }
  }
  return sql__errf(f->b, a->pos, FL_EINVALID, "%s: unknown option '%s'", f->fn->name, name);
}

/* ---- the table function ---- */

static const func_desc_t *find_func(const sql_qname_t *q) {
  if (q->n != 1) return NULL;
  for (size_t i = 0; i < sizeof funcs / sizeof funcs[0]; i++)
    if (!strcasecmp(q->parts[0].name, funcs[i].name)) return &funcs[i];
  return NULL;
}

int sql__bind_table_function(sql_binder_t *b, const sql_rel_t *rel, sql_plan_t **out,
                             sql_scope_t *scope) {
  const sql_qname_t *q = &rel->u.func.name;
  const func_desc_t *fn = find_func(q);
  if (!fn)
    return sql__errf(b, rel->pos, FL_ENOTFOUND, "Table function '%s' does not exist",
                     q->parts[q->n - 1].name);
  sql_files_t *files = fl_arena_zalloc(b->a, sizeof *files);
  files->func = fn->name;
  files->fs = b->o->fs;
  files->pos = rel->pos;
  files->kind = fn->kind;
  files->read.kind = fn->kind;
  files->read.json_format = fn->json_format;
  fbind_t f = {.b = b, .fn = fn, .pos = rel->pos, .out = files, .hive = -1};
  const sql_table_arg_t *paths = NULL;
  int rc;
  for (size_t i = 0; i < rel->u.func.nargs; i++) {
    const sql_table_arg_t *a = &rel->u.func.args[i];
    if (!a->name.name) {
      if (paths)
        return sql__errf(b, a->pos, FL_EINVALID,
                         "%s takes one path or list of paths; options are name => value", fn->name);
      paths = a;
      continue;
    }
    if ((rc = option(&f, a))) return rc;
  }
  if (!paths)
    return sql__errf(b, rel->pos, FL_EINVALID, "%s needs a path, a glob pattern or a list of them",
                     fn->name);
  if ((rc = paths_arg(&f, paths))) return rc;
  files->est_rows = fn->kind == FMT_PARQUET ? 0 : -1;
  for (uint32_t i = 0; i < f.n; i++)
    if ((rc = read_schema(&f, &f.files[i]))) return rc;
  if ((rc = unify_schemas(&f))) return rc;
  if ((rc = bind_hive(&f))) return rc;
  if (files->filename &&
      find_field(files->schema->root.fields, files->schema->root.nfields, SQL_FILES_FILENAME) >= 0)
    return sql__errf(b, rel->pos, FL_EINVALID,
                     "%s: the files have a column named filename; it cannot also be added",
                     fn->name);
  files->npaths = f.n;
  files->paths = fl_arena_zalloc(b->a, f.n * sizeof *files->paths);
  files->sizes = fl_arena_zalloc(b->a, f.n * sizeof *files->sizes);
  for (uint32_t i = 0; i < f.n; i++) {
    files->paths[i] = f.files[i].path;
    files->sizes[i] = f.files[i].size;
  }

  sql_plan_t *p = sql_plan_new(b->a, SQL_P_SCAN, NULL);
  p->u.scan.files = files;
  p->u.scan.ident = f.n == 1 ? fl_arena_sprintf(b->a, "%s('%s')", fn->name, f.files[0].path)
                             : fl_arena_sprintf(b->a, "%s(%u files)", fn->name, f.n);
  p->u.scan.snapshot_id = -1;
  p->u.scan.as_of_ms = -1;
  p->u.scan.limit = -1;
  const ty_schema_t *s = files->schema;
  uint32_t n = s->root.nfields + (files->filename ? 1 : 0);
  p->cols = fl_arena_zalloc(b->a, (n ? n : 1) * sizeof *p->cols);
  p->u.scan.columns = fl_arena_zalloc(b->a, (n ? n : 1) * sizeof *p->u.scan.columns);
  uint32_t k = 0;
  for (uint32_t i = 0; i < s->root.nfields; i++) {
    const ty_field_t *fd = &s->root.fields[i];
    sql_dtype_t dt;
    /* As for tables: columns SQL cannot type yet are left out. */
    if (b->o->resolver->from_storage(b->o->resolver->ctx, fd->type, &dt, b->err)) continue;
    p->cols[k] = (sql_col_t){.name = fd->name, .type = dt};
    p->u.scan.columns[k] = fd->name;
    k++;
  }
  fl_err_clear(b->err);
  if (files->filename) {
    p->cols[k] = (sql_col_t){.name = SQL_FILES_FILENAME, .type = sql_dtype(SQL_DT_VARCHAR)};
    p->u.scan.columns[k] = SQL_FILES_FILENAME;
    k++;
  }
  if (k == 0)
    return sql__errf(b, rel->pos, FL_EUNSUPPORTED, "%s: the files have no column SQL can read",
                     fn->name);
  p->ncols = k;
  const char *qual = rel->alias.name ? rel->alias.name : fn->name;
  if (rel->alias.name && rel->alias_cols.n) {
    if (rel->alias_cols.n != k)
      return sql__errf(b, rel->pos, FL_EINVALID,
                       "Column alias list has %zu entries but '%s' has %u columns",
                       rel->alias_cols.n, qual, k);
    p = sql__project_all(b, p);
    for (uint32_t i = 0; i < k; i++) p->cols[i].name = rel->alias_cols.items[i].name;
  }
  sql__plan_scope(b, p, qual, scope);
  *out = p;
  return FL_OK;
}
