/*
 * sql_alter_props.c - ALTER TABLE SET PROPERTIES / SET PARTITIONING and
 * Spark's ADD | DROP | REPLACE PARTITION FIELD (layer 12, cli).
 *
 * SET PROPERTIES changes everything it lists in one commit, re-applied to
 * the new head after a lost race. Trino's property names map to Iceberg's:
 * partitioning becomes partition spec evolution (fields no longer listed
 * are dropped, new ones added, kept ones keep their ids), sorted_by a new
 * sort order, format_version an upgrade; format, object_store_layout_enabled,
 * data_location, max_commit_retry, parquet_bloom_filter_columns,
 * orc_bloom_filter_* and extra_properties are table properties; quoted
 * names ('write.delete.mode') are Iceberg properties set as written;
 * k = DEFAULT removes one. The partition field statements change the spec
 * one field at a time, a field named by its transform term or its name.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cli/sql_ddl_int.h"
#include "iceberg/ice_commit.h"
#include "iceberg/ice_evolve.h"
#include "iceberg/ice_spec.h"

/* ---- SET PROPERTIES ---- */

/* What one SET PROPERTIES statement changes, applied to each commit attempt. */
typedef struct prop_change {
  fl_arena_t *a;
  const char *partitioning;    /* "day(ts), bucket(id, 16)"; "" unpartitions; NULL: unchanged */
  const char *sorted_by;       /* "" unsorted; NULL: unchanged */
  int format_version;          /* 0: unchanged */
  const char **keys, **values; /* values[i] NULL removes */
  size_t nprops;
} prop_change_t;

/* ARRAY['a', 'b'] as "a, b" (an empty array as ""). */
static int string_list(fl_arena_t *a, const sql_property_t *p, const char **out, fl_err_t *err) {
  const sql_expr_t *v = p->value;
  if (!v || v->kind != SQL_E_ARRAY)
    return sql__errp(err, v ? v->pos : p->key.pos, FL_EINVALID,
                     "Table property '%s' takes an array of strings", p->key.name);
  fl_buf_t buf;
  fl_buf_init(&buf);
  for (size_t i = 0; i < v->u.row.items.n; i++) {
    const sql_expr_t *x = v->u.row.items.items[i];
    if (x->kind != SQL_E_STRING) {
      fl_buf_free(&buf);
      return sql__errp(err, x->pos, FL_EINVALID, "Table property '%s' takes an array of strings",
                       p->key.name);
    }
    if (i) fl_buf_append_str(&buf, ", ");
    fl_buf_append(&buf, x->u.str.data, x->u.str.len);
  }
  fl_buf_append_u8(&buf, 0);
  *out = fl_arena_strdup(a, (const char *)buf.data);
  fl_buf_free(&buf);
  return FL_OK;
}

/* A literal as the text of an Iceberg property value. */
static int literal_text(fl_arena_t *a, const sql_property_t *p, const char **out, fl_err_t *err) {
  const sql_expr_t *v = p->value;
  bool neg = v->kind == SQL_E_UNARY && v->u.unary.op == SQL_UN_NEG;
  if (neg) v = v->u.unary.arg;
  switch (v->kind) {
    case SQL_E_STRING: *out = fl_arena_strndup(a, v->u.str.data, v->u.str.len); return FL_OK;
    case SQL_E_INT: *out = fl_arena_sprintf(a, "%s%s", neg ? "-" : "", v->u.i.text); return FL_OK;
    case SQL_E_DECIMAL:
    case SQL_E_DOUBLE:
      *out = fl_arena_sprintf(a, "%s%s", neg ? "-" : "", v->u.num.text);
      return FL_OK;
    case SQL_E_BOOL:
      if (neg) break;
      *out = v->u.b ? "true" : "false";
      return FL_OK;
    default: break;
  }
  return sql__errp(err, p->value->pos, FL_EINVALID,
                   "Table property '%s' takes a literal value (a string, number or boolean)",
                   p->key.name);
}

static void add_prop(prop_change_t *c, const char *k, const char *v) {
  for (size_t i = 0; i < c->nprops; i++)
    if (!strcmp(c->keys[i], k)) {
      c->values[i] = v;
      return;
    }
  c->keys[c->nprops] = k;
  c->values[c->nprops++] = v;
}

/* Trino's Iceberg table properties that are plain Iceberg properties. */
static const struct {
  const char *trino, *iceberg;
  bool boolean;
} mapped[] = {
    {"object_store_layout_enabled", "write.object-storage.enabled", true},
    {"data_location", "write.data.path", false},
    {"max_commit_retry", "commit.retry.num-retries", false},
    {"orc_bloom_filter_fpp", "write.orc.bloom.filter.fpp", false},
};

