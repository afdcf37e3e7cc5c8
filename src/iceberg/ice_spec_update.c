/*
 * ice_spec_update.c - partition evolution and the commit of evolution
 * operations (layer 5, iceberg).
 *
 * Partition changes follow Java's BaseUpdatePartitionSpec: the default
 * spec is indexed by field name and by (source id, transform); adds,
 * removes and renames are recorded against it and the new spec is built
 * from the survivors (renamed), v1's void replacements of removed fields,
 * then the added fields. An added field takes the id (and, without an
 * explicit name, the name) of a field with the same source and transform
 * in any spec of a v2+ table; otherwise the next id above
 * last-partition-id. Removing a field and adding it back in one change
 * restores it. A new field whose name is held by a void field (a v1
 * removal) renames the void field to name_<id>.
 *
 * ice_evolve_meta runs schema operations, then partition operations (so
 * a column added in the same change can be partitioned by), then checks
 * what Java's TableMetadata.Builder checks last: the default spec and
 * sort order still apply to the current schema.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "iceberg/ice_commit.h"
#include "iceberg/ice_evolve_int.h"

typedef struct rename {
  const char *from, *to;
} rename_t;

typedef struct sp {
  fl_arena_t *a;
  fl_err_t *err;
  const ice_meta_t *m;
  const ty_schema_t *schema;
  ice_field_index_t idx;
  const ice_spec_t *spec;
  int32_t last_id;
  int32_t *deletes;
  uint32_t ndeletes;
  rename_t *renames;
  uint32_t nrenames;
  ice_partition_field_t *adds;
  uint32_t nadds;
  uint32_t cap; /* of deletes, renames and adds each: one per operation at most */
} sp_t;

static const char *transform_text(fl_arena_t *a, const ice_transform_t *t) {
  fl_buf_t b;
  fl_buf_init(&b);
  ice_transform_format(t, &b);
  const char *s = fl_arena_strndup(a, (const char *)b.data, b.len);
  fl_buf_free(&b);
  return s;
}

/* "1000: ts_day: day(2)", as Java prints a partition field. */
static const char *field_text(fl_arena_t *a, const ice_partition_field_t *f) {
  return fl_arena_sprintf(a, "%d: %s: %s(%d)", (int)f->field_id, f->name,
                          transform_text(a, &f->transform), (int)f->source_id);
}

static bool is_time(const ice_transform_t *t) {
  return t->kind == ICE_T_YEAR || t->kind == ICE_T_MONTH || t->kind == ICE_T_DAY ||
         t->kind == ICE_T_HOUR;
}

static bool deleted(const sp_t *s, int32_t id) {
  for (uint32_t i = 0; i < s->ndeletes; i++)
    if (s->deletes[i] == id) return true;
  return false;
}

static void undelete(sp_t *s, int32_t id) {
  for (uint32_t i = 0; i < s->ndeletes; i++)
    if (s->deletes[i] == id) {
      s->deletes[i] = s->deletes[--s->ndeletes];
      return;
    }
}

static const ice_partition_field_t *by_name(const sp_t *s, const char *name) {
  for (uint32_t i = 0; i < s->spec->nfields; i++)
    if (strcmp(s->spec->fields[i].name, name) == 0) return &s->spec->fields[i];
  return NULL;
}

static const ice_partition_field_t *by_transform(const sp_t *s, int32_t source,
                                                 const ice_transform_t *t) {
  for (uint32_t i = 0; i < s->spec->nfields; i++)
    if (s->spec->fields[i].source_id == source &&
        ice_transform_equal(&s->spec->fields[i].transform, t))
      return &s->spec->fields[i];
  return NULL;
}

static const ice_partition_field_t *added_by_name(const sp_t *s, const char *name) {
  for (uint32_t i = 0; i < s->nadds; i++)
    if (strcmp(s->adds[i].name, name) == 0) return &s->adds[i];
  return NULL;
}

static const ice_partition_field_t *added_by_transform(const sp_t *s, int32_t source,
                                                       const ice_transform_t *t) {
  for (uint32_t i = 0; i < s->nadds; i++)
    if (s->adds[i].source_id == source && ice_transform_equal(&s->adds[i].transform, t))
      return &s->adds[i];
  return NULL;
}

static rename_t *find_rename(sp_t *s, const char *from) {
  for (uint32_t i = 0; i < s->nrenames; i++)
    if (strcmp(s->renames[i].from, from) == 0) return &s->renames[i];
  return NULL;
}

