/*
 * pq_reader.c - opens a Parquet file and yields batches (layer 4,
 * format/parquet).
 *
 * Opening reads the 8-byte tail and the footer (nothing else), rejects
 * encrypted files, and maps the schema. Each row group is then either
 * skipped (its statistics rule out the predicate) or started: every
 * projected leaf reads its column chunk with one positioned read, and
 * batches are cut from the chunks' pages until the row group's rows are
 * used up. Only one row group's projected chunks are in memory at a time.
 */
#include "format/parquet/pq_reader.h"

#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "format/parquet/pq_int.h"

#define PQ_MAX_FOOTER (256u << 20)

struct pq_reader {
  io_reader_t *io;
  fl_arena_t *a;
  pq_file_meta_t meta;
  pq_schema_t *ps;
  ty_schema_t *proj;
  uint64_t footer_start;
  /* Projected top-level nodes and the leaves under them. */
  uint32_t ntop;
  const pq_node_t **top;
  bool *need_leaf;
  pq_col_t **cols;      /* by leaf index; NULL when not needed */
  ty_vec_t **leaf_vecs; /* by leaf index */
  ty_batch_t *batch;
  pq_read_opts_t opts;
  uint32_t rg; /* next row group to start */
  bool in_rg;
  int64_t rg_pos;  /* next row of the current row group */
  int64_t *ranges; /* row ranges of the current row group to read */
  uint32_t nranges, range_i;
  pq_read_stats_t stats;
};

static void mark_leaves(pq_reader_t *r, const pq_node_t *n, ty_vec_t *v) {
  if (n->kind == PQ_NODE_LEAF) {
    r->need_leaf[n->leaf] = true;
    r->leaf_vecs[n->leaf] = v;
    return;
  }
  for (uint32_t i = 0; i < n->nchildren; i++) mark_leaves(r, n->children[i], v->children[i]);
}

void pq_reader_close(pq_reader_t *r) {
  if (!r) return;
  if (r->cols)
    for (uint32_t i = 0; i < r->ps->nleaves; i++) pq__col_free(r->cols[i]);
  fl_free(r->cols);
  fl_free(r->ranges);
  fl_free(r->leaf_vecs);
  fl_free(r->need_leaf);
  ty_batch_free(r->batch);
  if (r->io) r->io->close(r->io);
  fl_arena_free(r->a);
  fl_free(r);
}

static int check_row_groups(pq_reader_t *r, fl_err_t *err) {
  const pq_file_meta_t *m = &r->meta;
  for (uint32_t g = 0; g < m->nrow_groups; g++) {
    const pq_row_group_t *rg = &m->row_groups[g];
    if (rg->ncolumns != r->ps->nleaves)
      return fl_err_set(err, FL_ECORRUPT, "row group %u has %u columns, the schema %u", g,
                        rg->ncolumns, r->ps->nleaves);
    for (uint32_t c = 0; c < rg->ncolumns; c++) {
      const pq_column_chunk_t *cc = &rg->columns[c];
      if (cc->is_encrypted)
        return fl_err_set(err, FL_EUNSUPPORTED,
                          "column '%s' is encrypted (Parquet modular encryption)",
                          r->ps->leaves[c]->path);
      if (!cc->has_meta_data)
        return fl_err_set(err, FL_ECORRUPT, "row group %u column %u has no metadata", g, c);
      if (cc->file_path && cc->file_path[0])
        return fl_err_set(err, FL_EUNSUPPORTED, "column '%s' lives in another file (%s)",
                          r->ps->leaves[c]->path, cc->file_path);
      if (cc->meta_data.type != r->ps->leaves[c]->ptype)
        return fl_err_set(err, FL_ECORRUPT, "row group %u column '%s' is %s, the schema says %s", g,
                          r->ps->leaves[c]->path, pq_type_name(cc->meta_data.type),
                          pq_type_name(r->ps->leaves[c]->ptype));
    }
  }
  return FL_OK;
}