static int collect_props(fl_arena_t *a, const sql_prop_list_t *pl, prop_change_t *c,
                         fl_err_t *err) {
  c->keys = fl_arena_zalloc(a, (pl->n * 4 + 1) * sizeof *c->keys);
  c->values = fl_arena_zalloc(a, (pl->n * 4 + 1) * sizeof *c->values);
  int rc;
  for (size_t i = 0; i < pl->n; i++) {
    const sql_property_t *p = &pl->items[i];
    const char *k = p->key.name;
    for (size_t j = 0; j < i; j++)
      if (!strcmp(pl->items[j].key.name, k))
        return sql__errp(err, p->key.pos, FL_EINVALID, "Duplicate property: %s", k);
    if (p->key_is_string && strcmp(k, "format-version") != 0) {
      /* An Iceberg property by its own name. */
      const char *v = NULL;
      if (p->value && (rc = literal_text(a, p, &v, err))) return rc;
      add_prop(c, k, v);
      continue;
    }
    if (!strcmp(k, "partitioning")) {
      if (!p->value)
        c->partitioning = "";
      else if ((rc = string_list(a, p, &c->partitioning, err)))
        return rc;
    } else if (!strcmp(k, "sorted_by")) {
      if (!p->value)
        c->sorted_by = "";
      else if ((rc = string_list(a, p, &c->sorted_by, err)))
        return rc;
    } else if (!strcmp(k, "format_version") || !strcmp(k, "format-version")) {
      /* 'format-version' is Iceberg's reserved property for the same upgrade. */
      const sql_expr_t *v = p->value;
      if (v && v->kind == SQL_E_STRING && v->u.str.len == 1 && v->u.str.data[0] >= '1' &&
          v->u.str.data[0] <= '3') {
        c->format_version = v->u.str.data[0] - '0';
        continue;
      }
      if (!v || v->kind != SQL_E_INT || v->u.i.value < 1 || v->u.i.value > 3)
        return sql__errp(err, v ? v->pos : p->key.pos, FL_EINVALID,
                         "format_version must be 1, 2 or 3");
      c->format_version = (int)v->u.i.value;
    } else if (!strcmp(k, "format")) {
      const sql_expr_t *v = p->value;
      if (v && (v->kind != SQL_E_STRING || v->u.str.len != 7 ||
                strncasecmp(v->u.str.data, "parquet", 7)))
        return sql__errp(err, v->pos, FL_EUNSUPPORTED, "floe writes Parquet data files only");
      add_prop(c, "write.format.default", v ? "PARQUET" : NULL);
    } else if (!strcmp(k, "extra_properties")) {
      /* MAP(ARRAY['k', ...], ARRAY['v', ...]): Iceberg properties as they are. */
      const sql_expr_t *v = p->value;
      const sql_expr_t *ks = NULL, *vs = NULL;
      if (v && v->kind == SQL_E_CALL && v->u.call.name.n == 1 &&
          !strcmp(v->u.call.name.parts[0].name, "map") && v->u.call.args.n == 2) {
        ks = v->u.call.args.items[0];
        vs = v->u.call.args.items[1];
      }
      if (!ks || ks->kind != SQL_E_ARRAY || vs->kind != SQL_E_ARRAY ||
          ks->u.row.items.n != vs->u.row.items.n)
        return sql__errp(err, v ? v->pos : p->key.pos, FL_EINVALID,
                         "extra_properties takes MAP(ARRAY['key', ...], ARRAY['value', ...])");
      size_t n = ks->u.row.items.n;
      const char **nk = fl_arena_zalloc(a, (c->nprops + n + pl->n * 4 + 1) * sizeof *nk);
      const char **nv = fl_arena_zalloc(a, (c->nprops + n + pl->n * 4 + 1) * sizeof *nv);
      memcpy(nk, c->keys, c->nprops * sizeof *nk);
      memcpy(nv, c->values, c->nprops * sizeof *nv);
      c->keys = nk;
      c->values = nv;
      for (size_t j = 0; j < n; j++) {
        const sql_expr_t *ke = ks->u.row.items.items[j], *ve = vs->u.row.items.items[j];
        if (ke->kind != SQL_E_STRING || ve->kind != SQL_E_STRING)
          return sql__errp(err, ke->kind != SQL_E_STRING ? ke->pos : ve->pos, FL_EINVALID,
                           "extra_properties takes string keys and values");
        add_prop(c, fl_arena_strndup(a, ke->u.str.data, ke->u.str.len),
                 fl_arena_strndup(a, ve->u.str.data, ve->u.str.len));
      }
    } else if (!strcmp(k, "location")) {
      return sql__errp(err, p->key.pos, FL_EUNSUPPORTED,
                       "The following properties cannot be updated: location");
    } else if (!strcmp(k, "orc_bloom_filter_columns")) {
      const char *v = NULL;
      if (p->value && (rc = string_list(a, p, &v, err))) return rc;
      add_prop(c, "write.orc.bloom.filter.columns", v && *v ? v : NULL);
    } else if (!strcmp(k, "parquet_bloom_filter_columns")) {
      const char *v = "";
      if (p->value && (rc = string_list(a, p, &v, err))) return rc;
      /* One property per column; listing replaces the set (applied in the edit). */
      add_prop(c, "\x01parquet_bloom", v);
    } else {
      size_t m = 0;
      for (; m < sizeof mapped / sizeof mapped[0]; m++)
        if (!strcmp(k, mapped[m].trino)) break;
      if (m == sizeof mapped / sizeof mapped[0])
        return sql__errp(err, p->key.pos, FL_EINVALID, "Table property '%s' does not exist", k);
      const char *v = NULL;
      if (p->value) {
        if ((rc = literal_text(a, p, &v, err))) return rc;
        if (mapped[m].boolean && strcmp(v, "true") && strcmp(v, "false"))
          return sql__errp(err, p->value->pos, FL_EINVALID, "Table property '%s' takes a boolean",
                           k);
      }
      add_prop(c, mapped[m].iceberg, v);
    }
  }
  return FL_OK;
}

