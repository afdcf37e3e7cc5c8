/*
 * ice_snapshot_files.c - the manifests and live file entries of a snapshot
 * (layer 5, iceberg).
 *
 * Scans, commits and maintenance all start from the same two questions:
 * which manifests does a snapshot list, and which files are live in it.
 * v2 snapshots name a manifest list; v1 snapshots may list their manifests
 * inline, in which case the manifests' own headers give spec and content
 * and sequence numbers are 0. A commit building on the list its table
 * handle committed last takes it from memory (ice_table_t.list_cache);
 * everything else - scans, validation, maintenance - reads the file.
 */
#include <string.h>

#include "base/alloc.h"
#include "iceberg/ice_int.h"

static ice_bytes_t copy_bytes(fl_arena_t *a, ice_bytes_t b) {
  ice_bytes_t r = {NULL, b.n};
  if (b.p) r.p = fl_arena_memdup(a, b.p, b.n ? b.n : 1);
  return r;
}

/* Deep copies of mfs[0..n) into a. */
static ice_manifest_file_t *copy_manifests(fl_arena_t *a, const ice_manifest_file_t *mfs,
                                           size_t n) {
  ice_manifest_file_t *c = fl_arena_zalloc(a, (n ? n : 1) * sizeof *c);
  for (size_t i = 0; i < n; i++) {
    c[i] = mfs[i];
    c[i].path = fl_arena_strdup(a, mfs[i].path);
    c[i].key_metadata = copy_bytes(a, mfs[i].key_metadata);
    if (mfs[i].partitions) {
      c[i].partitions = fl_arena_alloc(
          a, (mfs[i].npartitions ? mfs[i].npartitions : 1) * sizeof *c[i].partitions);
      for (uint32_t k = 0; k < mfs[i].npartitions; k++) {
        c[i].partitions[k] = mfs[i].partitions[k];
        c[i].partitions[k].lower = copy_bytes(a, mfs[i].partitions[k].lower);
        c[i].partitions[k].upper = copy_bytes(a, mfs[i].partitions[k].upper);
      }
    }
  }
  return c;
}

void ice__list_cache_free(ice_list_cache_t *c) {
  if (!c) return;
  fl_arena_free(c->a);
  fl_free(c);
}

void ice__list_cache_put(ice_table_t *t, const char *list_path, int64_t snapshot_id, int64_t seq,
                         const ice_manifest_file_t *mfs, size_t n) {
  ice__list_cache_free(t->list_cache);
  ice_list_cache_t *c = fl_calloc(1, sizeof *c);
  c->a = fl_arena_new(0);
  c->list_path = fl_arena_strdup(c->a, list_path);
  c->mfs = copy_manifests(c->a, mfs, n);
  c->n = n;
  /* What ice_manifest_list_write puts into a v2 list for each. */
  for (size_t i = 0; i < n; i++) {
    ice_manifest_file_t *m = &c->mfs[i];
    if (m->sequence_number < 0) m->sequence_number = seq;
    if (m->min_sequence_number < 0) m->min_sequence_number = m->sequence_number;
    if (m->min_sequence_number > m->sequence_number) m->min_sequence_number = m->sequence_number;
    if (m->added_snapshot_id < 0) m->added_snapshot_id = snapshot_id;
    if (m->added_files < 0) m->added_files = 0;
    if (m->existing_files < 0) m->existing_files = 0;
    if (m->deleted_files < 0) m->deleted_files = 0;
    if (m->added_rows < 0) m->added_rows = 0;
    if (m->existing_rows < 0) m->existing_rows = 0;
    if (m->deleted_rows < 0) m->deleted_rows = 0;
    if (!m->partitions) { /* written as an empty list, as Java writes it */
      m->partitions = fl_arena_zalloc(c->a, sizeof *m->partitions);
      m->npartitions = 0;
    }
  }
  t->list_cache = c;
}

int ice__commit_base_manifests(const ice_table_t *t, fl_arena_t *a, const ice_snapshot_t *s,
                               ice_manifest_file_t **out, size_t *n, fl_err_t *err) {
  const ice_list_cache_t *c = t->list_cache;
  if (s->manifest_list && c && strcmp(c->list_path, s->manifest_list) == 0) {
    *out = copy_manifests(a, c->mfs, c->n);
    *n = c->n;
    return FL_OK;
  }
  return ice_snapshot_manifests(t, a, s, out, n, err);
}

