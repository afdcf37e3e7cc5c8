/*
 * sql_exec.c - parse, bind, optimize, execute, render (layer 12, cli).
 */
#include "cli/sql_exec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/sql_ddl_int.h"
#include "exec/ex_cast.h"
#include "exec/ex_plan.h"
#include "format/format.h"
#include "io/fs.h"
#include "sql/sql_bind.h"
#include "sql/sql_parse.h"

/*
 * Doubles and reals as Trino's clients show them (Java's Double.toString):
 * the shortest digits that read back to the same value, plain between
 * 1e-3 and 1e7 ("10.0", "0.5"), else scientific ("1.0E-4", "1.2345E7").
 */
static void format_float(double x, bool is_real, char *out, size_t cap) {
  if (isnan(x)) {
    snprintf(out, cap, "NaN");
    return;
  }
  if (isinf(x)) {
    snprintf(out, cap, x < 0 ? "-Infinity" : "Infinity");
    return;
  }
  if (x == 0) {
    snprintf(out, cap, signbit(x) ? "-0.0" : "0.0");
    return;
  }
  char digits[40];
  int prec = 1;
  for (; prec <= 17; prec++) {
    snprintf(digits, sizeof digits, "%.*e", prec - 1, x);
    if (is_real ? (float)strtod(digits, NULL) == (float)x : strtod(digits, NULL) == x) break;
  }
  /* digits is [-]d.ddde[+-]XX: take the mantissa digits and the exponent. */
  const char *p = digits;
  bool neg = *p == '-';
  if (neg) p++;
  char m[24];
  size_t nm = 0;
  for (; *p && *p != 'e'; p++)
    if (*p != '.') m[nm++] = *p;
  while (nm > 1 && m[nm - 1] == '0') nm--;
  m[nm] = 0;
  int e = atoi(p + 1);
  double ax = fabs(x);
  size_t o = 0;
  if (neg) out[o++] = '-';
  if (ax >= 1e-3 && ax < 1e7) {
    if (e >= 0) {
      for (int i = 0; i <= e; i++) out[o++] = i < (int)nm ? m[i] : '0';
      out[o++] = '.';
      if ((int)nm > e + 1)
        for (size_t i = (size_t)e + 1; i < nm; i++) out[o++] = m[i];
      else
        out[o++] = '0';
    } else {
      out[o++] = '0';
      out[o++] = '.';
      for (int i = 0; i < -e - 1; i++) out[o++] = '0';
      for (size_t i = 0; i < nm; i++) out[o++] = m[i];
    }
    out[o] = 0;
  } else {
    out[o++] = m[0];
    out[o++] = '.';
    if (nm > 1)
      for (size_t i = 1; i < nm; i++) out[o++] = m[i];
    else
      out[o++] = '0';
    snprintf(out + o, cap - o, "E%d", e);
  }
}

