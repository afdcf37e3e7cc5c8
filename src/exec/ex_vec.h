/*
 * ex_vec.h - vector kernels the operators share: gathering rows from one
 * vector into another, copying a batch's live rows, and sizing vectors for
 * memory accounting (layer 8, exec).
 *
 * The gather switches on the type once per call and then loops, so callers
 * that move many rows pay no per-row dispatch.
 */
#ifndef FL_EXEC_EX_VEC_H
#define FL_EXEC_EX_VEC_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "types/vec.h"

/* Appends rows[0..n) of src (same type as dst) to dst, nulls included;
 * rows NULL means rows 0..n-1. */
void ex_vec_gather(ty_vec_t *dst, const ty_vec_t *src, const uint32_t *rows, uint32_t n);
/* Appends row idx[k] of srcs[k] for k in [0, n): a gather whose source
 * vector (all of dst's type) changes from row to row, as when emitting
 * sorted rows held in many batches. Source rows are prefetched ahead. */
void ex_vec_gather_multi(ty_vec_t *dst, const ty_vec_t *const *srcs, const uint32_t *idx,
                         uint32_t n);
/* Appends n nulls. */
void ex_vec_append_nulls(ty_vec_t *dst, uint32_t n);
/* Copies the live rows of src (its selection applied) into dst's columns
 * and seals dst; the column types must match. */
void ex_batch_append_live(ty_batch_t *dst, const ty_batch_t *src);
/*
 * Empties dst and fills it with every row of src, whose type has the same
 * shape except that fixed(L) and binary may stand for each other at any
 * depth (a scan's fixed columns read as varbinary, varbinary values
 * written into fixed columns). A value whose length is not L fails with
 * an error naming both.
 */
int ex_vec_adapt(ty_vec_t *dst, const ty_vec_t *src, fl_err_t *err);
/*
 * Batches headed for a table's data writer: a view of b under the table
 * schema whose columns of another layout (varbinary values for fixed(L)
 * columns, at any depth) are copied into vectors of the schema's types
 * that w owns and reuses. ex_write_adapt_free frees them; a zeroed w is
 * ready to use.
 */
typedef struct ex_write_adapt {
  uint32_t n;
  ty_vec_t **owned;
  ty_vec_t **cols;
} ex_write_adapt_t;
int ex_write_adapt(ex_write_adapt_t *w, const ty_schema_t *schema, const ty_batch_t *b,
                   ty_batch_t *view, fl_err_t *err);
void ex_write_adapt_free(ex_write_adapt_t *w);
/* Heap bytes a vector or batch holds (capacity, not length). */
size_t ex_vec_bytes(const ty_vec_t *v);
size_t ex_batch_bytes(const ty_batch_t *b);

#endif
