/*
 * ice_reachable.c - the files a table's metadata reaches (layer 5,
 * iceberg).
 *
 * Expiry and orphan removal both ask which files some set of snapshots
 * still needs: their manifest lists, the manifests those list, and the
 * data and delete files in the manifests. The walk reads every manifest
 * once however many snapshots share it, with a scratch arena per
 * manifest so that memory stays bounded by the largest manifest plus the
 * path sets. Paths are compared in one normal form (ice__norm_path), so
 * "file:///wh/t/data/a.parquet" in a manifest written by Java and
 * "/wh/t/data/a.parquet" from a directory listing are the same file.
 */
#include <string.h>

#include "iceberg/ice_maint_int.h"

/* ---- paths ---- */

char *ice__clean_path(fl_arena_t *a, const char *p) {
  if (strncmp(p, "file:", 5) == 0) {
    const char *q = p + 5;
    if (strncmp(q, "//", 2) == 0) {
      q += 2;
      if (strncmp(q, "localhost/", 10) == 0) q += 9;
      if (*q == '/') p = q; /* file:///p or file://localhost/p; keep other hosts */
    } else if (*q == '/') {
      p = q;
    }
  }
  if (strstr(p, "://")) return fl_arena_strdup(a, p); /* a URI of another scheme */
  size_t n = strlen(p);
  char *out = fl_arena_alloc(a, n + 1);
  size_t o = 0;
  for (size_t i = 0; i < n;) {
    if (p[i] == '/') {
      while (i < n && p[i] == '/') i++;
      /* "/./" and a trailing "/." */
      if (p[i] == '.' && (i + 1 == n || p[i + 1] == '/')) {
        i++;
        continue;
      }
      out[o++] = '/';
      continue;
    }
    out[o++] = p[i++];
  }
  while (o > 1 && out[o - 1] == '/') o--;
  if (o == 0 && n) out[o++] = p[0] == '/' ? '/' : '.';
  out[o] = '\0';
  return out;
}

char *ice__norm_path(const ice_table_t *t, fl_arena_t *a, const char *path) {
  return ice__clean_path(a, ice_table_path(t, a, path));
}

bool ice__gc_enabled(const ice_meta_t *m) {
  const char *v = ice_meta_property(m, "gc.enabled");
  return !(v && strcmp(v, "false") == 0);
}

void ice__strset_each(const fl_strset_t *s, void (*fn)(const char *key, void *arg), void *arg) {
  for (size_t i = 0; i < s->cap; i++)
    if (s->slots[i].key) fn(s->slots[i].key, arg);
}

/* ---- the walk ---- */

void ice__reach_init(ice_reach_t *r, bool deleted_entries, bool strict) {
  memset(r, 0, sizeof *r);
  fl_strset_init(&r->lists);
  fl_strset_init(&r->manifests);
  fl_strset_init(&r->data_files);
  fl_strset_init(&r->delete_files);
  fl_strset_init(&r->eq_deletes);
  r->deleted_entries = deleted_entries;
  r->strict = strict;
}

void ice__reach_free(ice_reach_t *r) {
  fl_strset_free(&r->lists);
  fl_strset_free(&r->manifests);
  fl_strset_free(&r->data_files);
  fl_strset_free(&r->delete_files);
  fl_strset_free(&r->eq_deletes);
}

int ice__reach_snapshot(const ice_table_t *t, fl_arena_t *a, ice_reach_t *r,
                        const ice_snapshot_t *s, ice_manifest_file_t **mfs, size_t *nmfs,
                        size_t *cap, fl_err_t *err) {
  if (s->manifest_list) fl_strset_add_str(&r->lists, ice__norm_path(t, a, s->manifest_list));
  ice_manifest_file_t *got = NULL;
  size_t n = 0;
  int rc = ice_snapshot_manifests(t, a, s, &got, &n, err);
  if (rc) {
    if (r->strict) return rc;
    r->skipped++;
    return FL_OK;
  }
  for (size_t i = 0; i < n; i++) {
    if (!fl_strset_add_str(&r->manifests, ice__norm_path(t, a, got[i].path))) continue;
    if (*nmfs == *cap) {
      size_t ncap = *cap ? *cap * 2 : 32;
      ice_manifest_file_t *bigger = fl_arena_alloc(a, ncap * sizeof *bigger);
      if (*nmfs) memcpy(bigger, *mfs, *nmfs * sizeof *bigger);
      *mfs = bigger;
      *cap = ncap;
    }
    (*mfs)[(*nmfs)++] = got[i];
  }
  return FL_OK;
}

