/*
 * sql_ddl_util.c - helpers of the table-management statements (layer 12,
 * cli): positioned errors, table names and handles, result building, and
 * Trino's Duration and DataSize texts ('7d', '128MB') as its airlift
 * classes read and print them.
 */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "catalog/cat_tables.h"
#include "cli/sql_ddl_int.h"
#include "io/fs.h"

int sql__errp(fl_err_t *err, sql_pos_t pos, int code, const char *fmt, ...) {
  char msg[sizeof err->msg];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return fl_err_set(err, code, "line %u, column %u: %s", pos.line, pos.col, msg);
}

int sql__errp_wrap(fl_err_t *err, sql_pos_t pos, int code) {
  if (strncmp(err->msg, "line ", 5) == 0) return code;
  char msg[sizeof err->msg];
  memcpy(msg, err->msg, sizeof msg);
  bool retriable = err->retriable;
  fl_err_set(err, code, "line %u, column %u: %.900s", pos.line, pos.col, msg);
  err->retriable = retriable;
  return code;
}

void sql__table_ident(const sql_session_t *s, const sql_qname_t *q, const char **ns,
                      const char **name) {
  *name = q->parts[q->n - 1].name;
  *ns = q->n >= 2 ? q->parts[q->n - 2].name : (s->default_ns ? s->default_ns : "default");
}

static void table_cleanup(void *t) { ice_table_free(t); }

int sql__ddl_open(const sql_session_t *s, fl_arena_t *a, const sql_qname_t *q, ice_table_t **out,
                  fl_err_t *err) {
  const char *ns, *name;
  if (q->n > 3) return sql__errp(err, q->parts[0].pos, FL_EINVALID, "Too many dots in table name");
  sql__table_ident(s, q, &ns, &name);
  if (!s->catalog)
    return sql__errp(err, q->parts[0].pos, FL_ENOTFOUND, "Table '%s.%s' does not exist", ns, name);
  ice_table_t *t = NULL;
  int rc = cat_open_table(s->catalog, io_local_fs(), ns, name, &t, err);
  if (rc == FL_ENOTFOUND)
    return sql__errp(err, q->parts[0].pos, rc, "Table '%s.%s' does not exist", ns, name);
  if (rc) return sql__errp_wrap(err, q->parts[0].pos, rc);
  fl_arena_on_reset(a, table_cleanup, t);
  *out = t;
  return FL_OK;
}

void sql__result_init(fl_arena_t *a, sql_result_t *res, const char *const *names,
                      const char *const *types, uint32_t nc, uint64_t nrows) {
  res->ncols = nc;
  res->names = fl_arena_zalloc(a, (nc ? nc : 1) * sizeof *res->names);
  res->types = fl_arena_zalloc(a, (nc ? nc : 1) * sizeof *res->types);
  res->numeric = fl_arena_zalloc(a, (nc ? nc : 1) * sizeof *res->numeric);
  for (uint32_t i = 0; i < nc; i++) {
    res->names[i] = names[i];
    res->types[i] = types[i];
    res->numeric[i] =
        !strcmp(types[i], "bigint") || !strcmp(types[i], "integer") || !strcmp(types[i], "boolean");
  }
  res->nrows = 0;
  res->cells = fl_arena_zalloc(a, (nrows * nc > 0 ? nrows * nc : 1) * sizeof *res->cells);
}

void sql__result_metrics(fl_arena_t *a, sql_result_t *res, const char *const *names,
                         const uint64_t *values, size_t n) {
  static const char *const cols[] = {"metric_name", "metric_value"};
  static const char *const types[] = {"varchar", "bigint"};
  sql__result_init(a, res, cols, types, 2, n);
  for (size_t i = 0; i < n; i++) {
    res->cells[i * 2] = names[i];
    res->cells[i * 2 + 1] = fl_arena_sprintf(a, "%llu", (unsigned long long)values[i]);
  }
  res->nrows = n;
}

