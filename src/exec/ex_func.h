/*
 * ex_func.h - the scalar function library: registry, overload resolution
 * and vectorized kernels (layer 8, exec).
 *
 * This is floe's one function engine; the batch SQL engine and the
 * streaming runtime both evaluate expressions through it.
 *
 * Set-up: the binder calls ex_func_resolve(name, argument types) once per
 * call site. Resolution follows Trino: among the overloads of that name and
 * arity, the one reachable with the cheapest implicit coercions wins
 * (tinyint -> smallint -> integer -> bigint -> decimal -> real -> double,
 * date -> timestamp -> timestamp with time zone, NULL to anything; a
 * varchar never becomes a number implicitly). It returns the overload, the
 * types each argument must be CAST to before the call (the binder inserts
 * those casts; kernels only ever see the coerced types) and the result
 * type, with decimal precision and scale computed by Trino's rules.
 *
 * The binder (layer 7) cannot include this header; it declares its own
 * resolver interface (a function pointer and a context) and the engine
 * installs an adapter at set-up that converts the binder's types to
 * ex_type_t, calls ex_func_resolve, and hands back the result type, the
 * cast each argument needs and r.fn as an opaque handle for the planner.
 *
 * Run time: ex_call_init binds a resolved overload to a call object that
 * may hold compiled state (a LIKE pattern, a regular expression), and
 * ex_call_eval runs the kernel over a batch: one tight loop over the
 * vectors, never a dispatch per row. Arguments are vectors of nrows
 * values; a vector whose len is 1 is a constant broadcast to every row.
 * Only the rows in the selection (ascending indexes, or all rows when sel
 * is NULL) are computed, and only they can raise errors; the output has
 * nrows slots and the others are null. Row errors (overflow, division by
 * zero, a bad cast) stop the batch with FL_EINVALID and a message in
 * Trino's words.
 */
#ifndef FL_EXEC_EX_FUNC_H
#define FL_EXEC_EX_FUNC_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/error.h"
#include "base/tz.h"
#include "exec/ex_type.h"
#include "types/vec.h"

#define EX_MAX_ARGS 32

/*
 * Per-query evaluation context: the arena for compiled patterns and
 * other call state, the statement's start time (current_date, now() are
 * evaluated once per query) and the session time zone.
 */
/* Results of a query's uncorrelated subqueries (ex_expr.c). */
typedef struct ex_subq_cache ex_subq_cache_t;

typedef struct ex_ctx {
  fl_arena_t *arena;
  int64_t now_us;      /* statement start, micros since the epoch */
  const fl_tz_t *zone; /* session time zone */
  uint64_t random_state;
  /* Shared by the lane contexts of one query, so that each subquery runs
   * once however many lanes compile it, on the query's thread count; NULL:
   * every compile runs it, on the default thread count. */
  ex_subq_cache_t *subqs;
} ex_ctx_t;

/* now_us < 0 takes the wall clock; zone NULL is UTC. */
void ex_ctx_init(ex_ctx_t *ctx, fl_arena_t *arena, const fl_tz_t *zone, int64_t now_us);

/* The rows a kernel computes: all nrows when sel is NULL, else sel[0..n). */
typedef struct ex_rows {
  uint32_t nrows;
  const uint32_t *sel;
  uint32_t n;
} ex_rows_t;

typedef struct ex_call ex_call_t;
typedef struct ex_func ex_func_t;

/* A vectorized kernel. out is a vector of the call's result storage type;
 * the kernel resets and fills it with rows->nrows slots. */
typedef int (*ex_kernel_fn)(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args,
                            const ex_rows_t *rows, ty_vec_t *out, fl_err_t *err);
/* Computes the result type from the (coerced) argument types. */
typedef int (*ex_ret_fn)(const ex_type_t *args, size_t n, ex_type_t *ret, fl_err_t *err);
/* Prepares per-call state (compiles constant patterns) at ex_call_init. */
typedef int (*ex_init_fn)(ex_ctx_t *ctx, ex_call_t *call, fl_err_t *err);

