/*
 * ice_orphans.c - deleting files under a table's location that no
 * metadata reaches (layer 5, iceberg).
 *
 * Failed writers, crashed commits and lost races leave data files,
 * manifests and metadata files that nothing references. This lists every
 * file under the table location, compares each (in the normal form of
 * ice__norm_path) with the set ice_reachable_files builds from the
 * current metadata, and deletes the unreferenced ones whose modification
 * time is before the caller's threshold - a writer that is still working
 * has files newer than that, which must survive until it commits.
 *
 * As in the reference implementation's DeleteOrphanFiles, hidden paths
 * (a folder or file under the location whose name starts with '.' or '_',
 * except partition folders such as "_key=value") are never touched, and
 * a table with gc.enabled=false is refused. The table is refreshed first
 * so that the reachable set is that of the newest committed metadata.
 */
#include <inttypes.h>
#include <string.h>

#include "iceberg/ice_maint_int.h"

/* True when a component of rel (relative to the table location) is hidden. */
static bool hidden(const char *rel) {
  const char *c = rel;
  while (*c) {
    while (*c == '/') c++;
    if (!*c) break;
    const char *end = strchr(c, '/');
    size_t len = end ? (size_t)(end - c) : strlen(c);
    if (c[0] == '.') return true;
    if (c[0] == '_' && !(end && memchr(c, '=', len))) return true;
    c += len;
  }
  return false;
}

int ice_remove_orphans(ice_table_t *t, int64_t older_than_ms, bool dry_run,
                       void (*fn)(const char *path, void *arg), void *arg,
                       ice_orphan_result_t *res, fl_err_t *err) {
  ice_orphan_result_t ignored;
  if (!res) res = &ignored;
  memset(res, 0, sizeof *res);
  if (t->committer.current) {
    int rc = ice_table_refresh(t, err);
    if (rc) return rc;
  }
  if (!ice__gc_enabled(t->meta))
    return fl_err_set(err, FL_EINVALID,
                      "%s: cannot delete orphan files: GC is disabled (deleting files may "
                      "corrupt other tables)",
                      t->ident);
  if (!t->fs->list)
    return fl_err_set(err, FL_EUNSUPPORTED, "%s: the %s file system cannot list files", t->ident,
                      t->fs->name);
  fl_arena_t *a = fl_arena_new(0);
  const char *loc = t->meta->location ? ice__norm_path(t, a, t->meta->location) : "";
  if (!loc[0] || strcmp(loc, "/") == 0) {
    fl_arena_free(a);
    return fl_err_set(err, FL_EINVALID, "%s: refusing to clean up table location '%s'", t->ident,
                      t->meta->location ? t->meta->location : "");
  }
  size_t loc_len = strlen(loc);

  const char **reach = NULL;
  size_t nreach = 0;
  int rc = ice__reachable_files(t, a, &reach, &nreach, &res->manifests_read, err);
  if (rc) goto out;
  /* Without the version hint a file-system catalog may keep (always listed). */
  res->reachable_files = nreach ? nreach - 1 : 0;
  fl_strset_t reachable;
  fl_strset_init(&reachable);
  for (size_t i = 0; i < nreach; i++) fl_strset_add_str(&reachable, reach[i]);

  io_entry_t *es = NULL;
  size_t ne = 0;
  rc = t->fs->list(t->fs, loc, &es, &ne, err);
  if (rc) {
    fl_err_prefix(err, "%s: listing %s: ", t->ident, loc);
    fl_strset_free(&reachable);
    goto out;
  }
  fl_arena_t *scratch = fl_arena_new(0);
  for (size_t i = 0; i < ne; i++) {
    if (es[i].is_dir) continue;
    fl_arena_reset(scratch);
    const char *p = ice__clean_path(scratch, es[i].path);
    /* Only what is really below the location (a listing of "/wh/t" must
     * not wander into "/wh/t2"). */
    if (strncmp(p, loc, loc_len) != 0 || p[loc_len] != '/') continue;
    if (hidden(p + loc_len)) continue;
    res->files_seen++;
    if (fl_strset_has_str(&reachable, p)) continue;
    if (es[i].mtime_ms >= older_than_ms) continue;
    if (!dry_run) {
      fl_err_t e;
      int drc = t->fs->remove(t->fs, es[i].path, &e);
      if (drc) {
        if (!rc) {
          rc = drc;
          *err = e;
          fl_err_prefix(err, "%s: deleting orphan: ", t->ident);
        }
        continue;
      }
    }
    if (fn) fn(p, arg);
    res->orphans_deleted++;
    res->bytes_deleted += es[i].size;
  }
  fl_arena_free(scratch);
  io_entries_free(es, ne);
  fl_strset_free(&reachable);
out:
  fl_arena_free(a);
  return rc;
}
