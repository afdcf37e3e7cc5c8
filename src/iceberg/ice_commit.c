/*
 * ice_commit.c - turning a change into a snapshot and committing it
 * (layer 5, iceberg).
 *
 * One attempt: take the branch head of the current metadata, rewrite the
 * manifests that lose files, write manifests for the added files, merge
 * small manifests (ice_commit_manifests.c), write the manifest list, add
 * the snapshot with its summary to a clone of the metadata and swap it in.
 * A lost swap refreshes the table, validates the change against what was
 * committed meanwhile (ice_commit_validate.c) and starts a new attempt;
 * the data files are reused, everything else the failed attempt wrote is
 * deleted.
 *
 * States of a commit: attempt n (building) -> swapped (done) | conflict
 * (refresh, validate, attempt n+1 after backoff) | failed (cleaned up).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/alloc.h"
#include "iceberg/ice_commit_int.h"

int64_t ice__now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

const char *ice__metadata_dir(const ice_meta_t *m, fl_arena_t *a) {
  const char *p = ice_meta_property(m, "write.metadata.path");
  if (p && *p) return fl_arena_strdup(a, p);
  return fl_arena_sprintf(a, "%s/metadata", m->location);
}

void ice__commit_note_written(ice_commit_state_t *st, const char *path) {
  if (st->nwritten == st->written_cap) {
    size_t cap = st->written_cap ? st->written_cap * 2 : 16;
    const char **bigger = fl_arena_alloc(st->a, cap * sizeof *bigger);
    if (st->nwritten) memcpy(bigger, st->written, st->nwritten * sizeof *bigger);
    st->written = bigger;
    st->written_cap = cap;
  }
  st->written[st->nwritten++] = path;
}

void ice__commit_discard_written(ice_commit_state_t *st, const char *path) {
  for (size_t i = 0; i < st->nwritten; i++)
    if (strcmp(st->written[i], path) == 0) {
      fl_err_t ignored;
      st->t->fs->remove(st->t->fs, ice_table_path(st->t, st->a, path), &ignored);
      st->written[i] = st->written[--st->nwritten];
      return;
    }
}

void ice__commit_add_manifest(ice_commit_state_t *st, const ice_manifest_file_t *mf) {
  if (st->nmfs == st->mfs_cap) {
    size_t cap = st->mfs_cap ? st->mfs_cap * 2 : 16;
    ice_manifest_file_t *bigger = fl_arena_alloc(st->a, cap * sizeof *bigger);
    if (st->nmfs) memcpy(bigger, st->mfs, st->nmfs * sizeof *bigger);
    st->mfs = bigger;
    st->mfs_cap = cap;
  }
  st->mfs[st->nmfs++] = *mf;
}

char *ice__commit_manifest_path(ice_commit_state_t *st) {
  char uuid[37];
  ice_new_uuid(uuid);
  return fl_arena_sprintf(st->a, "%s/%s-m%u.avro", ice__metadata_dir(st->t->meta, st->a), uuid,
                          st->manifest_counter++);
}

/* Deletes what a failed attempt wrote (never data files: the caller's). */
static void cleanup_written(ice_commit_state_t *st) {
  fl_err_t ignored;
  for (size_t i = 0; i < st->nwritten; i++)
    st->t->fs->remove(st->t->fs, ice_table_path(st->t, st->a, st->written[i]), &ignored);
  st->nwritten = 0;
}

/* ---- summary ---- */

typedef struct summary_builder {
  fl_arena_t *a;
  ice_kv_t *kv;
  uint32_t n, cap;
} summary_builder_t;

static void sb_put(summary_builder_t *sb, const char *key, const char *value) {
  for (uint32_t i = 0; i < sb->n; i++)
    if (strcmp(sb->kv[i].key, key) == 0) {
      sb->kv[i].value = fl_arena_strdup(sb->a, value);
      return;
    }
  if (sb->n == sb->cap) {
    uint32_t cap = sb->cap ? sb->cap * 2 : 32;
    ice_kv_t *bigger = fl_arena_alloc(sb->a, cap * sizeof *bigger);
    if (sb->n) memcpy(bigger, sb->kv, sb->n * sizeof *bigger);
    sb->kv = bigger;
    sb->cap = cap;
  }
  sb->kv[sb->n++] = (ice_kv_t){fl_arena_strdup(sb->a, key), fl_arena_strdup(sb->a, value)};
}