/*
 * Partition evolution from the wanted list: a field of the default spec
 * that the list no longer has (same source and transform) is removed, a
 * listed term the spec lacks is added (ids reused from older specs).
 */
static int partition_ops(fl_arena_t *a, const ice_meta_t *m, const char *want_text,
                         ice_evolve_op_t **ops, uint32_t *n, fl_err_t *err) {
  const ty_schema_t *sc = ice_meta_schema(m);
  const ice_spec_t *cur = ice_meta_spec(m);
  ice_spec_t *want = NULL;
  int32_t last = 999;
  int rc = FL_OK;
  if (*want_text && (rc = ice_spec_parse(a, want_text, sc, 0, &last, &want, err))) return rc;
  uint32_t ncur = cur ? cur->nfields : 0, nwant = want ? want->nfields : 0;
  *ops = fl_arena_zalloc(a, (ncur + nwant + 1) * sizeof **ops);
  *n = 0;
  for (uint32_t i = 0; i < ncur; i++) {
    const ice_partition_field_t *pf = &cur->fields[i];
    if (pf->transform.kind == ICE_T_VOID) continue;
    bool kept = false;
    for (uint32_t j = 0; j < nwant && !kept; j++)
      kept = want->fields[j].source_id == pf->source_id &&
             ice_transform_equal(&want->fields[j].transform, &pf->transform);
    if (!kept) (*ops)[(*n)++] = (ice_evolve_op_t){.kind = ICE_EV_DROP_PARTITION, .name = pf->name};
  }
  /* The terms as written, one per wanted field. */
  char *copy = fl_arena_strdup(a, want_text);
  const char **terms = fl_arena_zalloc(a, (nwant + 1) * sizeof *terms);
  uint32_t nt = 0;
  int depth = 0;
  char *start = copy;
  for (char *p = copy;; p++) {
    if (*p == '(') depth++;
    if (*p == ')') depth--;
    if ((*p == ',' && depth == 0) || *p == 0) {
      bool end = *p == 0;
      *p = 0;
      if (nt < nwant) terms[nt++] = start;
      start = p + 1;
      if (end) break;
    }
  }
  for (uint32_t j = 0; j < nwant; j++) {
    bool have = false;
    for (uint32_t i = 0; i < ncur && !have; i++)
      have = cur->fields[i].source_id == want->fields[j].source_id &&
             ice_transform_equal(&cur->fields[i].transform, &want->fields[j].transform);
    if (!have && j < nt)
      (*ops)[(*n)++] = (ice_evolve_op_t){.kind = ICE_EV_ADD_PARTITION, .term = terms[j]};
  }
  return FL_OK;
}