enum {
  EX_FN_VARIADIC = 1 << 0,   /* the last parameter repeats */
  EX_FN_NULLS = 1 << 1,      /* the kernel sees null arguments (default: null in, null out) */
  EX_FN_UNIFY = 1 << 2,      /* all ANY parameters take the arguments' common super type */
  EX_FN_KEEP_DEC = 1 << 3,   /* with UNIFY: decimal arguments keep their own precision/scale */
  EX_FN_NONDET = 1 << 4,     /* not deterministic (random) */
  EX_FN_ORDERABLE = 1 << 5,  /* ANY must be an orderable type */
  EX_FN_COMPARABLE = 1 << 6, /* with ORDERABLE: comparable is enough (maps: = and <>) */
  EX_FN_ELEM = 1 << 7,       /* ANY parameters take the element type of the array argument 0 */
};

/* One overload. */
struct ex_func {
  const char *name;
  uint32_t nparams;
  ex_type_t params[4]; /* decimal with precision 0: any decimal; EX_ANY: a type variable */
  ex_type_t ret;       /* used when ret_fn is NULL; EX_ANY: the unified type */
  ex_ret_fn ret_fn;
  ex_kernel_fn kernel;
  ex_init_fn init;
  uint32_t flags;
  int op;          /* operation code the kernel reads (which comparison, which unit) */
  const char *doc; /* one line for docs and errors */
};

typedef struct ex_resolved {
  const ex_func_t *fn;
  uint32_t nargs;
  ex_type_t args[EX_MAX_ARGS]; /* what each argument is cast to */
  ex_type_t ret;
} ex_resolved_t;

/*
 * Resolves name(args) (name case-insensitive; operators are named "+",
 * "=", "and", "cast" is not a function: see ex_cast.h). Fails with
 * FL_ENOTFOUND naming the function and the argument types when nothing
 * matches.
 */
int ex_func_resolve(const char *name, const ex_type_t *args, size_t n, ex_resolved_t *out,
                    fl_err_t *err);
/* Whether any overload carries this name. */
bool ex_func_exists(const char *name);
/* Every registered overload, for docs and tests. */
const ex_func_t *ex_func_list(size_t *n);

struct ex_call {
  ex_resolved_t r;
  void *state;                   /* kernel state, allocated in ctx->arena */
  const ty_vec_t *const *consts; /* at init: constant argument values (len 1) or NULL */
  const ty_type_t *out_storage;
  uint8_t *scratch; /* per-batch working memory of the kernel (ex__scratch) */
  size_t scratch_cap;
};

/*
 * Binds a resolved overload into a call. consts may give, per argument, a
 * one-row vector when that argument is a constant (or NULL entries), so
 * that patterns compile once. The call lives in ctx->arena.
 */
int ex_call_init(ex_ctx_t *ctx, const ex_resolved_t *r, const ty_vec_t *const *consts,
                 ex_call_t **out, fl_err_t *err);
/* Runs the call's kernel over one batch of argument vectors. */
int ex_call_eval(ex_ctx_t *ctx, ex_call_t *call, const ty_vec_t *const *args, const ex_rows_t *rows,
                 ty_vec_t *out, fl_err_t *err);

/*
 * Convenience for tools and tests: resolves, casts the arguments to the
 * coerced types (as a binder would), binds and evaluates in one go. *out
 * is a new vector the caller frees (ty_vec_free), set even when the
 * evaluation fails after set-up; *out_type is the final result type.
 */
int ex_func_eval(ex_ctx_t *ctx, const char *name, const ex_type_t *types,
                 const ty_vec_t *const *args, size_t nargs, const ex_rows_t *rows, ty_vec_t **out,
                 ex_type_t *out_type, fl_err_t *err);

#endif
