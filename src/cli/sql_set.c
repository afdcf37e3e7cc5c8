/*
 * sql_set.c - SET SESSION and RESET SESSION (layer 12, cli).
 *
 * Trino's session properties that floe's statements read, kept as text in
 * the session: a catalog property is written catalog.name (any catalog
 * name is taken as floe's one catalog) and stored under name. Values are
 * checked against the property's type when set, as Trino does; unknown
 * names are errors.
 *
 *   expire_snapshots_min_retention      duration, default 7d: the least
 *                                       retention_threshold of EXECUTE
 *                                       expire_snapshots
 *   remove_orphan_files_min_retention   duration, default 7d: the same
 *                                       for EXECUTE remove_orphan_files
 *
 * and one system property, kept as a number: threads (also Trino's
 * task_concurrency), the lanes of every query's pipelines (RESET: one per
 * core).
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cli/sql_ddl_int.h"
#include "exec/ex_plan.h"

static const char *const known[] = {"expire_snapshots_min_retention",
                                    "remove_orphan_files_min_retention"};

const char *sql__session_prop(const sql_session_t *s, const char *name) {
  for (uint32_t i = 0; i < s->nprops; i++)
    if (!strcmp(s->props[i].name, name)) return s->props[i].value;
  return NULL;
}

/* The session properties floe knows: threads (also Trino's
 * task_concurrency), the lanes of every query's pipelines. */
static bool is_threads_key(const sql_stmt_t *st) {
  const sql_qname_t *k = &st->u.set.key;
  const char *name = NULL;
  char buf[64];
  if (k->n == 1) {
    name = k->parts[0].name;
  } else if (st->u.set.key_string && st->u.set.key_len < sizeof buf) {
    memcpy(buf, st->u.set.key_string, st->u.set.key_len);
    buf[st->u.set.key_len] = 0;
    name = buf;
  }
  return name && (!strcasecmp(name, "threads") || !strcasecmp(name, "task_concurrency"));
}

static int set_threads(sql_session_t *s, const sql_stmt_t *st, fl_err_t *err) {
  if (st->kind == SQL_S_RESET) {
    s->threads = 0;
    return FL_OK;
  }
  const sql_expr_t *v = st->u.set.value;
  if (!v || v->kind != SQL_E_INT || v->u.i.value < 1 || v->u.i.value > EX_MAX_THREADS)
    return fl_err_set(err, FL_EINVALID, "line %u, column %u: threads takes an integer from 1 to %d",
                      st->pos.line, st->pos.col, EX_MAX_THREADS);
  s->threads = (uint32_t)v->u.i.value;
  return FL_OK;
}

int sql__exec_set(sql_session_t *s, fl_arena_t *a, const sql_stmt_t *st, sql_result_t *res,
                  fl_err_t *err) {
  (void)res;
  if (is_threads_key(st)) return set_threads(s, st, err);
  const sql_qname_t *k = &st->u.set.key;
  if (k->n == 0) {
    if (st->kind == SQL_S_RESET) return FL_OK; /* RESET SESSION: nothing kept but these */
    return sql__errp(err, st->pos, FL_EINVALID, "SET SESSION needs a property name");
  }
  fl_buf_t full;
  fl_buf_init(&full);
  for (size_t i = 0; i < k->n; i++) {
    if (i) fl_buf_append_u8(&full, '.');
    fl_buf_append_str(&full, k->parts[i].name);
  }
  fl_buf_append_u8(&full, 0);
  const char *text = fl_arena_strdup(a, (const char *)full.data);
  fl_buf_free(&full);
  const char *name = k->parts[k->n - 1].name;
  bool ok = k->n == 2;
  for (size_t i = 0; ok && i < sizeof known / sizeof known[0]; i++)
    if (!strcmp(name, known[i])) goto found;
  return sql__errp(err, k->parts[0].pos, FL_ENOTFOUND, "Session property '%s' does not exist",
                   text);
found:;
  uint32_t slot = s->nprops;
  for (uint32_t i = 0; i < s->nprops; i++)
    if (!strcmp(s->props[i].name, name)) slot = i;
  if (st->kind == SQL_S_RESET) {
    if (slot < s->nprops) {
      memmove(&s->props[slot], &s->props[slot + 1], (s->nprops - slot - 1) * sizeof s->props[0]);
      s->nprops--;
    }
    return FL_OK;
  }
  const sql_expr_t *v = st->u.set.value;
  if (!v || v->kind != SQL_E_STRING)
    return sql__errp(err, v ? v->pos : st->pos, FL_EINVALID,
                     "Session property '%s' takes a varchar value such as '7d'", text);
  double ms;
  if (v->u.str.len >= sizeof s->props[0].value ||
      !sql__parse_duration(v->u.str.data, v->u.str.len, &ms, NULL, 0))
    return sql__errp(err, v->pos, FL_EINVALID,
                     "Unable to set session property '%s' to '%.*s': not a duration (7d, 12h, 30m)",
                     text, (int)v->u.str.len, v->u.str.data);
  if (slot == s->nprops) {
    if (s->nprops == sizeof s->props / sizeof s->props[0])
      return sql__errp(err, st->pos, FL_EINVALID, "too many session properties");
    s->nprops++;
  }
  snprintf(s->props[slot].name, sizeof s->props[slot].name, "%s", name);
  snprintf(s->props[slot].value, sizeof s->props[slot].value, "%.*s", (int)v->u.str.len,
           v->u.str.data);
  return FL_OK;
}