/* A number, optional blanks, a unit word; the unit's text in unit. */
static bool number_unit(const char *text, size_t len, double *value, char *unit, size_t cap) {
  char buf[64];
  if (len == 0 || len >= sizeof buf) return false;
  memcpy(buf, text, len);
  buf[len] = 0;
  const char *p = buf;
  while (isspace((unsigned char)*p)) p++;
  if (!isdigit((unsigned char)*p)) return false;
  char *end;
  *value = strtod(p, &end);
  if (end == p || !isfinite(*value)) return false;
  while (isspace((unsigned char)*end)) end++;
  size_t n = 0;
  while (isalpha((unsigned char)end[n])) n++;
  if (n == 0 || n >= cap) return false;
  memcpy(unit, end, n);
  unit[n] = 0;
  end += n;
  while (isspace((unsigned char)*end)) end++;
  return *end == 0;
}

bool sql__parse_duration(const char *text, size_t len, double *ms, char *canon, size_t cap) {
  static const struct {
    const char *unit;
    double ms;
  } units[] = {{"ns", 1e-6}, {"us", 1e-3},     {"ms", 1},        {"s", 1000},
               {"m", 60000}, {"h", 3600000.0}, {"d", 86400000.0}};
  double v;
  char unit[8];
  if (!number_unit(text, len, &v, unit, sizeof unit)) return false;
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
    if (strcmp(unit, units[i].unit) != 0) continue;
    *ms = v * units[i].ms;
    if (canon) snprintf(canon, cap, "%.2f%s", v, unit);
    return true;
  }
  return false;
}

bool sql__parse_data_size(const char *text, size_t len, int64_t *bytes) {
  static const char *const units[] = {"B", "kB", "MB", "GB", "TB", "PB"};
  double v;
  char unit[8];
  if (!number_unit(text, len, &v, unit, sizeof unit)) return false;
  double scale = 1;
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++, scale *= 1024) {
    if (strcmp(unit, units[i]) != 0) continue;
    double b = v * scale;
    if (b >= 9.2e18) return false;
    *bytes = (int64_t)b;
    return true;
  }
  return false;
}

int sql__bind_args(const sql_call_t *c, sql_pos_t pos, const char *const *params, size_t np,
                   const sql_expr_t **vals, sql_pos_t *val_pos, fl_err_t *err) {
  for (size_t i = 0; i < np; i++) vals[i] = NULL;
  bool named = false, positional = false;
  for (size_t i = 0; i < c->args.n; i++) {
    const sql_ident_t *nm = c->arg_names && c->arg_names[i].name ? &c->arg_names[i] : NULL;
    const sql_expr_t *e = c->args.items[i];
    if (nm)
      named = true;
    else
      positional = true;
    if (named && positional)
      return sql__errp(err, e->pos, FL_EINVALID, "Named and positional arguments cannot be mixed");
    size_t k = i;
    if (nm) {
      for (k = 0; k < np; k++)
        if (!strcasecmp(params[k], nm->name)) break;
      if (k == np)
        return sql__errp(err, nm->pos, FL_EINVALID, "Unknown argument name: %s", nm->name);
      if (vals[k])
        return sql__errp(err, nm->pos, FL_EINVALID, "Duplicate procedure argument: %s", nm->name);
    } else if (k >= np) {
      return sql__errp(err, e->pos, FL_EINVALID, "Too many arguments for procedure");
    }
    vals[k] = e;
    if (val_pos) val_pos[k] = e->pos;
  }
  (void)pos;
  return FL_OK;
}

int sql__arg_string(const sql_expr_t *e, const char *param, fl_arena_t *a, const char **out,
                    fl_err_t *err) {
  if (e->kind != SQL_E_STRING)
    return sql__errp(err, e->pos, FL_EINVALID, "Argument '%s' must be a varchar literal", param);
  *out = fl_arena_strndup(a, e->u.str.data, e->u.str.len);
  return FL_OK;
}

int sql__arg_int(const sql_expr_t *e, const char *param, int64_t *out, fl_err_t *err) {
  bool neg = e->kind == SQL_E_UNARY && e->u.unary.op == SQL_UN_NEG;
  const sql_expr_t *v = neg ? e->u.unary.arg : e;
  if (v->kind != SQL_E_INT)
    return sql__errp(err, e->pos, FL_EINVALID, "Argument '%s' must be an integer literal", param);
  *out = neg ? -v->u.i.value : v->u.i.value;
  return FL_OK;
}