static void put_rename(sp_t *s, const char *from, const char *to) {
  rename_t *r = find_rename(s, from);
  if (r) {
    r->to = to;
    return;
  }
  s->renames[s->nrenames++] = (rename_t){from, to};
}

static int rename_field(sp_t *s, const char *name, const char *new_name, int depth) {
  if (!new_name || !new_name[0])
    return fl_err_set(s->err, FL_EINVALID, "Cannot rename partition field %s to an empty name",
                      name);
  const ice_partition_field_t *existing = by_name(s, new_name);
  if (existing && existing->transform.kind == ICE_T_VOID && depth == 0) {
    /* A void field (a v1 removal) gives way: it becomes name_<id>. */
    int rc = rename_field(s, existing->name,
                          fl_arena_sprintf(s->a, "%s_%d", existing->name, (int)existing->field_id),
                          depth + 1);
    if (rc) return rc;
  }
  if (added_by_name(s, name))
    return fl_err_set(s->err, FL_EINVALID, "Cannot rename newly added partition field: %s", name);
  const ice_partition_field_t *f = by_name(s, name);
  if (!f)
    return fl_err_set(s->err, FL_ENOTFOUND, "Cannot find partition field to rename: %s", name);
  if (deleted(s, f->field_id))
    return fl_err_set(s->err, FL_EINVALID, "Cannot delete and rename partition field: %s", name);
  put_rename(s, f->name, fl_arena_strdup(s->a, new_name));
  return FL_OK;
}

static int remove_field(sp_t *s, const char *name) {
  if (!name)
    return fl_err_set(s->err, FL_EINVALID, "Cannot remove a partition field without a name");
  if (added_by_name(s, name))
    return fl_err_set(s->err, FL_EINVALID, "Cannot delete newly added field: %s", name);
  if (find_rename(s, name))
    return fl_err_set(s->err, FL_EINVALID, "Cannot rename and delete partition field: %s", name);
  const ice_partition_field_t *f = by_name(s, name);
  if (!f)
    return fl_err_set(s->err, FL_ENOTFOUND, "Cannot find partition field to remove: %s", name);
  if (!deleted(s, f->field_id)) s->deletes[s->ndeletes++] = f->field_id;
  return FL_OK;
}

/* The field to add: one with the same source and transform from any spec
 * of the table (v2+; name too when given), else a new one. */
static ice_partition_field_t recycle_or_create(sp_t *s, int32_t source, const ice_transform_t *t,
                                               const char *name, const char *column) {
  if (s->m->format_version >= 2) {
    for (uint32_t i = 0; i < s->m->nspecs; i++) {
      const ice_spec_t *sp = s->m->specs[i];
      for (uint32_t k = 0; k < sp->nfields; k++) {
        const ice_partition_field_t *f = &sp->fields[k];
        if (f->source_id == source && ice_transform_equal(&f->transform, t) &&
            (!name || strcmp(f->name, name) == 0))
          return *f;
      }
    }
  }
  ice_partition_field_t nf = {.source_id = source, .field_id = ++s->last_id, .transform = *t};
  nf.name = name ? fl_arena_strdup(s->a, name) : ice_transform_field_name(s->a, t, column);
  return nf;
}