static int props_edit(ice_meta_t *m, void *arg, fl_err_t *err) {
  prop_change_t *c = arg;
  int rc;
  if (c->format_version) {
    if (c->format_version < m->format_version)
      return fl_err_set(err, FL_EINVALID, "Cannot downgrade v%d table to v%d", m->format_version,
                        c->format_version);
    m->format_version = c->format_version;
  }
  if (c->partitioning) {
    ice_evolve_op_t *ops;
    uint32_t n;
    if ((rc = partition_ops(c->a, m, c->partitioning, &ops, &n, err))) return rc;
    if (n && (rc = ice_evolve_meta(m, ops, n, err))) return rc;
  }
  if (c->sorted_by) {
    ice_sort_order_t *so = NULL;
    if (*c->sorted_by) {
      if ((rc = ice_sort_order_parse(c->a, c->sorted_by, ice_meta_schema(m), 1, &so, err)))
        return rc;
    } else {
      so = fl_arena_zalloc(c->a, sizeof *so);
    }
    int32_t id;
    if ((rc = ice_meta_add_sort_order(m, so, &id, err))) return rc;
  }
  for (size_t i = 0; i < c->nprops; i++) {
    if (c->keys[i][0] != '\x01') {
      ice_meta_set_property(m, c->keys[i], c->values[i]);
      continue;
    }
    /* parquet_bloom_filter_columns: the listed columns, and no others. */
    static const char prefix[] = "write.parquet.bloom-filter-enabled.column.";
    for (uint32_t k = m->nproperties; k-- > 0;)
      if (!strncmp(m->properties[k].key, prefix, sizeof prefix - 1))
        ice_meta_set_property(m, m->properties[k].key, NULL);
    char *list = fl_arena_strdup(c->a, c->values[i]);
    for (char *tok = strtok(list, ", "); tok; tok = strtok(NULL, ", ")) {
      if (ty_schema_find_name(ice_meta_schema(m), tok) < 0)
        return fl_err_set(err, FL_ENOTFOUND, "parquet_bloom_filter_columns: no column '%s'", tok);
      ice_meta_set_property(m, fl_arena_sprintf(c->a, "%s%s", prefix, tok), "true");
    }
  }
  return FL_OK;
}

int sql__alter_properties(fl_arena_t *a, ice_table_t *t, const sql_alter_t *al, fl_err_t *err) {
  prop_change_t c = {.a = a};
  int rc = collect_props(a, &al->props, &c, err);
  if (rc) return rc;
  if ((rc = ice_commit_meta_edit(t, props_edit, &c, err))) return sql__errp_wrap(err, al->pos, rc);
  return FL_OK;
}

/* ---- partition fields (Spark) ---- */

/* The name of the default spec's field that `term` (a field name or a
 * transform term) denotes, or NULL. */
static const char *find_partition_field(fl_arena_t *a, const ice_meta_t *m, const char *term) {
  const ice_spec_t *cur = ice_meta_spec(m);
  for (uint32_t i = 0; cur && i < cur->nfields; i++)
    if (!strcasecmp(cur->fields[i].name, term)) return cur->fields[i].name;
  ice_spec_t *want;
  int32_t last = 999;
  fl_err_t ignored;
  if (ice_spec_parse(a, term, ice_meta_schema(m), 0, &last, &want, &ignored) || want->nfields != 1)
    return NULL;
  for (uint32_t i = 0; cur && i < cur->nfields; i++)
    if (cur->fields[i].source_id == want->fields[0].source_id &&
        ice_transform_equal(&cur->fields[i].transform, &want->fields[0].transform))
      return cur->fields[i].name;
  return NULL;
}

int sql__alter_partition_field(fl_arena_t *a, ice_table_t *t, const sql_alter_t *al,
                               fl_err_t *err) {
  ice_evolve_op_t ops[2] = {{0}};
  uint32_t n = 0;
  if (al->part_old) {
    const char *name = find_partition_field(a, t->meta, al->part_old);
    if (!name)
      return sql__errp(err, al->part_old_pos, FL_ENOTFOUND,
                       "Cannot find partition field to remove: %s", al->part_old);
    ops[n++] = (ice_evolve_op_t){.kind = ICE_EV_DROP_PARTITION, .name = name};
  }
  if (al->part_term)
    ops[n++] = (ice_evolve_op_t){
        .kind = ICE_EV_ADD_PARTITION, .term = al->part_term, .name = al->part_name.name};
  int rc = ice_evolve_apply(t, ops, n, err);
  return rc ? sql__errp_wrap(err, al->pos, rc) : FL_OK;
}