/* Renders the collected rows of q as text cells. */
static int render(ex_query_t *q, fl_arena_t *a, sql_result_t *res, fl_err_t *err) {
  const ex_sink_t *sink = ex_query_sink(q);
  uint32_t nc = ex_query_ncols(q);
  ex_ctx_t *ctx = ex_query_ctx(q);
  res->ncols = nc;
  res->names = fl_arena_zalloc(a, (nc ? nc : 1) * sizeof *res->names);
  res->types = fl_arena_zalloc(a, (nc ? nc : 1) * sizeof *res->types);
  res->numeric = fl_arena_zalloc(a, (nc ? nc : 1) * sizeof *res->numeric);
  for (uint32_t c = 0; c < nc; c++) {
    const ex_type_t *t = ex_query_col_type(q, c);
    res->names[c] = fl_arena_strdup(a, ex_query_col_name(q, c));
    res->types[c] = fl_arena_strdup(a, ex_type_str(t));
    res->numeric[c] = ex_type_is_integral(t->kind) || t->kind == EX_REAL || t->kind == EX_DOUBLE ||
                      t->kind == EX_BOOLEAN;
  }
  res->nrows = sink->rows;
  res->cells = fl_arena_zalloc(a, (sink->rows * nc > 0 ? sink->rows * nc : 1) * sizeof *res->cells);
  ex_type_t vc = ex_type(EX_VARCHAR);
  ty_vec_t *txt = ty_vec_new(ex_type_storage(&vc, a), TY_BATCH_ROWS);
  uint64_t base = 0;
  int rc = FL_OK;
  for (uint32_t bi = 0; bi < sink->nbatches && !rc; bi++) {
    const ty_batch_t *b = sink->batches[bi];
    ex_rows_t rows = {.nrows = b->nrows, .sel = b->sel, .n = ty_batch_live(b)};
    for (uint32_t c = 0; c < nc && !rc; c++) {
      const ex_type_t *t = ex_query_col_type(q, c);
      const ty_vec_t *v = b->cols[c];
      if (t->kind == EX_DOUBLE || t->kind == EX_REAL) {
        for (uint32_t k = 0; k < rows.n; k++) {
          uint32_t r = rows.sel ? rows.sel[k] : k;
          if (ty_vec_is_null(v, r)) continue;
          double x = t->kind == EX_DOUBLE ? TY_VEC_DATA(v, double)[r] : TY_VEC_DATA(v, float)[r];
          char tmp[64];
          format_float(x, t->kind == EX_REAL, tmp, sizeof tmp);
          res->cells[(base + k) * nc + c] = fl_arena_strdup(a, tmp);
        }
        continue;
      }
      if (t->kind == EX_ARRAY || t->kind == EX_MAP || t->kind == EX_ROW) {
        /* Nested values as Trino's clients show them: [a, b], {k=v}, {f=v}. */
        fl_buf_t sb;
        fl_buf_init(&sb);
        for (uint32_t k = 0; k < rows.n; k++) {
          uint32_t r = rows.sel ? rows.sel[k] : k;
          if (ty_vec_is_null(v, r)) continue;
          fl_buf_clear(&sb);
          ex_format_value(ctx, t, v, r, &sb);
          res->cells[(base + k) * nc + c] = fl_arena_strndup(a, (const char *)sb.data, sb.len);
        }
        fl_buf_free(&sb);
        continue;
      }
      if (t->kind == EX_VARCHAR || t->kind == EX_JSON) {
        v = b->cols[c];
      } else if (t->kind == EX_UNKNOWN) {
        continue; /* all NULL */
      } else {
        if ((rc = ex_cast_eval(ctx, t, &vc, false, b->cols[c], &rows, txt, err))) break;
        v = txt;
      }
      for (uint32_t k = 0; k < rows.n; k++) {
        uint32_t r = rows.sel ? rows.sel[k] : k;
        if (ty_vec_is_null(v, r)) continue;
        size_t n;
        const uint8_t *p = ty_vec_get_bytes(v, r, &n);
        char *s = fl_arena_alloc(a, n + 1);
        memcpy(s, p, n);
        s[n] = 0;
        res->cells[(base + k) * nc + c] = s;
      }
    }
    base += rows.n;
  }
  ty_vec_free(txt);
  return rc;
}

/* EXPLAIN's text as rows of one column "Query Plan", as Trino returns it. */
static void explain_rows(fl_arena_t *a, const char *text, sql_result_t *res) {
  res->explain = text;
  res->ncols = 1;
  res->names = fl_arena_zalloc(a, sizeof *res->names);
  res->types = fl_arena_zalloc(a, sizeof *res->types);
  res->numeric = fl_arena_zalloc(a, sizeof *res->numeric);
  res->names[0] = "Query Plan";
  res->types[0] = "varchar";
  uint64_t n = 0;
  for (const char *c = text; *c; c++) n += *c == '\n';
  res->cells = fl_arena_zalloc(a, (n ? n : 1) * sizeof *res->cells);
  char *copy = fl_arena_strdup(a, text);
  for (char *line = copy, *e; (e = strchr(line, '\n')); line = e + 1) {
    *e = 0;
    res->cells[res->nrows++] = line;
  }
}

/*
 * Writes the collected rows of q as one Parquet file at path: the result's
 * columns with their storage types (Trino's integer is Parquet INT32,
 * varchar a UTF-8 string, decimal a DECIMAL, timestamp a microsecond
 * TIMESTAMP, ...), field ids 1..n.
 */
static int write_parquet(ex_query_t *q, const char *path, fl_err_t *err) {
  const ex_sink_t *sink = ex_query_sink(q);
  const fmt_impl_t *impl = NULL;
  for (const fmt_impl_t *const *i = fmt_impls; *i; i++)
    if ((*i)->kind == FMT_PARQUET) impl = *i;
  if (!impl || !impl->open_writer)
    return fl_err_set(err, FL_EUNSUPPORTED, "this floe cannot write Parquet");
  fmt_writer_t *w;
  fmt_write_opts_t wo = {0};
  int rc = impl->open_writer(io_local_fs(), path, sink->op.out_schema, &wo, &w, err);
  if (rc) return rc;
  for (uint32_t i = 0; i < sink->nbatches; i++)
    if ((rc = w->write(w, sink->batches[i], err))) {
      w->abort(w);
      return rc;
    }
  return w->close(w, err);
}