static int open_io(io_reader_t *io, const pq_read_opts_t *opts, pq_reader_t **out, fl_err_t *err) {
  pq_reader_t *r = fl_calloc(1, sizeof *r);
  r->io = io;
  r->a = fl_arena_new(0);
  if (opts) r->opts = *opts;
  uint8_t tail[8], head[4];
  uint8_t *foot = NULL;
  int rc;
  uint64_t size = io->size;
  if (size < 12) {
    rc = fl_err_set(err, FL_ECORRUPT, "not a parquet file: %llu bytes", (unsigned long long)size);
    goto err;
  }
  if ((rc = io->read_at(io, size - 8, tail, 8, err)) || (rc = io->read_at(io, 0, head, 4, err)))
    goto err;
  if (memcmp(tail + 4, "PARE", 4) == 0 || memcmp(head, "PARE", 4) == 0) {
    rc = fl_err_set(err, FL_EUNSUPPORTED,
                    "file is encrypted (PARE magic): Parquet modular encryption is not supported");
    goto err;
  }
  if (memcmp(tail + 4, "PAR1", 4) != 0 || memcmp(head, "PAR1", 4) != 0) {
    rc = fl_err_set(err, FL_ECORRUPT, "not a parquet file: missing PAR1 magic");
    goto err;
  }
  uint32_t flen = fl_load_le32(tail);
  if (flen > size - 12 || flen > PQ_MAX_FOOTER) {
    rc = fl_err_set(err, FL_ECORRUPT, "footer length %u does not fit the file of %llu bytes", flen,
                    (unsigned long long)size);
    goto err;
  }
  r->footer_start = size - 8 - flen;
  foot = fl_try_malloc(flen ? flen : 1);
  if (!foot) {
    rc = fl_err_set(err, FL_ENOMEM, "footer of %u bytes", flen);
    goto err;
  }
  if ((rc = io->read_at(io, r->footer_start, foot, flen, err))) goto err;
  if ((rc = pq_meta_read_file(r->a, foot, flen, &r->meta, err))) goto err;
  fl_free(foot);
  foot = NULL;
  if (r->meta.has_encryption_algorithm) {
    rc = fl_err_set(err, FL_EUNSUPPORTED,
                    "file has encrypted columns (plaintext footer): Parquet modular encryption is "
                    "not supported");
    goto err;
  }
  if ((rc = pq__schema_from_file(r->a, &r->meta, &r->ps, err))) goto err;
  if ((rc = check_row_groups(r, err))) goto err;

  /* Projection. */
  const pq_node_t *root = &r->ps->root;
  if (r->opts.field_ids) {
    /* Output columns: the top-level ancestors of the ids, in the order of
     * their first mention, each pruned to the fields asked for. */
    r->top = fl_arena_alloc(r->a, (r->opts.nfield_ids ? r->opts.nfield_ids : 1) * sizeof *r->top);
    r->ntop = 0;
    for (uint32_t i = 0; i < r->opts.nfield_ids; i++) {
      int32_t id = r->opts.field_ids[i];
      const pq_node_t *hit = NULL;
      for (uint32_t k = 0; k < root->nchildren && !hit; k++)
        if (pq__node_has_id(root->children[k], id)) hit = root->children[k];
      if (!hit) {
        rc = fl_err_set(err, FL_ENOTFOUND, "no field with id %d in the file", id);
        goto err;
      }
      bool dup = false;
      for (uint32_t k = 0; k < r->ntop; k++) dup |= r->top[k]->field.id == hit->field.id;
      if (dup) continue;
      r->top[r->ntop++] = pq__node_prune(r->a, hit, r->opts.field_ids, r->opts.nfield_ids);
    }
  } else {
    r->ntop = root->nchildren;
    r->top = fl_arena_alloc(r->a, (r->ntop ? r->ntop : 1) * sizeof *r->top);
    for (uint32_t i = 0; i < r->ntop; i++) r->top[i] = root->children[i];
  }
  ty_field_t *f = fl_arena_alloc(r->a, (r->ntop ? r->ntop : 1) * sizeof *f);
  for (uint32_t i = 0; i < r->ntop; i++) f[i] = r->top[i]->field;
  r->proj = ty_schema_new(r->a, 0, f, r->ntop);
  r->batch = ty_batch_new(r->proj, TY_BATCH_ROWS);
  uint32_t nl = r->ps->nleaves;
  r->need_leaf = fl_calloc(nl ? nl : 1, sizeof *r->need_leaf);
  r->leaf_vecs = fl_calloc(nl ? nl : 1, sizeof *r->leaf_vecs);
  r->cols = fl_calloc(nl ? nl : 1, sizeof *r->cols);
  for (uint32_t i = 0; i < r->ntop; i++) mark_leaves(r, r->top[i], r->batch->cols[i]);
  for (uint32_t i = 0; i < nl; i++)
    if (r->need_leaf[i]) r->cols[i] = pq__col_new(r->ps->leaves[i], &r->stats);
  *out = r;
  return FL_OK;
err:
  fl_free(foot);
  pq_reader_close(r);
  return rc;
}

int pq_reader_open_io(io_reader_t *io, const pq_read_opts_t *opts, pq_reader_t **out,
                      fl_err_t *err) {
  const char *path = io->path ? io->path : "(input)";
  char name[512];
  snprintf(name, sizeof name, "%s", path);
  int rc = open_io(io, opts, out, err);
  if (rc) return fl_err_prefix(err, "reading %s: ", name);
  return FL_OK;
}

int pq_reader_open(io_fs_t *fs, const char *path, const pq_read_opts_t *opts, pq_reader_t **out,
                   fl_err_t *err) {
  io_reader_t *io;
  int rc = fs->open_read(fs, path, &io, err);
  if (rc) return rc;
  rc = open_io(io, opts, out, err);
  if (rc) return fl_err_prefix(err, "reading %s: ", path);
  return FL_OK;
}

