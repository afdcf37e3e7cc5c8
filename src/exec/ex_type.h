/*
 * ex_type.h - SQL types as the executor sees them (layer 8, exec).
 *
 * Trino's type system is richer than Iceberg's: tinyint and smallint,
 * intervals, the type of a bare NULL (unknown). An ex_type_t names the SQL
 * type; its values live in ordinary column vectors (types/vec.h) in the
 * physical layout of a storage kind:
 *   unknown, boolean        TY_BOOLEAN (unknown: every row null)
 *   tinyint, smallint, integer   TY_INT (int32_t; the SQL type bounds the range)
 *   bigint                  TY_LONG
 *   real, double            TY_FLOAT, TY_DOUBLE
 *   decimal(p,s)            TY_DECIMAL (128-bit unscaled)
 *   varchar, varbinary      TY_STRING, TY_BINARY
 *   date, time              TY_DATE (days), TY_TIME (micros since midnight)
 *   timestamp(6)            TY_TIMESTAMP (micros since the epoch, no zone)
 *   timestamp(6) with time zone  TY_TIMESTAMPTZ (micros since the epoch, UTC)
 *   timestamp(9) [with time zone]  TY_TIMESTAMP_NS, TY_TIMESTAMPTZ_NS (nanos)
 *   interval day to second  TY_LONG (micros)
 *   interval year to month  TY_INT (months)
 *   uuid                    TY_UUID
 *   array(T)                TY_LIST of T's storage
 *   map(K, V)               TY_MAP of K's and V's storage
 *   row(a A, ...)           TY_STRUCT of the fields' storage
 *   json                    TY_STRING (the JSON text)
 * timestamp(3) with time zone (precision 3) keeps micros too; only its
 * text shows milliseconds.
 * A timestamp with time zone stores the instant only; the zone its fields
 * and text are shown in is a property of the type (set by AT TIME ZONE
 * with a constant zone), or the session zone when the type has none.
 */
#ifndef FL_EXEC_EX_TYPE_H
#define FL_EXEC_EX_TYPE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/tz.h"
#include "types/type.h"

#define EX_TYPE_MAP(X)                       \
  X(UNKNOWN, "unknown")                      \
  X(BOOLEAN, "boolean")                      \
  X(TINYINT, "tinyint")                      \
  X(SMALLINT, "smallint")                    \
  X(INTEGER, "integer")                      \
  X(BIGINT, "bigint")                        \
  X(REAL, "real")                            \
  X(DOUBLE, "double")                        \
  X(DECIMAL, "decimal")                      \
  X(VARCHAR, "varchar")                      \
  X(VARBINARY, "varbinary")                  \
  X(DATE, "date")                            \
  X(TIME, "time")                            \
  X(TIMESTAMP, "timestamp")                  \
  X(TIMESTAMPTZ, "timestamp with time zone") \
  X(INTERVAL_DS, "interval day to second")   \
  X(INTERVAL_YM, "interval year to month")   \
  X(UUID, "uuid")                            \
  X(ARRAY, "array")                          \
  X(MAP, "map")                              \
  X(ROW, "row")                              \
  X(JSON, "json")                            \
  X(ANY, "T") /* signatures only: a type variable */

typedef enum ex_tkind {
#define EX__TKIND_ENUM(name, text) EX_##name,
  EX_TYPE_MAP(EX__TKIND_ENUM)
#undef EX__TKIND_ENUM
      EX_TKIND_COUNT
} ex_tkind_t;

struct ex_tfield;
typedef struct ex_type {
  ex_tkind_t kind;
  uint8_t precision;              /* decimal 1..38 (0 in a signature: any decimal); timestamp with
                                     time zone: fractional digits shown, 3 or 6 (0: 6) */
  uint8_t scale;                  /* decimal */
  const fl_tz_t *zone;            /* timestamp with time zone: display zone, NULL = session's */
  const struct ex_type *elem;     /* array element type; map value type */
  const struct ex_type *key;      /* map key type */
  const struct ex_tfield *fields; /* row fields */
  uint32_t nfields;
} ex_type_t;

typedef struct ex_tfield {
  const char *name;
  ex_type_t type;
} ex_tfield_t;

