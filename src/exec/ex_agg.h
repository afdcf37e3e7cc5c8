/*
 * ex_agg.h - aggregate functions: one interface for every aggregate, and
 * binding an aggregate by its SQL name and argument type (layer 8, exec).
 *
 * An aggregate keeps one fixed-size state per group. The operator owns the
 * states, laid out row-wise (all aggregates of one group side by side,
 * `stride` bytes per group), and hands them to the function's kernels:
 *
 *   init         prepares a state for a new group
 *   update       folds rows[0..n) of the argument vector into the states
 *                of groups gids[0..n) (gids[k] belongs to rows[k]); the
 *                rows are the selection, so FILTER (WHERE) is a shorter
 *                row list; one call per batch, not per row
 *   combine      folds one state into another (parallel partial
 *                aggregation, merging spilled partial states)
 *   finalize     appends the result of n consecutive states to a vector
 *   serialize /  turn a state into bytes and back, for spill files and
 *   deserialize  streaming checkpoints; deserialize checks what it reads
 *   destroy      frees what a state holds on the heap (NULL if nothing)
 *
 * Semantics follow Trino: aggregates other than count(*) and array_agg
 * ignore NULL arguments; over no non-NULL rows count is 0 and the others
 * are NULL. sum of integers is bigint and overflow is an error; sum of
 * decimal(p, s) is decimal(38, s); avg of integers and doubles is double,
 * of real is real, of decimal(p, s) is decimal(p, s) rounded half up.
 * Accuracy of the approximate aggregates is documented in their files and
 * in docs/engine.md.
 */
#ifndef FL_EXEC_EX_AGG_H
#define FL_EXEC_EX_AGG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "types/vec.h"

typedef struct ex_agg ex_agg_t;

typedef struct ex_agg_fn {
  const char *name;
  size_t state_size;
  size_t state_align;
  bool keeps_nulls; /* NULL arguments are values (array_agg) */
  void (*init)(ex_agg_t *a, uint8_t *st);
  int (*update)(ex_agg_t *a, uint8_t *states, size_t stride, const uint32_t *gids,
                const ty_vec_t *arg, const uint32_t *rows, uint32_t n, fl_err_t *err);
  int (*combine)(ex_agg_t *a, uint8_t *dst, const uint8_t *src, fl_err_t *err);
  int (*finalize)(ex_agg_t *a, const uint8_t *states, size_t stride, uint32_t n, ty_vec_t *out,
                  fl_err_t *err);
  void (*serialize)(ex_agg_t *a, const uint8_t *st, fl_buf_t *out);
  int (*deserialize)(ex_agg_t *a, uint8_t *st, fl_rd_t *r, fl_err_t *err);
  void (*destroy)(ex_agg_t *a, uint8_t *st);
} ex_agg_fn_t;

/* A bound aggregate: the function, its types and constant parameters. It
 * also counts the heap its states hold, so each operator (and each worker
 * thread) binds its own. */
struct ex_agg {
  const ex_agg_fn_t *fn;
  const char *name;     /* as called: "stddev", "every" */
  const ty_type_t *arg; /* NULL for count(*) */
  const ty_type_t *out; /* result type */
  bool distinct;
  double param;       /* approx_distinct: max standard error;
                         approx_percentile: the percentile */
  uint32_t variant;   /* function-specific (population or sample...) */
  ex_agg_t *inner;    /* DISTINCT: the aggregate over distinct values */
  int64_t heap_bytes; /* heap held by this aggregate's states */
  fl_arena_t *arena;  /* where bind allocated (types) */
};

/*
 * Binds `name` (lower case; count with arg NULL is count(*)) to an argument
 * type. nparams constant parameters follow the argument: approx_distinct
 * takes an optional maximum standard error (default 0.023, as Trino),
 * approx_percentile a required percentile in [0, 1]. DISTINCT wraps the
 * aggregate so that it sees each distinct argument value once. Types are
 * allocated in the arena. Errors name the function and the argument type.
 */
int ex_agg_bind(fl_arena_t *arena, const char *name, const ty_type_t *arg, bool distinct,
                const double *params, uint32_t nparams, ex_agg_t **out, fl_err_t *err);

/* Helpers for the kernels and operators. */
static inline size_t ex_agg_align(size_t off, size_t align) {
  return (off + align - 1) & ~(align - 1);
}
/* A hash of row i of v that does not depend on the vector (NULL has one). */
uint64_t ex_agg__value_hash(const ty_vec_t *v, uint32_t i);
/* The decimal result type decimal(p, s) (shared instances for common s). */
const ty_type_t *ex_agg__decimal(ex_agg_t *a, int precision, int scale);

/* The loop every update kernel runs: st is the state of row r's group;
 * NULL arguments are skipped. Needs a, states, stride, gids, arg, rows, n. */
#define EX_AGG_EACH_ROW(body)                            \
  do {                                                   \
    bool ex_nulls_ = arg && arg->null_count != 0;        \
    for (uint32_t k = 0; k < n; k++) {                   \
      uint32_t r = rows[k];                              \
      if (ex_nulls_ && ty_vec_is_null(arg, r)) continue; \
      uint8_t *st = states + (size_t)gids[k] * stride;   \
      body                                               \
    }                                                    \
  } while (0)

/* Binders of the function families (ex_agg_*.c); each sets fn and out. */
int ex__agg_bind_count(ex_agg_t *a, fl_err_t *err);
int ex__agg_bind_sum(ex_agg_t *a, fl_err_t *err);
int ex__agg_bind_avg(ex_agg_t *a, fl_err_t *err);
int ex__agg_bind_min(ex_agg_t *a, fl_err_t *err);
int ex__agg_bind_max(ex_agg_t *a, fl_err_t *err);
int ex__agg_bind_any(ex_agg_t *a, fl_err_t *err);
int ex__agg_bind_bool_and(ex_agg_t *a, fl_err_t *err);
int ex__agg_bind_bool_or(ex_agg_t *a, fl_err_t *err);
int ex__agg_bind_variance(ex_agg_t *a, fl_err_t *err);
int ex__agg_bind_approx_distinct(ex_agg_t *a, fl_err_t *err);
int ex__agg_bind_approx_percentile(ex_agg_t *a, fl_err_t *err);
int ex__agg_bind_array_agg(ex_agg_t *a, fl_err_t *err);
int ex__agg_wrap_distinct(ex_agg_t *outer, ex_agg_t *inner, fl_err_t *err);

/* Variants of the variance family (ex_agg_t.variant). */
enum { EX_VAR_SAMP, EX_VAR_POP, EX_STDDEV_SAMP, EX_STDDEV_POP };

#endif