static void sb_put_int(summary_builder_t *sb, const char *key, int64_t v) {
  char tmp[32];
  snprintf(tmp, sizeof tmp, "%" PRId64, v);
  sb_put(sb, key, tmp);
}

/* Puts key when v is non-zero (Java writes only the counters that moved). */
static void sb_put_nonzero(summary_builder_t *sb, const char *key, int64_t v) {
  if (v) sb_put_int(sb, key, v);
}

/* A total: the parent's value plus the delta. As Java's SnapshotProducer
 * and PyIceberg do, a first snapshot counts from 0, a parent that did not
 * record the total leaves it out (its value is unknown), and so does a
 * result below zero. */
static void sb_total(summary_builder_t *sb, const ice_snapshot_t *parent, const char *key,
                     int64_t added, int64_t removed) {
  int64_t base = 0;
  if (parent) {
    const char *v = ice_snapshot_summary(parent, key);
    if (!v) return;
    char *end;
    base = strtoll(v, &end, 10);
    if (end == v || *end) return;
  }
  int64_t total = base + added - removed;
  if (total < 0) return;
  sb_put_int(sb, key, total);
}

/* The operation name Java gives the same change: OverwriteFiles is
 * "append" when it only adds data, "delete" when it only removes (a row
 * filter counts as removing), "overwrite" otherwise; RowDelta is "append"
 * for data alone, "delete" for delete files alone. */
static const char *operation_of(const ice_commit_state_t *st) {
  const ice_commit_delta_t *d = &st->d;
  const ice_change_t *c = st->c;
  bool adds_data = d->added_data_files > 0;
  bool adds_deletes = d->added_delete_files > 0;
  bool removes = d->deleted_data_files > 0 || d->removed_delete_files > 0 || c->nremove > 0 ||
                 c->filter != NULL;
  switch (c->kind) {
    case ICE_CHANGE_APPEND: return "append";
    case ICE_CHANGE_REWRITE: return "replace";
    case ICE_CHANGE_DELETE: return adds_data || adds_deletes ? "overwrite" : "delete";
    case ICE_CHANGE_OVERWRITE:
      if (adds_data && !adds_deletes && !removes) return "append";
      if (removes && !adds_data && !adds_deletes) return "delete";
      return "overwrite";
    case ICE_CHANGE_ROW_DELTA:
      if (adds_data && !adds_deletes && !removes) return "append";
      if (adds_deletes && !adds_data) return "delete";
      return "overwrite";
  }
  return "overwrite";
}

static bool reserved_summary_key(const char *k) {
  static const char *const prefixes[] = {"added-", "deleted-", "removed-", "total-"};
  if (strcmp(k, "operation") == 0 || strcmp(k, "changed-partition-count") == 0) return true;
  for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
    if (strncmp(k, prefixes[i], strlen(prefixes[i])) == 0) return true;
  return false;
}