static int run_query(sql_session_t *s, fl_arena_t *a, const sql_query_t *qa, int explain,
                     sql_result_t *res, fl_err_t *err) {
  sql_resolver_t r;
  ex_sql_resolver(&r, a);
  sql_bind_opts_t o = {
      .resolver = &r, .catalog = s->catalog, .fs = io_local_fs(), .default_ns = s->default_ns};
  sql_plan_t *p;
  int rc = sql_bind_query(a, &o, qa, &p, err);
  if (rc) return rc;
  if ((rc = sql_optimize(a, &r, &p, err))) return rc;
  fl_buf_t plan_text;
  fl_buf_init(&plan_text);
  if (explain) sql_plan_format(p, &plan_text);
  if (explain == 1) {
    fl_buf_append_u8(&plan_text, 0);
    explain_rows(a, fl_arena_strdup(a, (const char *)plan_text.data), res);
    fl_buf_free(&plan_text);
    return FL_OK;
  }
  if (s->parquet_out && !explain && s->parquet_results)
    return fl_err_set(err, FL_EINVALID,
                      "--format parquet writes the result of one query; this is a second one");
  ex_query_opts_t qo = {.mem_limit = s->mem_limit,
                        .now_us = -1,
                        .progress = s->progress,
                        .threads = s->threads,
                        .analyze = explain == 2};
  ex_query_t *q;
  if ((rc = ex_query_new(a, p, &qo, &q, err))) return rc;
  rc = ex_query_run(q, err);
  if (!rc && explain) {
    /* EXPLAIN ANALYZE: the plan, then what the run read. */
    ex_query_format_stats(q, &plan_text);
    fl_buf_append_u8(&plan_text, 0);
    explain_rows(a, fl_arena_strdup(a, (const char *)plan_text.data), res);
  } else if (!rc && s->parquet_out) {
    rc = write_parquet(q, s->parquet_out, err);
    if (!rc) s->parquet_results++;
  } else if (!rc) {
    rc = render(q, a, res, err);
  }
  fl_buf_free(&plan_text);
  ex_query_free(q);
  return rc;
}

int sql__exec_insert(const sql_session_t *s, fl_arena_t *a, const sql_bind_opts_t *o,
                     const sql_stmt_t *st, int64_t *rows, fl_err_t *err);
int sql__exec_ddl(const sql_session_t *s, fl_arena_t *a, const sql_bind_opts_t *o,
                  const sql_stmt_t *st, fl_err_t *err);

int sql__exec_modify(const sql_session_t *s, fl_arena_t *a, const sql_bind_opts_t *o,
                     const sql_stmt_t *st, int64_t *rows, fl_err_t *err);

int sql__explain_modify(fl_arena_t *a, const sql_bind_opts_t *o, const sql_stmt_t *st,
                        const char **text, fl_err_t *err);

int sql__exec_show(const sql_session_t *s, fl_arena_t *a, const sql_bind_opts_t *o,
                   const sql_stmt_t *st, sql_result_t *res, fl_err_t *err);

