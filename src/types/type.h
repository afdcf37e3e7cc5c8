/*
 * type.h - the type system: every Iceberg type, fields with ids, schemas
 * (layer 3, types).
 *
 * Types and schemas are immutable once built and live in the arena they
 * were created in. A struct, list or map type owns its child fields; a
 * list's only field is its element, a map's two fields are key and value,
 * each with its own Iceberg field id (element-id, key-id, value-id).
 */
#ifndef FL_TYPES_TYPE_H
#define FL_TYPES_TYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"

typedef __int128 fl_i128;

#define TY_KIND_MAP(X)                           \
  X(BOOLEAN, "boolean")                          \
  X(INT, "int")                                  \
  X(LONG, "long")                                \
  X(FLOAT, "float")                              \
  X(DOUBLE, "double")                            \
  X(DECIMAL, "decimal")                          \
  X(DATE, "date")                                \
  X(TIME, "time")                                \
  X(TIMESTAMP, "timestamp")                      \
  X(TIMESTAMPTZ, "timestamptz")                  \
  X(TIMESTAMP_NS, "timestamp_ns")                \
  X(TIMESTAMPTZ_NS, "timestamptz_ns")            \
  X(STRING, "string")                            \
  X(UUID, "uuid")                                \
  X(FIXED, "fixed")                              \
  X(BINARY, "binary")                            \
  X(STRUCT, "struct")                            \
  X(LIST, "list")                                \
  X(MAP, "map")

typedef enum ty_kind {
#define TY__KIND_ENUM(name, text) TY_##name,
  TY_KIND_MAP(TY__KIND_ENUM)
#undef TY__KIND_ENUM
  TY_KIND_COUNT
} ty_kind_t;

typedef struct ty_field ty_field_t;

typedef struct ty_type {
  ty_kind_t kind;
  uint8_t precision; /* decimal: 1..38 */
  uint8_t scale;     /* decimal: 0..precision */
  int32_t length;    /* fixed: bytes per value */
  uint32_t nfields;  /* struct: members; list: 1; map: 2 */
  ty_field_t *fields;
} ty_type_t;

struct ty_field {
  int32_t id;
  const char *name; /* "element", "key", "value" inside lists and maps */
  bool required;
  const ty_type_t *type;
  const char *doc; /* may be NULL */
  /* Iceberg v3 defaults (NULL: none): initial_default is what rows of
   * files written before the field existed read as; write_default what a
   * writer fills in when a row omits the field. */
  const struct ty_value *initial_default;
  const struct ty_value *write_default;
};

typedef struct ty_schema {
  int32_t schema_id;
  ty_type_t root; /* kind TY_STRUCT: the top-level columns */
  uint32_t nidentifiers;
  int32_t *identifier_ids;
} ty_schema_t;

/* Canonical name of a kind ("timestamptz"). */
const char *ty_kind_name(ty_kind_t k);

static inline bool ty_is_nested(const ty_type_t *t) {
  return t->kind == TY_STRUCT || t->kind == TY_LIST || t->kind == TY_MAP;
}

/*
 * Bytes one value takes in a vector's data array: 1 for boolean, 4 for
 * int/date/float, 8 for long/double/time/timestamps, 16 for decimal (always
 * a 128-bit unscaled integer), the fixed length for fixed and uuid, 0 for
 * variable-length and nested types.
 */
size_t ty_value_width(const ty_type_t *t);
static inline bool ty_is_varlen(const ty_type_t *t) {
  return t->kind == TY_STRING || t->kind == TY_BINARY;
}

/* Shared primitive type instances (never freed). */
const ty_type_t *ty_primitive(ty_kind_t k);
const ty_type_t *ty_decimal(fl_arena_t *a, int precision, int scale);
const ty_type_t *ty_fixed(fl_arena_t *a, int32_t length);

/* Structural equality (kinds, parameters, ids, names, nullability). */
bool ty_type_equal(const ty_type_t *a, const ty_type_t *b);

/* Finds a field anywhere in the schema by id; NULL when absent. */
const ty_field_t *ty_schema_find_id(const ty_schema_t *s, int32_t id);
/* Finds a top-level column by name (case-sensitive); returns index or -1. */
int ty_schema_find_name(const ty_schema_t *s, const char *name);
/* The largest field id used anywhere in the schema. */
int32_t ty_schema_highest_id(const ty_schema_t *s);

/*
 * Parses a column list such as
 *   "id long not null, ts timestamptz, price decimal(10,2),
 *    tags list<string>, attrs map<string, long>,
 *    point struct<x: double, y: double not null>, h fixed(16)"
 * into a schema. Field ids are assigned as Iceberg assigns fresh ids:
 * top-level columns 1..n first, then the children of each nested column,
 * level by level. Errors name the offending position.
 */
int ty_schema_parse(fl_arena_t *a, const char *text, ty_schema_t **out, fl_err_t *err);
/* Parses one type ("list<decimal(9,2)>"); nested ids start at *next_id. */
int ty_type_parse(fl_arena_t *a, const char *text, int32_t *next_id, const ty_type_t **out,
                  fl_err_t *err);

/* Appends the type in the syntax ty_type_parse reads. */
void ty_type_format(const ty_type_t *t, fl_buf_t *out);
/* Appends "id long not null, ..." for the schema's columns. */
void ty_schema_format(const ty_schema_t *s, fl_buf_t *out);

/* Builds a schema from already made top-level fields (copied). */
ty_schema_t *ty_schema_new(fl_arena_t *a, int32_t schema_id, const ty_field_t *fields,
                           uint32_t nfields);
/* Builds a struct, list or map type from fields (copied into the arena). */
const ty_type_t *ty_struct_new(fl_arena_t *a, const ty_field_t *fields, uint32_t nfields);
const ty_type_t *ty_list_new(fl_arena_t *a, int32_t element_id, bool element_required,
                             const ty_type_t *element);
const ty_type_t *ty_map_new(fl_arena_t *a, int32_t key_id, const ty_type_t *key,
                            int32_t value_id, bool value_required, const ty_type_t *value);

#endif