static void build_summary(ice_commit_state_t *st, ice_kv_t **out, uint32_t *n) {
  summary_builder_t sb = {.a = st->a};
  const ice_commit_delta_t *d = &st->d;
  sb_put(&sb, "operation", operation_of(st));
  sb_put_nonzero(&sb, "added-data-files", d->added_data_files);
  sb_put_nonzero(&sb, "deleted-data-files", d->deleted_data_files);
  sb_put_nonzero(&sb, "added-delete-files", d->added_delete_files);
  sb_put_nonzero(&sb, "added-position-delete-files", d->added_pos_files);
  sb_put_nonzero(&sb, "added-equality-delete-files", d->added_eq_files);
  sb_put_nonzero(&sb, "added-dvs", d->added_dvs);
  sb_put_nonzero(&sb, "removed-delete-files", d->removed_delete_files);
  sb_put_nonzero(&sb, "removed-position-delete-files", d->removed_pos_files);
  sb_put_nonzero(&sb, "removed-equality-delete-files", d->removed_eq_files);
  sb_put_nonzero(&sb, "removed-dvs", d->removed_dvs);
  sb_put_nonzero(&sb, "added-records", d->added_records);
  sb_put_nonzero(&sb, "deleted-records", d->deleted_records);
  sb_put_nonzero(&sb, "added-files-size", d->added_size);
  sb_put_nonzero(&sb, "removed-files-size", d->removed_size);
  sb_put_nonzero(&sb, "added-position-deletes", d->added_pos_deletes);
  sb_put_nonzero(&sb, "removed-position-deletes", d->removed_pos_deletes);
  sb_put_nonzero(&sb, "added-equality-deletes", d->added_eq_deletes);
  sb_put_nonzero(&sb, "removed-equality-deletes", d->removed_eq_deletes);
  sb_put_int(&sb, "changed-partition-count", (int64_t)st->partitions.n);
  const ice_snapshot_t *p = st->head;
  sb_total(&sb, p, "total-records", d->added_records, d->deleted_records);
  sb_total(&sb, p, "total-files-size", d->added_size, d->removed_size);
  sb_total(&sb, p, "total-data-files", d->added_data_files, d->deleted_data_files);
  sb_total(&sb, p, "total-delete-files", d->added_delete_files, d->removed_delete_files);
  sb_total(&sb, p, "total-position-deletes", d->added_pos_deletes, d->removed_pos_deletes);
  sb_total(&sb, p, "total-equality-deletes", d->added_eq_deletes, d->removed_eq_deletes);
  /* The caller's keys (floe.job-id, ...) never replace the counters or the
   * operation: readers compute the next totals from them. */
  for (uint32_t i = 0; i < st->c->nsummary; i++)
    if (!reserved_summary_key(st->c->summary[i].key))
      sb_put(&sb, st->c->summary[i].key, st->c->summary[i].value);
  *out = sb.kv;
  *n = sb.n;
}

/* Counts a file into the delta as added (sign 1) or removed (sign -1). */
void ice__commit_count_file(ice_commit_state_t *st, const ice_data_file_t *f, int sign) {
  ice_commit_delta_t *d = &st->d;
  if (f->content == ICE_CONTENT_DATA) {
    if (sign > 0) {
      d->added_data_files++;
      d->added_records += f->record_count;
      d->added_size += f->file_size;
    } else {
      d->deleted_data_files++;
      d->deleted_records += f->record_count;
      d->removed_size += f->file_size;
    }
  } else {
    bool pos = f->content == ICE_CONTENT_POSITION_DELETES;
    /* As Java's SnapshotSummary: a deletion vector counts as a DV, not as
     * a position delete file; its positions are position deletes. */
    bool dv = pos && (f->content_offset >= 0 || (f->format && strcmp(f->format, "PUFFIN") == 0));
    if (sign > 0) {
      d->added_delete_files++;
      d->added_size += f->file_size;
      if (dv) {
        d->added_dvs++;
        d->added_pos_deletes += f->record_count;
      } else if (pos) {
        d->added_pos_files++;
        d->added_pos_deletes += f->record_count;
      } else {
        d->added_eq_files++;
        d->added_eq_deletes += f->record_count;
      }
    } else {
      d->removed_delete_files++;
      d->removed_size += f->file_size;
      if (dv) {
        d->removed_dvs++;
        d->removed_pos_deletes += f->record_count;
      } else if (pos) {
        d->removed_pos_files++;
        d->removed_pos_deletes += f->record_count;
      } else {
        d->removed_eq_files++;
        d->removed_eq_deletes += f->record_count;
      }
    }
  }
  /* changed-partition-count: distinct partition paths touched, as Java
   * counts them (an unpartitioned file's path is "", one partition). */
  fl_buf_t key;
  fl_buf_init(&key);
  fl_buf_printf(&key, "p:");
  const ice_spec_t *spec = ice_meta_spec_by_id(st->t->meta, f->spec_id);
  const ty_type_t *pt = NULL;
  fl_err_t ignored;
  if (spec && f->npartition &&
      ice_spec_partition_type(st->a, spec, ice_meta_schema(st->t->meta), &pt, &ignored) == FL_OK)
    ice_spec_partition_path(spec, pt, f->partition, &key);
  fl_strset_add(&st->partitions, key.data, key.len);
  fl_buf_free(&key);
}