static int add_field(sp_t *s, const ice_evolve_op_t *op) {
  const char *name = op->name;
  if (name && added_by_name(s, name))
    return fl_err_set(s->err, FL_EINVALID, "Cannot add duplicate partition field: %s", name);
  if (!op->term || !op->term[0])
    return fl_err_set(s->err, FL_EINVALID, "Cannot add a partition field without a term");
  ice_transform_t t;
  const char *column;
  int rc = ice_transform_parse_call(s->a, op->term, &t, &column, s->err);
  if (rc) return rc;
  const ice_field_ref_t *r = ice__field_find(&s->idx, column, op->ignore_case);
  if (!r)
    return fl_err_set(s->err, FL_ENOTFOUND,
                      "Cannot find field '%s' in the schema (partition term %s)", column, op->term);
  if (ty_is_nested(r->f->type))
    return fl_err_set(s->err, FL_EINVALID,
                      "Cannot partition by non-primitive source field: %s (%s)", r->full,
                      ice__type_text(s->a, r->f->type));
  if (r->in_collection)
    return fl_err_set(s->err, FL_EINVALID, "Cannot partition by %s: a field inside a list or map",
                      r->full);
  if (t.kind == ICE_T_UNKNOWN || !ice_transform_can_apply(&t, r->f->type))
    return fl_err_set(s->err, FL_EINVALID, "Invalid source type %s for transform: %s (column %s)",
                      ice__type_text(s->a, r->f->type), transform_text(s->a, &t), r->full);
  int32_t source = r->f->id;
  const ice_partition_field_t *existing = by_transform(s, source, &t);
  if (existing && deleted(s, existing->field_id)) {
    /* Removed earlier in the change and added back: keep it. */
    undelete(s, existing->field_id);
    if (!name || strcmp(existing->name, name) == 0) return FL_OK;
    return rename_field(s, existing->name, name, 0);
  }
  if (existing)
    return fl_err_set(s->err, FL_EINVALID,
                      "Cannot add duplicate partition field %s=%s, conflicts with %s",
                      name ? name : "(default name)", op->term, field_text(s->a, existing));
  const ice_partition_field_t *added = added_by_transform(s, source, &t);
  if (added)
    return fl_err_set(s->err, FL_EINVALID,
                      "Cannot add duplicate partition field %s=%s, already added: %s",
                      name ? name : "(default name)", op->term, field_text(s->a, added));
  ice_partition_field_t nf = recycle_or_create(s, source, &t, name, r->full);
  if (is_time(&nf.transform)) {
    for (uint32_t i = 0; i < s->nadds; i++)
      if (s->adds[i].source_id == source && is_time(&s->adds[i].transform))
        return fl_err_set(s->err, FL_EINVALID,
                          "Cannot add redundant partition field: %s conflicts with %s",
                          field_text(s->a, &s->adds[i]), field_text(s->a, &nf));
  }
  if (added_by_name(s, nf.name))
    return fl_err_set(s->err, FL_EINVALID, "Cannot add duplicate partition field name: %s",
                      nf.name);
  const ice_partition_field_t *same_name = by_name(s, nf.name);
  if (same_name && !deleted(s, same_name->field_id)) {
    if (same_name->transform.kind != ICE_T_VOID)
      return fl_err_set(s->err, FL_EINVALID, "Cannot add duplicate partition field name: %s",
                        nf.name);
    rc =
        rename_field(s, same_name->name,
                     fl_arena_sprintf(s->a, "%s_%d", same_name->name, (int)same_name->field_id), 1);
    if (rc) return rc;
  } else if (same_name) {
    put_rename(s, same_name->name,
               fl_arena_sprintf(s->a, "%s_%d", same_name->name, (int)same_name->field_id));
  }
  s->adds[s->nadds++] = nf;
  return FL_OK;
}

/* PartitionSpec.Builder's name rules for each field of the new spec. */
static int check_name(sp_t *s, const ice_partition_field_t *fs, uint32_t n, bool ignore_case) {
  const ice_partition_field_t *f = &fs[n];
  if (!f->name || !f->name[0])
    return fl_err_set(s->err, FL_EINVALID, "Cannot use empty partition name (field %d)",
                      (int)f->field_id);
  for (uint32_t i = 0; i < n; i++)
    if (strcmp(fs[i].name, f->name) == 0)
      return fl_err_set(s->err, FL_EINVALID, "Cannot use partition name more than once: %s",
                        f->name);
  const ice_field_ref_t *col = ice__field_find(&s->idx, f->name, ignore_case);
  if (col) {
    bool own = f->transform.kind == ICE_T_IDENTITY || f->transform.kind == ICE_T_VOID;
    if (!own)
      return fl_err_set(s->err, FL_EINVALID,
                        "Cannot create partition from name that exists in schema: %s", f->name);
    if (col->f->id != f->source_id)
      return fl_err_set(s->err, FL_EINVALID,
                        "Cannot create identity partition sourced from different field in "
                        "schema: %s",
                        f->name);
  }
  return FL_OK;
}

static bool fields_compatible(const ice_spec_t *a, const ice_partition_field_t *fs, uint32_t n) {
  if (a->nfields != n) return false;
  for (uint32_t i = 0; i < n; i++)
    if (a->fields[i].source_id != fs[i].source_id ||
        !ice_transform_equal(&a->fields[i].transform, &fs[i].transform) ||
        strcmp(a->fields[i].name, fs[i].name) != 0)
      return false;
  return true;
}

