/*
 * ice_expr_int.h - helpers shared by the ice_expr_*.c files (layer 5,
 * iceberg): operator algebra, the comparison predicates use, and the
 * scalar three-valued evaluation of one bound predicate on one value.
 */
#ifndef FL_ICEBERG_ICE_EXPR_INT_H
#define FL_ICEBERG_ICE_EXPR_INT_H

#include "iceberg/ice_expr.h"

/* Three-valued truth, ordered so that AND is min, OR is max, NOT is 2 - v. */
enum { ICE__F = 0, ICE__U = 1, ICE__T = 2 };

/* The operator of NOT (x op v): LT <-> GE, IN <-> NOT_IN, ... */
ice_op_t ice__op_negate(ice_op_t op);
/* The operator of (v op x) written as (x op' v): LT <-> GT, LE <-> GE. */
ice_op_t ice__op_flip(ice_op_t op);
/* Whether op takes no literal (IS [NOT] NULL, IS [NOT] NAN). */
bool ice__op_unary(ice_op_t op);
const char *ice__op_text(ice_op_t op);

/*
 * Orders two non-null values of one kind as predicates do: floats
 * numerically with -0 equal to +0 and NaN above everything (callers that
 * need IEEE semantics test NaN themselves), bytes unsigned.
 */
int ice__val_cmp(const ty_value_t *a, const ty_value_t *b);
bool ice__val_is_nan(const ty_value_t *v);

/* Evaluates bound predicate p on one value of its column (SQL logic:
 * comparisons with null are unknown, NaN compares false except with !=). */
int ice__pred_eval_value(const ice_expr_t *p, const ty_value_t *v);

/* Whether string s starts with prefix (bytes). */
bool ice__starts_with(const ty_value_t *s, const ty_value_t *prefix);

/* A fresh bound predicate node copying values into a. */
ice_expr_t *ice__pred_new(fl_arena_t *a, ice_op_t op, int32_t field_id, const ty_type_t *type,
                          const ty_value_t *values, uint32_t n);

/* Sorts values (ice__val_cmp) and removes duplicates in place; returns the new count. */
uint32_t ice__sort_dedup(ty_value_t *v, uint32_t n);

/* Finds a field of a struct type by id anywhere below it through structs only;
 * *path_out (capacity 16) receives the indices from the top. Returns depth or 0. */
int ice__find_struct_path(const ty_type_t *st, int32_t id, uint32_t *path_out, int cap);

#endif