/* ---- one attempt ---- */

static const ice_snapshot_t *branch_head(const ice_meta_t *m, const char *branch) {
  const ice_ref_t *ref = ice_meta_ref(m, branch);
  if (ref) return ice_meta_snapshot(m, ref->snapshot_id);
  if (strcmp(branch, "main") == 0) return ice_meta_current_snapshot(m);
  return NULL;
}

static int attempt(ice_commit_state_t *st, ice_meta_t **out_meta, fl_err_t *err) {
  ice_table_t *t = st->t;
  const ice_meta_t *base = t->meta;
  const char *branch = st->c->branch ? st->c->branch : "main";
  const ice_ref_t *ref = ice_meta_ref(base, branch);
  if (ref && ref->is_tag)
    return fl_err_set(err, FL_EINVALID, "%s: '%s' is a tag; commits go to branches", t->ident,
                      branch);
  if (!ref && strcmp(branch, "main") != 0)
    return fl_err_set(err, FL_ENOTFOUND, "%s: no branch '%s' (create it first)", t->ident, branch);
  st->head = branch_head(base, branch);
  do {
    st->snapshot_id = ice_new_snapshot_id();
  } while (ice_meta_snapshot(base, st->snapshot_id));
  st->seq = base->format_version >= 2 ? base->last_sequence_number + 1 : 0;
  memset(&st->d, 0, sizeof st->d);
  fl_strset_free(&st->partitions);
  fl_strset_init(&st->partitions);
  st->nmfs = 0;

  int rc = ice__commit_build_manifests(st, err);
  if (rc) return rc;

  char uuid[37];
  ice_new_uuid(uuid);
  const char *list_path =
      fl_arena_sprintf(st->a, "%s/snap-%" PRId64 "-%d-%s.avro", ice__metadata_dir(base, st->a),
                       st->snapshot_id, st->attempt + 1, uuid);
  st->list_path = list_path;
  ice__commit_note_written(st, list_path);
  /* v3 row lineage: the snapshot's rows get ids from the table's
   * next-row-id on, through the manifests' first_row_id. */
  int64_t first_row_id = -1, added_rows = -1;
  if (base->format_version >= 3) first_row_id = base->next_row_id >= 0 ? base->next_row_id : 0;
  ice_avro_codec_t codec;
  if ((rc = ice_manifest_codec(base, &codec, err))) return rc;
  rc = ice_manifest_list_write(t->fs, ice_table_path(t, st->a, list_path), base->format_version,
                               st->snapshot_id, st->head ? st->head->snapshot_id : -1, st->seq,
                               first_row_id, st->mfs, st->nmfs, &added_rows, &codec, err);
  if (rc) return rc;
  if (first_row_id < 0) added_rows = -1;

  ice_snapshot_t snap = {
      .snapshot_id = st->snapshot_id,
      .parent_id = st->head ? st->head->snapshot_id : -1,
      .sequence_number = st->seq,
      .timestamp_ms = ice__now_ms(),
      .manifest_list = list_path,
      .schema_id = base->current_schema_id,
      .first_row_id = first_row_id,
      .added_rows = added_rows,
  };
  if (st->head && snap.timestamp_ms <= st->head->timestamp_ms)
    snap.timestamp_ms = st->head->timestamp_ms + 1; /* the snapshot log must not go back in time */
  build_summary(st, &snap.summary, &snap.nsummary);

  ice_meta_t *m = ice_meta_clone(base);
  if (m->format_version >= 3 && m->next_row_id < 0) m->next_row_id = 0; /* required in v3 */
  rc = ice_meta_add_snapshot(m, &snap, err);
  if (rc == FL_OK) {
    ice_ref_t nref = ref ? *ref
                         : (ice_ref_t){.name = "main",
                                       .max_ref_age_ms = -1,
                                       .max_snapshot_age_ms = -1,
                                       .min_snapshots_to_keep = -1};
    nref.name = branch;
    nref.snapshot_id = st->snapshot_id;
    rc = ice_meta_set_ref(m, &nref, snap.timestamp_ms, err);
  }
  if (rc) {
    ice_meta_free(m);
    return rc;
  }
  *out_meta = m;
  return FL_OK;
}