int ice_spec_evolve(fl_arena_t *a, const ice_meta_t *m, const ty_schema_t *schema,
                    const ice_evolve_op_t *ops, uint32_t n, ice_spec_t **out, fl_err_t *err) {
  sp_t s = {.a = a,
            .err = err,
            .m = m,
            .schema = schema ? schema : ice_meta_schema(m),
            .spec = ice_meta_spec(m)};
  if (!s.schema || !s.spec)
    return fl_err_set(err, FL_EINVALID, "table metadata has no current schema or default spec");
  for (uint32_t i = 0; i < s.spec->nfields; i++)
    if (s.spec->fields[i].transform.kind == ICE_T_UNKNOWN)
      return fl_err_set(err, FL_EUNSUPPORTED,
                        "Cannot update partition spec with unknown transform: %s",
                        field_text(a, &s.spec->fields[i]));
  ice__field_index(a, &s.schema->root, &s.idx);
  s.last_id = m->last_partition_id < 999 ? 999 : m->last_partition_id;
  s.cap = n + s.spec->nfields + 1;
  s.deletes = fl_arena_zalloc(a, s.cap * sizeof *s.deletes);
  s.renames = fl_arena_zalloc(a, 2 * s.cap * sizeof *s.renames);
  s.adds = fl_arena_zalloc(a, s.cap * sizeof *s.adds);
  bool ignore_case = false;
  for (uint32_t i = 0; i < n; i++) {
    const ice_evolve_op_t *op = &ops[i];
    int rc = FL_OK;
    if (op->kind == ICE_EV_ADD_PARTITION)
      rc = add_field(&s, op);
    else if (op->kind == ICE_EV_DROP_PARTITION)
      rc = remove_field(&s, op->name);
    else if (op->kind == ICE_EV_RENAME_PARTITION)
      rc = op->name
               ? rename_field(&s, op->name, op->new_name, 0)
               : fl_err_set(err, FL_EINVALID, "Cannot rename a partition field without a name");
    else
      continue;
    if (rc) return rc;
    ignore_case = ignore_case || op->ignore_case;
  }
  uint32_t total = s.spec->nfields + s.nadds;
  ice_partition_field_t *fs = fl_arena_zalloc(a, (total ? total : 1) * sizeof *fs);
  uint32_t nf = 0;
  for (uint32_t i = 0; i < s.spec->nfields; i++) {
    const ice_partition_field_t *f = &s.spec->fields[i];
    bool gone = deleted(&s, f->field_id);
    if (gone && m->format_version >= 2) continue;
    fs[nf] = *f;
    rename_t *r = find_rename(&s, f->name);
    if (r) fs[nf].name = r->to;
    if (gone) fs[nf].transform = (ice_transform_t){.kind = ICE_T_VOID};
    nf++;
  }
  for (uint32_t i = 0; i < s.nadds; i++) fs[nf++] = s.adds[i];
  for (uint32_t i = 0; i < nf; i++) {
    int rc = check_name(&s, fs, i, ignore_case);
    if (rc) return rc;
  }
  ice_spec_t *ns = fl_arena_zalloc(a, sizeof *ns);
  ns->nfields = nf;
  ns->fields = fs;
  /* The id of an existing spec with these fields, else one above the highest. */
  int32_t spec_id = 0;
  const ice_spec_t *same = NULL;
  for (uint32_t i = 0; i < m->nspecs; i++) {
    if (!same && fields_compatible(m->specs[i], fs, nf)) same = m->specs[i];
    if (m->specs[i]->spec_id >= spec_id) spec_id = m->specs[i]->spec_id + 1;
  }
  if (same) {
    spec_id = same->spec_id;
    for (uint32_t i = 0; i < nf; i++) fs[i].field_id = same->fields[i].field_id;
  }
  ns->spec_id = spec_id;
  *out = ns;
  return FL_OK;
}

/* ---- the whole change on metadata ------------------------------------- */

static bool has_kind(const ice_evolve_op_t *ops, uint32_t n, bool schema) {
  for (uint32_t i = 0; i < n; i++)
    if (ice_evolve_is_schema_op(&ops[i]) == schema) return true;
  return false;
}

/* The name a source column had before the change, for messages. */
static const char *old_name(fl_arena_t *a, const ty_schema_t *before, int32_t id) {
  ice_field_index_t x;
  ice__field_index(a, &before->root, &x);
  const ice_field_ref_t *r = ice__field_by_id(&x, id);
  return r ? r->full : fl_arena_sprintf(a, "with id %d", (int)id);
}

/* Java's last check when it builds new metadata: the default spec and sort
 * order must apply to the current schema. */