int ice_snapshot_manifests(const ice_table_t *t, fl_arena_t *a, const ice_snapshot_t *s,
                           ice_manifest_file_t **out, size_t *n, fl_err_t *err) {
  *out = NULL;
  *n = 0;
  if (s->manifest_list) {
    const char *path = ice_table_path(t, a, s->manifest_list);
    int rc = ice_manifest_list_read(t->fs, a, path, out, n, err);
    if (rc) return fl_err_prefix(err, "snapshot %lld: ", (long long)s->snapshot_id);
    return FL_OK;
  }
  ice_manifest_file_t *m =
      fl_arena_zalloc(a, sizeof *m * (s->nmanifests_v1 ? s->nmanifests_v1 : 1));
  for (uint32_t i = 0; i < s->nmanifests_v1; i++) {
    m[i].path = s->manifests_v1[i];
    m[i].length = -1;
    m[i].spec_id = -1; /* taken from the manifest header when read */
    m[i].content = 0;
    m[i].sequence_number = 0;
    m[i].min_sequence_number = 0;
    m[i].added_snapshot_id = s->snapshot_id;
    m[i].added_files = m[i].existing_files = m[i].deleted_files = -1;
    m[i].added_rows = m[i].existing_rows = m[i].deleted_rows = -1;
    m[i].first_row_id = -1;
  }
  *out = m;
  *n = s->nmanifests_v1;
  return FL_OK;
}

/* The partition type a manifest's entries are read with: the spec's
 * partition struct over the current schema, or NULL (the manifest's own
 * Avro schema) when the spec is unknown or no longer fits the schema. */
static const ty_type_t *partition_type_of(const ice_table_t *t, fl_arena_t *a, int32_t spec_id) {
  if (spec_id < 0) return NULL;
  const ice_spec_t *spec = ice_meta_spec_by_id(t->meta, spec_id);
  if (!spec) return NULL;
  const ty_type_t *pt = NULL;
  fl_err_t ignored;
  if (ice_spec_partition_type(a, spec, ice_meta_schema(t->meta), &pt, &ignored)) return NULL;
  return pt;
}

int ice__read_manifest(const ice_table_t *t, fl_arena_t *a, const ice_manifest_file_t *mf,
                       ice_manifest_entry_t **out, size_t *n, fl_err_t *err) {
  ice_manifest_file_t copy = *mf;
  copy.path = ice_table_path(t, a, mf->path);
  return ice_manifest_read(t->fs, a, &copy, partition_type_of(t, a, mf->spec_id), out, n, err);
}

int ice_manifest_entries(const ice_table_t *t, fl_arena_t *a, const ice_manifest_file_t *mf,
                         ice_manifest_entry_t **out, size_t *n, fl_err_t *err) {
  return ice__read_manifest(t, a, mf, out, n, err);
}

int ice_snapshot_entries(const ice_table_t *t, fl_arena_t *a, const ice_snapshot_t *s,
                         ice_manifest_entry_t **out, size_t *n, fl_err_t *err) {
  ice_manifest_file_t *mfs;
  size_t nm;
  int rc = ice_snapshot_manifests(t, a, s, &mfs, &nm, err);
  if (rc) return rc;
  size_t cap = 64, len = 0;
  ice_manifest_entry_t *all = fl_arena_alloc(a, cap * sizeof *all);
  for (size_t i = 0; i < nm; i++) {
    ice_manifest_entry_t *es;
    size_t ne;
    rc = ice__read_manifest(t, a, &mfs[i], &es, &ne, err);
    if (rc) return rc;
    for (size_t j = 0; j < ne; j++) {
      if (es[j].status == ICE_STATUS_DELETED) continue;
      if (len == cap) {
        ice_manifest_entry_t *bigger = fl_arena_alloc(a, 2 * cap * sizeof *all);
        memcpy(bigger, all, len * sizeof *all);
        all = bigger;
        cap *= 2;
      }
      all[len++] = es[j];
    }
  }
  *out = all;
  *n = len;
  return FL_OK;
}