int ice_commit(ice_table_t *t, const ice_change_t *c, ice_commit_result_t *res, fl_err_t *err) {
  if (!t->committer.swap)
    return fl_err_set(err, FL_EINVALID, "%s: table is read-only (no catalog)", t->ident);
  ice_commit_state_t st = {.t = t, .c = c, .a = fl_arena_new(0)};
  fl_strset_init(&st.partitions);
  ice_retry_t retry = ice_table_retry(t);
  int64_t started = ice__now_ms();
  const char *branch = c->branch ? c->branch : "main";
  {
    const ice_snapshot_t *h = branch_head(t->meta, branch);
    st.base_snapshot_id =
        c->base_snapshot_id >= 0 ? c->base_snapshot_id : (h ? h->snapshot_id : -1);
  }
  int rc;
  for (st.attempt = 0;; st.attempt++) {
    /* Also on the first attempt: the change may have been computed
     * against an older snapshot than the head it now lands on. */
    rc = ice__commit_validate(&st, err);
    if (rc) break;
    ice_meta_t *m = NULL;
    rc = attempt(&st, &m, err);
    if (rc == FL_OK) rc = ice_table_commit_meta(t, m, err);
    if (rc == FL_OK) break;
    cleanup_written(&st);
    if (rc != FL_ECONFLICT || !err->retriable) break;
    if (st.attempt >= retry.num_retries || ice__now_ms() - started > retry.total_timeout_ms) {
      fl_err_prefix(err, "%s: gave up after %d attempts: ", t->ident, st.attempt + 1);
      break;
    }
    ice_retry_sleep(&retry, st.attempt);
    fl_err_t rerr;
    int rrc = ice_table_refresh(t, &rerr);
    if (rrc) {
      *err = rerr;
      rc = rrc;
      break;
    }
  }
  /* The next commit through this handle builds on this list: keep it.
   * v2 only: v1 lists read back with other defaults, and v3 lists are
   * given first row ids as they are written, so those are read back. */
  if (rc == FL_OK && t->meta->format_version == 2)
    ice__list_cache_put(t, st.list_path, st.snapshot_id, st.seq, st.mfs, st.nmfs);
  if (rc == FL_OK && res) {
    res->snapshot_id = st.snapshot_id;
    res->sequence_number = st.seq;
    res->attempts = st.attempt + 1;
  }
  fl_strset_free(&st.partitions);
  fl_arena_free(st.a);
  return rc;
}

int ice_commit_meta_edit(ice_table_t *t, ice_meta_edit_fn fn, void *arg, fl_err_t *err) {
  if (!t->committer.swap)
    return fl_err_set(err, FL_EINVALID, "%s: table is read-only (no catalog)", t->ident);
  ice_retry_t retry = ice_table_retry(t);
  for (int attempt_no = 0;; attempt_no++) {
    ice_meta_t *m = ice_meta_clone(t->meta);
    int rc = fn(m, arg, err);
    if (rc) {
      ice_meta_free(m);
      return rc;
    }
    rc = ice_table_commit_meta(t, m, err);
    if (rc == FL_OK) return FL_OK;
    if (rc != FL_ECONFLICT || !err->retriable || attempt_no >= retry.num_retries) return rc;
    ice_retry_sleep(&retry, attempt_no);
    rc = ice_table_refresh(t, err);
    if (rc) return rc;
  }
}