int sql_exec_stmt(sql_session_t *s, fl_arena_t *a, const char *text, size_t len,
                  const sql_stmt_t *st, sql_result_t *res, fl_err_t *err) {
  memset(res, 0, sizeof *res);
  if (st->kind == SQL_S_USE) {
    const sql_qname_t *q = &st->u.drop.name;
    const char *ns = q->parts[q->n - 1].name;
    bool exists = false;
    int rc = s->catalog ? cat_ns_exists(s->catalog, ns, &exists, err) : FL_OK;
    if (rc) return rc;
    if (!exists)
      return fl_err_set(err, FL_ENOTFOUND, "line %u, column %u: Schema does not exist: %s",
                        q->parts[q->n - 1].pos.line, q->parts[q->n - 1].pos.col, ns);
    /* The session outlives this statement's arena. */
    snprintf(s->ns_buf, sizeof s->ns_buf, "%s", ns);
    s->default_ns = s->ns_buf;
    return FL_OK;
  }
  if (st->kind == SQL_S_DESCRIBE ||
      (st->kind == SQL_S_SHOW &&
       (st->u.show.kind == SQL_SHOW_SCHEMAS || st->u.show.kind == SQL_SHOW_TABLES ||
        st->u.show.kind == SQL_SHOW_COLUMNS))) {
    sql_resolver_t r;
    ex_sql_resolver(&r, a);
    sql_bind_opts_t o = {
        .resolver = &r, .catalog = s->catalog, .fs = io_local_fs(), .default_ns = s->default_ns};
    return sql__exec_show(s, a, &o, st, res, err);
  }
  bool modify = st->kind == SQL_S_DELETE || st->kind == SQL_S_UPDATE || st->kind == SQL_S_MERGE ||
                st->kind == SQL_S_TRUNCATE;
  if (st->kind == SQL_S_INSERT || st->kind == SQL_S_CREATE_SCHEMA ||
      st->kind == SQL_S_CREATE_TABLE || st->kind == SQL_S_DROP_TABLE || modify) {
    sql_resolver_t r;
    ex_sql_resolver(&r, a);
    sql_bind_opts_t o = {
        .resolver = &r, .catalog = s->catalog, .fs = io_local_fs(), .default_ns = s->default_ns};
    if (st->kind != SQL_S_INSERT && !modify) return sql__exec_ddl(s, a, &o, st, err);
    int64_t rows;
    int rc = modify ? sql__exec_modify(s, a, &o, st, &rows, err)
                    : sql__exec_insert(s, a, &o, st, &rows, err);
    if (rc || st->kind == SQL_S_TRUNCATE) return rc;
    res->ncols = 1;
    res->names = fl_arena_zalloc(a, sizeof *res->names);
    res->types = fl_arena_zalloc(a, sizeof *res->types);
    res->numeric = fl_arena_zalloc(a, sizeof *res->numeric);
    res->names[0] = "rows";
    res->types[0] = "bigint";
    res->numeric[0] = true;
    res->nrows = 1;
    res->cells = fl_arena_zalloc(a, sizeof *res->cells);
    res->cells[0] = fl_arena_sprintf(a, "%lld", (long long)rows);
    return FL_OK;
  }
  /* Table management (sql_alter.c, sql_execute.c, sql_call.c, sql_set.c). */
  if (st->kind == SQL_S_ALTER_TABLE) return sql__exec_alter(s, a, text, len, st, res, err);
  if (st->kind == SQL_S_CALL) return sql__exec_call(s, a, st, res, err);
  if (st->kind == SQL_S_COMMENT) return sql__exec_comment(s, a, st, err);
  if ((st->kind == SQL_S_SET || st->kind == SQL_S_RESET) && st->u.set.session)
    return sql__exec_set(s, a, st, res, err);
  if (st->kind == SQL_S_QUERY) return run_query(s, a, st->u.query, 0, res, err);
  if (st->kind == SQL_S_EXPLAIN && !st->u.explain.analyze &&
      (st->u.explain.stmt->kind == SQL_S_DELETE || st->u.explain.stmt->kind == SQL_S_UPDATE ||
       st->u.explain.stmt->kind == SQL_S_MERGE)) {
    sql_resolver_t r;
    ex_sql_resolver(&r, a);
    sql_bind_opts_t o = {
        .resolver = &r, .catalog = s->catalog, .fs = io_local_fs(), .default_ns = s->default_ns};
    const char *plan;
    int rc = sql__explain_modify(a, &o, st->u.explain.stmt, &plan, err);
    if (!rc) explain_rows(a, plan, res);
    return rc;
  }
  if (st->kind == SQL_S_EXPLAIN && st->u.explain.stmt->kind == SQL_S_QUERY)
    return run_query(s, a, st->u.explain.stmt->u.query, st->u.explain.analyze ? 2 : 1, res, err);
  return fl_err_set(err, FL_EUNSUPPORTED, "line %u, column %u: %s statements are not supported yet",
                    st->pos.line, st->pos.col, sql_stmt_kind_name(st->kind));
}

void sql_exec_print_error(const char *prog, const char *text, size_t len, const fl_err_t *err) {
  fprintf(stderr, "%s: %s\n", prog, err->msg);
  fl_buf_t b;
  fl_buf_init(&b);
  sql_error_caret(text, len, err, &b);
  if (b.len) fwrite(b.data, 1, b.len, stderr);
  fl_buf_free(&b);
}
