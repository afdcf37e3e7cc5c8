/*
 * ex_join.h - what the join operators share: join types, the residual
 * condition callback and the description of a join's two inputs and its
 * output columns (layer 8, exec). The hash join (op_hash_join.h) and the
 * nested loop join (op_nested_loop_join.h) take this description.
 *
 * Both joins have a probe side and a build side. The build side is
 * consumed completely first and held (in a hash table, or buffered); the
 * probe side then streams through. Each join exposes the consumer its
 * build-side producer pushes to as a second operator (see
 * ex_hash_join_build_side), so that both inputs are ordinary producers of
 * ex_operator.h and a pipeline driver runs the build pipeline to its
 * finish() before it starts the probe pipeline.
 *
 * Join types follow SQL with the probe side on the left:
 *   INNER      pairs whose keys are equal and whose residual is true
 *   LEFT       INNER plus every probe row without such a pair, with the
 *              build columns NULL
 *   RIGHT      INNER plus every build row without a pair, probe columns NULL
 *   FULL       LEFT and RIGHT together
 *   SEMI       each probe row that has at least one pair, once
 *              (EXISTS, IN); probe columns only
 *   ANTI       each probe row that has no pair (NOT EXISTS); probe columns
 *   NULL_AWARE_ANTI  `probe_key NOT IN (build keys)` with SQL's three-valued
 *              logic: no rows at all when a build key is NULL; a NULL probe
 *              key is dropped unless the build side is empty; otherwise
 *              as ANTI. One key column, no residual.
 *   RIGHT_SEMI each build row that has at least one pair, once; build
 *              columns only. SEMI with the inputs' roles swapped, so that
 *              the smaller side is the one held (EXISTS over a large
 *              subquery: the outer rows are built, the subquery probes)
 *   RIGHT_ANTI each build row that has no pair; build columns only
 */
#ifndef FL_EXEC_EX_JOIN_H
#define FL_EXEC_EX_JOIN_H

#include <stdint.h>

#include "base/error.h"
#include "types/vec.h"

typedef enum ex_join_type {
  EX_JOIN_INNER,
  EX_JOIN_LEFT,
  EX_JOIN_RIGHT,
  EX_JOIN_FULL,
  EX_JOIN_SEMI,
  EX_JOIN_ANTI,
  EX_JOIN_NULL_AWARE_ANTI,
  EX_JOIN_RIGHT_SEMI,
  EX_JOIN_RIGHT_ANTI,
  EX_JOIN_TYPE_COUNT
} ex_join_type_t;

const char *ex_join_type_name(ex_join_type_t t);

/*
 * The residual (non-equi) condition. `pairs` is a batch of candidate
 * joined rows without a selection: every column of the probe schema, then
 * every column of the build schema (so build column j is column
 * probe_ncols + j). The callback writes the indexes of the rows for which
 * the condition is TRUE, ascending, to sel (room for pairs->nrows) and
 * their number to *nsel; rows where it is FALSE or NULL are left out. It
 * returns 0 or an error code with err filled (the join stops and passes
 * the error up). arg is the callback's own state (the compiled
 * expression).
 */
typedef int (*ex_join_filter_fn)(void *arg, const ty_batch_t *pairs, uint32_t *sel, uint32_t *nsel,
                                 fl_err_t *err);

/* The two inputs of a join and the columns it outputs. */
typedef struct ex_join_spec {
  ex_join_type_t type;
  const ty_schema_t *probe_schema;
  const ty_schema_t *build_schema;
  /* Output: probe columns probe_out[0..nprobe_out), then build columns
   * build_out[0..nbuild_out) (none for SEMI and the ANTI types; no
   * probe columns for RIGHT_SEMI and RIGHT_ANTI). */
  const uint32_t *probe_out;
  uint32_t nprobe_out;
  const uint32_t *build_out;
  uint32_t nbuild_out;
  ex_join_filter_fn filter; /* residual condition; NULL: none */
  void *filter_arg;
} ex_join_spec_t;

#endif
