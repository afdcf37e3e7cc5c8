/*
 * ice_commit_manifests.c - the manifests of a new snapshot (layer 5,
 * iceberg).
 *
 * Starting from the branch head's manifests:
 *  1. Manifests that may hold a file the change removes (by path, or by a
 *     filter that every row of the file matches) are read; when one does,
 *     the manifest is rewritten with that entry DELETED and the others
 *     EXISTING (carrying their sequence numbers), older DELETED entries
 *     dropped. Others are kept untouched, so a commit reads only what it
 *     must.
 *  2. Added files go into new manifests, one per spec and content.
 *  3. When a spec has commit.manifest.min-count-to-merge data manifests
 *     (or delete manifests: they are merged apart from data, as Java does)
 *     or more, consecutive manifests (new ones first) are packed into bins
 *     of commit.manifest.target-size-bytes and each bin of two or more is
 *     merged into one manifest, so a table appended to every few seconds
 *     keeps a bounded manifest count and flat commit and planning times.
 */
#include <string.h>

#include "base/alloc.h"
#include "iceberg/ice_commit_int.h"

static bool property_bool(const ice_meta_t *m, const char *key, bool dflt) {
  const char *v = ice_meta_property(m, key);
  if (!v) return dflt;
  return strcmp(v, "true") == 0 || strcmp(v, "TRUE") == 0 || strcmp(v, "1") == 0;
}

static const ty_type_t *partition_type(ice_commit_state_t *st, const ice_spec_t *spec,
                                       fl_err_t *err, int *rc) {
  const ty_type_t *pt = NULL;
  *rc = ice_spec_partition_type(st->a, spec, ice_meta_schema(st->t->meta), &pt, err);
  return pt;
}

/* Writes entries into a new manifest of spec/content and records it. */
static int write_manifest(ice_commit_state_t *st, const ice_spec_t *spec, int32_t content,
                          const ice_manifest_entry_t *const *entries, size_t n,
                          int64_t min_existing_seq, fl_err_t *err) {
  ice_table_t *t = st->t;
  const char *path = ice__commit_manifest_path(st);
  ice__commit_note_written(st, path);
  ice_avro_codec_t codec;
  int rc = ice_manifest_codec(t->meta, &codec, err);
  if (rc) return rc;
  ice_manifest_writer_t *w;
  rc = ice_manifest_writer_open(t->fs, ice_table_path(t, st->a, path), t->meta->format_version,
                                ice_meta_schema(t->meta), spec, content, st->snapshot_id, &codec,
                                &w, err);
  if (rc) return rc;
  for (size_t i = 0; i < n; i++) {
    rc = ice_manifest_writer_add(w, entries[i], err);
    if (rc) {
      ice_manifest_writer_abort(w);
      return rc;
    }
  }
  ice_manifest_file_t mf;
  rc = ice_manifest_writer_close(w, st->a, &mf, err);
  if (rc) return rc;
  mf.path = path; /* as the metadata names it (the writer saw the resolved path) */
  mf.sequence_number = -1;
  mf.min_sequence_number = min_existing_seq;
  ice__commit_add_manifest(st, &mf);
  return FL_OK;
}

/* Whether a live data entry is removed by the change's filter; sets
 * *partial when some but maybe not all of its rows match. */
static bool filter_removes(ice_commit_state_t *st, const ice_expr_t *strict_part,
                           const ice_expr_t *incl_part, const ty_type_t *pt,
                           const ice_manifest_entry_t *e, bool *partial) {
  const ty_schema_t *schema = ice_meta_schema(st->t->meta);
  const ice_data_file_t *f = &e->file;
  *partial = false;
  if (strict_part && ice_partition_eval(strict_part, pt, f->partition)) return true;
  if (ice_metrics_must_match(st->c->filter, schema, f)) return true;
  bool might = (!incl_part || ice_partition_eval(incl_part, pt, f->partition)) &&
               ice_metrics_might_match(st->c->filter, schema, f);
  *partial = might;
  return false;
}