int ice__reach_entries(const ice_table_t *t, ice_reach_t *r, const ice_manifest_file_t *mfs,
                       size_t nmfs, fl_err_t *err) {
  fl_arena_t *scratch = fl_arena_new(0);
  int rc = FL_OK;
  for (size_t i = 0; i < nmfs; i++) {
    fl_arena_reset(scratch);
    ice_manifest_entry_t *es = NULL;
    size_t ne = 0;
    rc = ice__read_manifest(t, scratch, &mfs[i], &es, &ne, err);
    if (rc) {
      if (r->strict) break;
      r->skipped++;
      rc = FL_OK;
      continue;
    }
    for (size_t j = 0; j < ne; j++) {
      if (es[j].status == ICE_STATUS_DELETED && !r->deleted_entries) continue;
      if (!es[j].file.path) continue;
      const char *p = ice__norm_path(t, scratch, es[j].file.path);
      fl_strset_add_str(es[j].file.content == ICE_CONTENT_DATA ? &r->data_files : &r->delete_files,
                        p);
      if (es[j].file.content == ICE_CONTENT_EQUALITY_DELETES) fl_strset_add_str(&r->eq_deletes, p);
    }
  }
  fl_arena_free(scratch);
  return rc;
}

/* ---- every file the metadata names ---- */

typedef struct path_list {
  fl_arena_t *a;
  const char **v;
  size_t n, cap;
} path_list_t;

static void push_path(const char *key, void *arg) {
  path_list_t *l = arg;
  if (l->n == l->cap) {
    size_t ncap = l->cap ? l->cap * 2 : 64;
    const char **bigger = fl_arena_alloc(l->a, ncap * sizeof *bigger);
    if (l->n) memcpy(bigger, l->v, l->n * sizeof *bigger);
    l->v = bigger;
    l->cap = ncap;
  }
  l->v[l->n++] = fl_arena_strdup(l->a, key);
}

static void add_to_set(const char *key, void *arg) { fl_strset_add_str(arg, key); }

/* Statistics and partition-statistics files, kept by ice_meta as raw JSON. */
static void add_statistics(const ice_table_t *t, fl_arena_t *a, fl_strset_t *meta_files) {
  if (!t->meta->extra || !json_is_object(t->meta->extra)) return;
  static const char *const keys[] = {"statistics", "partition-statistics"};
  for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
    json_t *arr = json_object_get(t->meta->extra, keys[k]);
    if (!json_is_array(arr)) continue;
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e) {
      const char *p = json_string_value(json_object_get(e, "statistics-path"));
      if (p) fl_strset_add_str(meta_files, ice__norm_path(t, a, p));
    }
  }
}

int ice_reachable_files(const ice_table_t *t, fl_arena_t *a, const char ***out, size_t *n,
                        fl_err_t *err) {
  return ice__reachable_files(t, a, out, n, NULL, err);
}

int ice__reachable_files(const ice_table_t *t, fl_arena_t *a, const char ***out, size_t *n,
                         uint64_t *nmanifests, fl_err_t *err) {
  *out = NULL;
  *n = 0;
  const ice_meta_t *m = t->meta;
  fl_arena_t *work = fl_arena_new(0);
  fl_strset_t meta_files;
  fl_strset_init(&meta_files);
  ice_reach_t r;
  ice__reach_init(&r, true, true);

  /* Metadata files: the current one, the logged ones, the version hint a
   * file-system catalog keeps beside them, statistics. */
  if (t->metadata_location) /* a path as the catalog gave it, not one from metadata */
    fl_strset_add_str(&meta_files, ice__clean_path(work, t->metadata_location));
  for (uint32_t i = 0; i < m->nmetadata_log; i++)
    if (m->metadata_log[i].file)
      fl_strset_add_str(&meta_files, ice__norm_path(t, work, m->metadata_log[i].file));
  fl_strset_add_str(&meta_files,
                    ice__norm_path(t, work,
                                   fl_arena_sprintf(work, "%s/version-hint.text",
                                                    ice__metadata_dir(m, work))));
  add_statistics(t, work, &meta_files);

  ice_manifest_file_t *mfs = NULL;
  size_t nmfs = 0, cap = 0;
  int rc = FL_OK;
  for (uint32_t i = 0; i < m->nsnapshots && !rc; i++)
    rc = ice__reach_snapshot(t, work, &r, &m->snapshots[i], &mfs, &nmfs, &cap, err);
  if (!rc) rc = ice__reach_entries(t, &r, mfs, nmfs, err);
  if (rc) {
    fl_err_prefix(err, "%s: collecting reachable files: ", t->ident);
    goto out;
  }
  if (nmanifests) *nmanifests = r.manifests.n;
  ice__strset_each(&r.lists, add_to_set, &meta_files);
  ice__strset_each(&r.manifests, add_to_set, &meta_files);
  ice__strset_each(&r.data_files, add_to_set, &meta_files);
  ice__strset_each(&r.delete_files, add_to_set, &meta_files);
  path_list_t l = {.a = a};
  ice__strset_each(&meta_files, push_path, &l);
  *out = l.v;
  *n = l.n;
out:
  ice__reach_free(&r);
  fl_strset_free(&meta_files);
  fl_arena_free(work);
  return rc;
}