static int start_row_group(pq_reader_t *r, uint32_t g, fl_err_t *err) {
  const pq_row_group_t *rg = &r->meta.row_groups[g];
  for (uint32_t i = 0; i < r->ps->nleaves; i++) {
    if (!r->cols[i]) continue;
    const pq_column_chunk_t *cc = &rg->columns[i];
    const pq_column_meta_t *md = &cc->meta_data;
    int64_t start = md->data_page_offset;
    if (md->has_dictionary_page_offset && md->dictionary_page_offset > 0 &&
        md->dictionary_page_offset < start)
      start = md->dictionary_page_offset;
    int64_t len = md->total_compressed_size;
    if (start < 4 || len < 0 || (uint64_t)start > r->footer_start ||
        (uint64_t)len > r->footer_start - (uint64_t)start)
      return fl_err_set(
          err, FL_ECORRUPT,
          "row group %u column '%s': chunk at %lld of %lld bytes lies outside the data", g,
          r->ps->leaves[i]->path, (long long)start, (long long)len);
    int rc = pq__col_start(r->cols[i], r->io, cc, g, (uint64_t)start, (uint64_t)len, err);
    if (rc) return rc;
  }
  return FL_OK;
}

int pq_reader_next(pq_reader_t *r, ty_batch_t **out, fl_err_t *err) {
  int rc;
  *out = NULL;
  while (!r->in_rg || r->range_i >= r->nranges) {
    if (r->in_rg) {
      /* Rows after the last range were never read. */
      const pq_row_group_t *cur = &r->meta.row_groups[r->rg - 1];
      r->stats.rows_skipped += (uint64_t)(cur->num_rows - r->rg_pos);
    }
    r->in_rg = false;
    if (r->rg >= r->meta.nrow_groups || (r->opts.rg_end && r->rg >= r->opts.rg_end)) return FL_OK;
    uint32_t g = r->rg++;
    const pq_row_group_t *rg = &r->meta.row_groups[g];
    if (rg->num_rows == 0) continue;
    if (g < r->opts.rg_begin) {
      r->stats.rows_skipped += (uint64_t)rg->num_rows;
      continue;
    }
    if (r->opts.npred && pq__prune_row_group(r->ps, rg, r->opts.pred, r->opts.npred)) {
      r->stats.row_groups_skipped++;
      r->stats.rows_skipped += (uint64_t)rg->num_rows;
      continue;
    }
    fl_free(r->ranges);
    r->ranges = NULL;
    if (r->opts.npred) {
      pq__prune_pages(r->io, r->ps, rg, r->opts.pred, r->opts.npred, &r->ranges, &r->nranges);
    } else {
      r->ranges = fl_malloc(2 * sizeof(int64_t));
      r->ranges[0] = 0;
      r->ranges[1] = rg->num_rows;
      r->nranges = 1;
    }
    r->range_i = 0;
    r->rg_pos = 0;
    if (r->nranges == 0) {
      r->stats.row_groups_skipped++;
      r->stats.rows_skipped += (uint64_t)rg->num_rows;
      continue;
    }
    if ((rc = start_row_group(r, g, err))) goto fail;
    r->stats.row_groups_read++;
    r->in_rg = true;
  }
  int64_t lo = r->ranges[2 * r->range_i], hi = r->ranges[2 * r->range_i + 1];
  if (lo < r->rg_pos) lo = r->rg_pos;
  uint32_t skip = (uint32_t)(lo - r->rg_pos);
  uint32_t n = hi - lo < TY_BATCH_ROWS ? (uint32_t)(hi - lo) : TY_BATCH_ROWS;
  ty_batch_reset(r->batch);
  for (uint32_t i = 0; i < r->ps->nleaves; i++) {
    if (!r->cols[i]) continue;
    if ((rc = pq__col_read(r->cols[i], skip, n, r->leaf_vecs[i], err))) goto fail;
  }
  for (uint32_t i = 0; i < r->ntop; i++) {
    ty_vec_t *v = r->batch->cols[i];
    if ((rc = pq__assemble(r->top[i], v, r->cols, n, err))) goto fail;
    if (v->len != n) {
      rc = fl_err_set(err, FL_ECORRUPT, "column '%s' yields %u rows, expected %u",
                      r->top[i]->field.name, v->len, n);
      goto fail;
    }
  }
  r->batch->nrows = n;
  r->rg_pos = lo + n;
  if (r->rg_pos >= hi) r->range_i++;
  r->stats.rows_read += n;
  r->stats.rows_skipped += skip;
  *out = r->batch;
  return FL_OK;
fail:
  r->in_rg = false;
  r->rg = r->meta.nrow_groups;
  return fl_err_prefix(err, "reading %s: ", r->io->path ? r->io->path : "(input)");
}

const ty_schema_t *pq_reader_schema(const pq_reader_t *r) { return r->proj; }
const ty_schema_t *pq_reader_file_schema(const pq_reader_t *r) { return r->ps->schema; }
const pq_file_meta_t *pq_reader_file_meta(const pq_reader_t *r) { return &r->meta; }
const pq_read_stats_t *pq_reader_stats(const pq_reader_t *r) { return &r->stats; }