/* Step 1 for one manifest of the head. */
static int apply_removals(ice_commit_state_t *st, const ice_manifest_file_t *mf,
                          const fl_strset_t *remove, fl_strset_t *found, fl_err_t *err) {
  ice_table_t *t = st->t;
  const ice_change_t *c = st->c;
  bool use_filter = c->filter && mf->content == 0 &&
                    (c->kind == ICE_CHANGE_OVERWRITE || c->kind == ICE_CHANGE_DELETE);
  const ice_spec_t *spec = ice_meta_spec_by_id(t->meta, mf->spec_id);
  const ty_type_t *pt = NULL;
  const ice_expr_t *strict_part = NULL, *incl_part = NULL;
  int rc;
  if (use_filter && spec) {
    pt = partition_type(st, spec, err, &rc);
    if (rc) return rc;
    const ty_schema_t *schema = ice_meta_schema(t->meta);
    incl_part = ice_expr_project_inclusive(st->a, c->filter, spec, schema, pt);
    strict_part = ice_expr_project_strict(st->a, c->filter, spec, schema, pt);
  }
  bool may_hold = remove->n > 0;
  if (!may_hold && use_filter)
    may_hold = !incl_part || !pt || ice_manifest_might_match(incl_part, pt, mf);
  if (!may_hold) {
    ice__commit_add_manifest(st, mf);
    return FL_OK;
  }
  ice_manifest_entry_t *es;
  size_t ne;
  rc = ice__read_manifest(t, st->a, mf, &es, &ne, err);
  if (rc) return rc;
  const ice_manifest_entry_t **keep = fl_arena_alloc(st->a, (ne ? ne : 1) * sizeof *keep);
  size_t nkeep = 0, nremoved = 0;
  int64_t min_seq = INT64_MAX;
  for (size_t i = 0; i < ne; i++) {
    ice_manifest_entry_t *e = &es[i];
    if (e->status == ICE_STATUS_DELETED) continue;
    bool removed = fl_strset_has_str(remove, e->file.path);
    if (removed) {
      fl_strset_add_str(found, e->file.path);
    } else if (use_filter) {
      bool partial;
      removed = filter_removes(st, strict_part, incl_part, pt, e, &partial);
      if (!removed && partial)
        return fl_err_set(err, FL_EINVALID,
                          "%s: data file %s holds rows that match the filter and rows that do not; "
                          "it must be rewritten (delete by filter rewrites such files)",
                          t->ident, e->file.path);
    }
    ice_manifest_entry_t *ne_ = fl_arena_alloc(st->a, sizeof *ne_);
    *ne_ = *e;
    if (removed) {
      ne_->status = ICE_STATUS_DELETED;
      ne_->snapshot_id = st->snapshot_id;
      ice__commit_count_file(st, &e->file, -1);
      nremoved++;
    } else {
      ne_->status = ICE_STATUS_EXISTING;
      if (e->sequence_number >= 0 && e->sequence_number < min_seq) min_seq = e->sequence_number;
    }
    keep[nkeep++] = ne_;
  }
  if (nremoved == 0) {
    ice__commit_add_manifest(st, mf);
    return FL_OK;
  }
  if (!spec)
    return fl_err_set(err, FL_ECORRUPT, "%s: manifest %s names unknown partition spec %d", t->ident,
                      mf->path, mf->spec_id);
  return write_manifest(st, spec, mf->content, keep, nkeep, min_seq == INT64_MAX ? -1 : min_seq,
                        err);
}

