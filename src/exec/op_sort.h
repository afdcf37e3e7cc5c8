/*
 * op_sort.h - ORDER BY (op_sort.c) and top-N, ORDER BY with LIMIT
 * (op_topn.c) (layer 8, exec).
 */
#ifndef FL_EXEC_OP_SORT_H
#define FL_EXEC_OP_SORT_H

#include "exec/ex_operator.h"
#include "exec/ex_sortkey.h"

typedef struct ex_sort_stats {
  uint64_t rows;
  uint32_t runs;         /* sorted runs spilled to disk */
  uint32_t merge_passes; /* intermediate merges (more runs than the fan-in) */
} ex_sort_stats_t;

/*
 * A stable sort of all input rows by the keys, emitted at finish. Beyond
 * the memory budget it writes sorted runs to disk and merges them. The
 * output schema is the input schema.
 */
int ex_sort_new(ex_opctx_t *ctx, const ty_schema_t *schema, const ex_sort_key_t *keys,
                uint32_t nkeys, ex_op_t *next, ex_op_t **out, fl_err_t *err);
const ex_sort_stats_t *ex_sort_stats(const ex_op_t *op);

/*
 * The first `limit` rows (after skipping `offset`) of the input in key
 * order, ties in input order, like a stable sort followed by OFFSET/LIMIT.
 * It holds offset + limit rows; more than the budget allows is FL_ELIMIT.
 */
int ex_topn_new(ex_opctx_t *ctx, const ty_schema_t *schema, const ex_sort_key_t *keys,
                uint32_t nkeys, uint64_t limit, uint64_t offset, ex_op_t *next, ex_op_t **out,
                fl_err_t *err);

#endif