/* A type of a kind with no parameters; decimal(p,s); array(varchar). */
static inline ex_type_t ex_type(ex_tkind_t k) { return (ex_type_t){.kind = k}; }
static inline ex_type_t ex_type_decimal(int p, int s) {
  return (ex_type_t){.kind = EX_DECIMAL, .precision = (uint8_t)p, .scale = (uint8_t)s};
}
ex_type_t ex_type_array_varchar(void);

const char *ex_tkind_name(ex_tkind_t k);
/* Appends Trino's spelling: "decimal(10,2)", "array(varchar)",
 * "timestamp(6) with time zone". */
void ex_type_format(const ex_type_t *t, fl_buf_t *out);
/* The same into a static-per-thread buffer, for messages. */
const char *ex_type_str(const ex_type_t *t);
bool ex_type_equal(const ex_type_t *a, const ex_type_t *b);

static inline bool ex_type_is_integral(ex_tkind_t k) {
  return k == EX_TINYINT || k == EX_SMALLINT || k == EX_INTEGER || k == EX_BIGINT;
}
static inline bool ex_type_is_numeric(ex_tkind_t k) {
  return ex_type_is_integral(k) || k == EX_REAL || k == EX_DOUBLE || k == EX_DECIMAL;
}
/* Smallest and largest values of an integral kind. */
int64_t ex_type_int_min(ex_tkind_t k);
int64_t ex_type_int_max(ex_tkind_t k);
/* Decimal precision that holds every value of an integral kind (3, 5, 10, 19). */
int ex_type_int_digits(ex_tkind_t k);

/*
 * The storage type a vector of this SQL type has. Decimal and array types
 * are built in the arena; the others are shared instances.
 */
const ty_type_t *ex_type_storage(const ex_type_t *t, fl_arena_t *a);
/* The SQL type of an Iceberg column type (int -> integer, string ->
 * varchar, fixed -> varbinary, list -> array). Fails for types SQL
 * execution does not cover yet (maps, structs, nanosecond timestamps). */
int ex_type_from_storage(const ty_type_t *t, ex_type_t *out, fl_err_t *err);
/* The same for every Iceberg type: struct -> row, list -> array, map ->
 * map at any depth (their element types built in a), fixed and binary ->
 * varbinary, timestamp_ns -> timestamp(9), timestamptz_ns ->
 * timestamp(9) with time zone. With a NULL arena as ex_type_from_storage. */
int ex_type_from_storage_in(const ty_type_t *t, fl_arena_t *a, ex_type_t *out, fl_err_t *err);
/* Whether a storage type holds fixed(L) anywhere: such vectors are read
 * as varbinary through ex_vec_adapt (exec/ex_vec.h). */
bool ex_type_has_fixed(const ty_type_t *t);

/* Whether values of t can be compared with = and <> (all but json,
 * recursively), and ordered (neither json nor maps, recursively). */
bool ex_type_comparable(const ex_type_t *t);
bool ex_type_orderable(const ex_type_t *t);

/* Timestamps: precision 9 keeps nanoseconds (Iceberg v3's timestamp_ns),
 * anything else micros. */
static inline bool ex_type_is_nanos(const ex_type_t *t) {
  return (t->kind == EX_TIMESTAMP || t->kind == EX_TIMESTAMPTZ) && t->precision == 9;
}
/* Fractional digits a timestamp type shows: 3, 6 or 9. */
static inline int ex_type_ts_digits(const ex_type_t *t) {
  return t->precision == 3 || t->precision == 9 ? t->precision : 6;
}

/*
 * Trino's common super type of a and b (what both coerce to implicitly):
 * unknown to anything, along tinyint -> smallint -> integer -> bigint ->
 * decimal -> real -> double, decimals widened to hold both, date ->
 * timestamp -> timestamp with time zone. Returns false when there is none
 * (varchar and integer).
 */
bool ex_type_common(const ex_type_t *a, const ex_type_t *b, ex_type_t *out);
/*
 * Whether a coerces implicitly to b, and at what cost (0 = same type;
 * larger = further along the chains above). -1 when it does not.
 */
int ex_type_coercion_cost(const ex_type_t *from, const ex_type_t *to);

#endif