static int check_compatible(fl_arena_t *a, const ice_meta_t *m, const ty_schema_t *before,
                            fl_err_t *err) {
  const ty_schema_t *schema = ice_meta_schema(m);
  const ice_spec_t *spec = ice_meta_spec(m);
  if (schema != before) {
    /* Java rebinds every spec to the new schema: a partition field name
     * may be a column's name only when that column is its source. */
    ice_field_index_t x;
    ice__field_index(a, &schema->root, &x);
    for (uint32_t k = 0; k < m->nspecs; k++)
      for (uint32_t i = 0; i < m->specs[k]->nfields; i++) {
        const ice_partition_field_t *f = &m->specs[k]->fields[i];
        const ice_field_ref_t *col = ice__field_find(&x, f->name, false);
        if (col && col->f->id != f->source_id)
          return fl_err_set(err, FL_EINVALID,
                            "Cannot name column %s like partition field %s of spec %d (a "
                            "partition field may share only its source column's name)",
                            col->full, field_text(a, f), (int)m->specs[k]->spec_id);
      }
  }
  for (uint32_t i = 0; spec && i < spec->nfields; i++) {
    const ice_partition_field_t *f = &spec->fields[i];
    if (f->transform.kind == ICE_T_VOID) continue;
    const ty_field_t *src = ty_schema_find_id(schema, f->source_id);
    if (!src)
      return fl_err_set(err, FL_EINVALID,
                        "Cannot drop column %s: partition field %s of the current partition spec "
                        "(spec %d) uses it; drop the partition field in the same change",
                        old_name(a, before, f->source_id), field_text(a, f), (int)spec->spec_id);
    if (ty_is_nested(src->type) || !ice_transform_can_apply(&f->transform, src->type))
      return fl_err_set(err, FL_EINVALID,
                        "Invalid source type %s for transform: %s (partition field %s)",
                        ice__type_text(a, src->type), transform_text(a, &f->transform), f->name);
  }
  const ice_sort_order_t *o = ice_meta_sort_order(m);
  for (uint32_t i = 0; o && i < o->nfields; i++) {
    const ice_sort_field_t *f = &o->fields[i];
    const ty_field_t *src = ty_schema_find_id(schema, f->source_id);
    if (!src)
      return fl_err_set(err, FL_EINVALID,
                        "Cannot drop column %s: the default sort order (order %d) sorts by it",
                        old_name(a, before, f->source_id), (int)o->order_id);
    if (!ice_transform_can_apply(&f->transform, src->type))
      return fl_err_set(err, FL_EINVALID,
                        "Invalid source type %s for sort transform %s (column %s)",
                        ice__type_text(a, src->type), transform_text(a, &f->transform), src->name);
  }
  return FL_OK;
}

/* ---- the name mapping ------------------------------------------------- */

/* A mapping entry for a new field and everything below it. */
static json_t *mapping_for(const ty_field_t *f) {
  json_t *o = json_object();
  json_object_set_new(o, "field-id", json_integer(f->id));
  json_t *names = json_array();
  json_array_append_new(names, json_string(f->name));
  json_object_set_new(o, "names", names);
  if (ty_is_nested(f->type) && f->type->nfields) {
    json_t *kids = json_array();
    for (uint32_t i = 0; i < f->type->nfields; i++)
      json_array_append_new(kids, mapping_for(&f->type->fields[i]));
    json_object_set_new(o, "fields", kids);
  }
  return o;
}

static bool names_have(const json_t *names, const char *name) {
  size_t i;
  json_t *v;
  json_array_foreach(
      names, i, v) if (json_is_string(v) && strcmp(json_string_value(v), name) == 0) return true;
  return false;
}

/*
 * Updates the entries of one struct level (fields whose parent is parent in
 * the new schema) as Java's MappingUtil.update does: a renamed field's new
 * name is added to its names, an added field gets an entry (with entries
 * for its nested fields), and names taken by those are removed from other
 * entries of the level (an entry left without names goes).
 */