/* Step 2: one manifest per (content, spec) of the added files. */
static int write_added(ice_commit_state_t *st, fl_err_t *err) {
  const ice_change_t *c = st->c;
  if (c->nadd == 0) return FL_OK;
  bool *done = fl_arena_zalloc(st->a, c->nadd);
  const ice_manifest_entry_t **group = fl_arena_alloc(st->a, c->nadd * sizeof *group);
  for (uint32_t i = 0; i < c->nadd; i++) {
    if (done[i]) continue;
    int32_t content = c->add[i].content == ICE_CONTENT_DATA ? 0 : 1;
    int32_t spec_id = c->add[i].spec_id;
    const ice_spec_t *spec = ice_meta_spec_by_id(st->t->meta, spec_id);
    if (!spec)
      return fl_err_set(err, FL_EINVALID, "%s: file %s names unknown partition spec %d",
                        st->t->ident, c->add[i].path, spec_id);
    size_t n = 0;
    for (uint32_t j = i; j < c->nadd; j++) {
      int32_t cj = c->add[j].content == ICE_CONTENT_DATA ? 0 : 1;
      if (done[j] || cj != content || c->add[j].spec_id != spec_id) continue;
      done[j] = true;
      ice_manifest_entry_t *e = fl_arena_zalloc(st->a, sizeof *e);
      e->status = ICE_STATUS_ADDED;
      e->snapshot_id = st->snapshot_id;
      e->sequence_number = -1;
      e->file_sequence_number = -1;
      e->file = c->add[j];
      ice__commit_count_file(st, &c->add[j], 1);
      group[n++] = e;
    }
    int rc = write_manifest(st, spec, content, group, n, -1, err);
    if (rc) return rc;
  }
  return FL_OK;
}

/* Step 3: merges one bin of manifests of one spec and content. */
static int merge_bin(ice_commit_state_t *st, const ice_manifest_file_t *bin, size_t n,
                     fl_err_t *err) {
  const ice_spec_t *spec = ice_meta_spec_by_id(st->t->meta, bin[0].spec_id);
  size_t cap = 256, len = 0;
  const ice_manifest_entry_t **all = fl_arena_alloc(st->a, cap * sizeof *all);
  int64_t min_seq = INT64_MAX;
  for (size_t i = 0; i < n; i++) {
    ice_manifest_entry_t *es;
    size_t ne;
    int rc = ice__read_manifest(st->t, st->a, &bin[i], &es, &ne, err);
    if (rc) return rc;
    bool this_commit = bin[i].added_snapshot_id == st->snapshot_id;
    for (size_t j = 0; j < ne; j++) {
      ice_manifest_entry_t *e = &es[j];
      if (e->status == ICE_STATUS_DELETED && e->snapshot_id != st->snapshot_id) continue;
      if (!(this_commit && e->status == ICE_STATUS_ADDED) && e->status != ICE_STATUS_DELETED) {
        e->status = ICE_STATUS_EXISTING;
        if (e->sequence_number >= 0 && e->sequence_number < min_seq) min_seq = e->sequence_number;
      }
      if (len == cap) {
        const ice_manifest_entry_t **bigger = fl_arena_alloc(st->a, 2 * cap * sizeof *all);
        memcpy(bigger, all, len * sizeof *all);
        all = bigger;
        cap *= 2;
      }
      all[len++] = e;
    }
  }
  int rc =
      write_manifest(st, spec, bin[0].content, all, len, min_seq == INT64_MAX ? -1 : min_seq, err);
  if (rc) return rc;
  /* Manifests this commit wrote and just merged would be orphans. */
  for (size_t i = 0; i < n; i++)
    if (bin[i].added_snapshot_id == st->snapshot_id) ice__commit_discard_written(st, bin[i].path);
  return FL_OK;
}