static void update_mapping_level(json_t *arr, int32_t parent, const ice_field_index_t *ox,
                                 const ice_field_index_t *nx) {
  size_t i;
  json_t *e;
  json_t *taken = json_object(); /* name -> field id */
  json_array_foreach(arr, i, e) {
    json_t *id = json_object_get(e, "field-id"), *names = json_object_get(e, "names");
    if (!json_is_integer(id)) continue;
    int32_t fid = (int32_t)json_integer_value(id);
    const ice_field_ref_t *n = ice__field_by_id(nx, fid), *o = ice__field_by_id(ox, fid);
    if (n && o && strcmp(n->f->name, o->f->name) != 0 && json_is_array(names)) {
      if (!names_have(names, n->f->name)) json_array_append_new(names, json_string(n->f->name));
      json_object_set_new(taken, n->f->name, json_integer(fid));
    }
    json_t *kids = json_object_get(e, "fields");
    if (n && json_is_array(kids)) update_mapping_level(kids, fid, ox, nx);
  }
  for (uint32_t k = 0; k < nx->n; k++) {
    const ice_field_ref_t *r = &nx->refs[k];
    if (r->parent != parent || ice__field_by_id(ox, r->f->id)) continue;
    json_array_append_new(arr, mapping_for(r->f));
    json_object_set_new(taken, r->f->name, json_integer(r->f->id));
  }
  for (i = json_array_size(arr); i-- > 0;) {
    e = json_array_get(arr, i);
    json_t *id = json_object_get(e, "field-id"), *names = json_object_get(e, "names");
    if (!json_is_array(names)) continue;
    int64_t fid = json_is_integer(id) ? json_integer_value(id) : -1;
    for (size_t k = json_array_size(names); k-- > 0;) {
      json_t *v = json_array_get(names, k);
      json_t *owner = json_is_string(v) ? json_object_get(taken, json_string_value(v)) : NULL;
      if (owner && json_integer_value(owner) != fid) json_array_remove(names, k);
    }
    if (json_array_size(names) == 0) json_array_remove(arr, i);
  }
  json_decref(taken);
}

/* Keeps schema.name-mapping.default in step with the schema; a mapping
 * that does not parse is left alone (Java only logs it). */
static void update_name_mapping(fl_arena_t *a, ice_meta_t *m, const ty_schema_t *before) {
  const char *text = ice_meta_property(m, "schema.name-mapping.default");
  if (!text) return;
  json_error_t je;
  json_t *j = json_loads(text, 0, &je);
  if (!json_is_array(j)) {
    json_decref(j);
    return;
  }
  ice_field_index_t ox, nx;
  ice__field_index(a, &before->root, &ox);
  ice__field_index(a, &ice_meta_schema(m)->root, &nx);
  update_mapping_level(j, -1, &ox, &nx);
  char *out = json_dumps(j, JSON_COMPACT);
  json_decref(j);
  if (out) ice_meta_set_property(m, "schema.name-mapping.default", out);
  free(out);
}

int ice_evolve_meta(ice_meta_t *m, const ice_evolve_op_t *ops, uint32_t n, fl_err_t *err) {
  const ty_schema_t *before = ice_meta_schema(m);
  if (!before) return fl_err_set(err, FL_EINVALID, "table metadata has no current schema");
  fl_arena_t *a = fl_arena_new(0);
  int rc = FL_OK;
  if (has_kind(ops, n, true)) {
    ty_schema_t *ns;
    int32_t last;
    rc =
        ice_schema_evolve(a, before, m->last_column_id, m->format_version, ops, n, &ns, &last, err);
    if (!rc) rc = ice_meta_add_schema(m, ns, NULL, err);
    if (!rc && last > m->last_column_id) m->last_column_id = last;
  }
  if (!rc && has_kind(ops, n, false)) {
    ice_spec_t *spec;
    rc = ice_spec_evolve(a, m, NULL, ops, n, &spec, err);
    if (!rc) rc = ice_meta_add_spec(m, spec, NULL, err);
  }
  if (!rc) rc = check_compatible(a, m, before, err);
  if (!rc && ice_meta_schema(m) != before) update_name_mapping(a, m, before);
  fl_arena_free(a);
  return rc;
}

typedef struct evolve_arg {
  const ice_evolve_op_t *ops;
  uint32_t n;
} evolve_arg_t;

static int evolve_edit(ice_meta_t *m, void *arg, fl_err_t *err) {
  const evolve_arg_t *ea = arg;
  return ice_evolve_meta(m, ea->ops, ea->n, err);
}

int ice_evolve_apply(ice_table_t *t, const ice_evolve_op_t *ops, uint32_t n, fl_err_t *err) {
  if (n == 0)
    return fl_err_set(err, FL_EINVALID, "%s: no schema or partition changes given", t->ident);
  evolve_arg_t ea = {ops, n};
  int rc = ice_commit_meta_edit(t, evolve_edit, &ea, err);
  if (rc && !err->retriable && strncmp(err->msg, t->ident, strlen(t->ident)) != 0) {
    /* Name the table in the message. */
    char msg[sizeof err->msg];
    memcpy(msg, err->msg, sizeof msg);
    fl_err_set(err, rc, "%s: %.600s", t->ident, msg);
  }
  return rc;
}