static int merge_manifests(ice_commit_state_t *st, fl_err_t *err) {
  const ice_meta_t *m = st->t->meta;
  if (!property_bool(m, "commit.manifest-merge.enabled", true)) return FL_OK;
  int64_t min_count = ice_meta_property_int(m, "commit.manifest.min-count-to-merge", 100);
  int64_t target = ice_meta_property_int(m, "commit.manifest.target-size-bytes", 8 << 20);
  if (min_count < 2) min_count = 2;

  size_t n = st->nmfs;
  ice_manifest_file_t *in = st->mfs;
  bool *handled = fl_arena_zalloc(st->a, n ? n : 1);
  /* The result list is rebuilt: merged bins replace their members. */
  st->mfs = NULL;
  st->nmfs = st->mfs_cap = 0;
  for (size_t i = 0; i < n; i++) {
    if (handled[i]) continue;
    int32_t spec_id = in[i].spec_id, content = in[i].content;
    size_t count = 0;
    for (size_t j = i; j < n; j++)
      if (!handled[j] && in[j].content == content && in[j].spec_id == spec_id) count++;
    ice_manifest_file_t *group = fl_arena_alloc(st->a, count * sizeof *group);
    size_t g = 0;
    for (size_t j = i; j < n; j++)
      if (!handled[j] && in[j].content == content && in[j].spec_id == spec_id) {
        handled[j] = true;
        group[g++] = in[j];
      }
    if ((int64_t)count < min_count) {
      for (size_t j = 0; j < g; j++) ice__commit_add_manifest(st, &group[j]);
      continue;
    }
    size_t start = 0;
    int64_t bin_bytes = 0;
    for (size_t j = 0; j <= g; j++) {
      bool close_bin = j == g || (j > start && bin_bytes + group[j].length > target);
      if (close_bin) {
        size_t len = j - start;
        if (len == 1) {
          ice__commit_add_manifest(st, &group[start]);
        } else if (len > 1) {
          int rc = merge_bin(st, &group[start], len, err);
          if (rc) return rc;
        }
        start = j;
        bin_bytes = 0;
      }
      if (j < g) bin_bytes += group[j].length > 0 ? group[j].length : 0;
    }
  }
  return FL_OK;
}

int ice__commit_build_manifests(ice_commit_state_t *st, fl_err_t *err) {
  ice_table_t *t = st->t;
  const ice_change_t *c = st->c;
  if (t->meta->format_version < 2)
    return fl_err_set(err, FL_EUNSUPPORTED,
                      "%s: table is format version %d; floe writes version 2 tables "
                      "(upgrade it: set the table property format-version=2)",
                      t->ident, t->meta->format_version);
  int rc = write_added(st, err);
  if (rc) return rc;
  size_t nadded = st->nmfs;

  fl_strset_t remove, found;
  fl_strset_init(&remove);
  fl_strset_init(&found);
  for (uint32_t i = 0; i < c->nremove; i++) fl_strset_add_str(&remove, c->remove[i]);
  if (st->head) {
    ice_manifest_file_t *mfs;
    size_t nm;
    rc = ice__commit_base_manifests(t, st->a, st->head, &mfs, &nm, err);
    for (size_t i = 0; rc == FL_OK && i < nm; i++) {
      if (mfs[i].spec_id < 0 || mfs[i].length < 0) {
        /* A v1 inline manifest: read it to learn its spec. */
        ice_manifest_entry_t *es;
        size_t ne;
        rc = ice__read_manifest(t, st->a, &mfs[i], &es, &ne, err);
        if (rc) break;
        if (ne > 0) mfs[i].spec_id = es[0].file.spec_id;
      }
      rc = apply_removals(st, &mfs[i], &remove, &found, err);
    }
  }
  if (rc == FL_OK && found.n < remove.n) {
    for (uint32_t i = 0; i < c->nremove; i++)
      if (!fl_strset_has_str(&found, c->remove[i])) {
        rc = fl_err_set(err, FL_ENOTFOUND, "%s: file to remove is not in the table: %s", t->ident,
                        c->remove[i]);
        break;
      }
  }
  fl_strset_free(&remove);
  fl_strset_free(&found);
  if (rc) return rc;
  (void)nadded;
  return merge_manifests(st, err);
}
