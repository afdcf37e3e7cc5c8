/*
 * avro_schema.h - the Avro schema model (layer 4, format/avro).
 *
 * An av_schema_t tree mirrors an Avro schema JSON document: primitives,
 * records, enums, arrays, maps, unions and fixed, with logical types
 * recognised and every attribute floe does not interpret (Iceberg's
 * "field-id", "element-id", "key-id", "value-id", "adjust-to-utc", or
 * anything else) kept verbatim as JSON text so that a parse and write
 * round trip loses nothing. Named types referenced again by name are the
 * same node (recursive records form a cycle). Everything lives in the
 * arena passed to the parser.
 */
#ifndef FL_FORMAT_AVRO_SCHEMA_H
#define FL_FORMAT_AVRO_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"

typedef enum av_type {
  AV_NULL,
  AV_BOOLEAN,
  AV_INT,
  AV_LONG,
  AV_FLOAT,
  AV_DOUBLE,
  AV_BYTES,
  AV_STRING,
  AV_RECORD,
  AV_ENUM,
  AV_ARRAY,
  AV_MAP,
  AV_UNION,
  AV_FIXED
} av_type_t;

typedef enum av_logical {
  AV_LT_NONE,
  AV_LT_DECIMAL,
  AV_LT_UUID,
  AV_LT_DATE,
  AV_LT_TIME_MILLIS,
  AV_LT_TIME_MICROS,
  AV_LT_TIMESTAMP_MILLIS,
  AV_LT_TIMESTAMP_MICROS,
  AV_LT_TIMESTAMP_NANOS,
  AV_LT_LOCAL_TIMESTAMP_MILLIS,
  AV_LT_LOCAL_TIMESTAMP_MICROS,
  AV_LT_LOCAL_TIMESTAMP_NANOS,
  AV_LT_OTHER /* a logicalType floe does not interpret (e.g. Iceberg's "map") */
} av_logical_t;

/* One uninterpreted attribute: key and its value as compact JSON text. */
typedef struct av_attr {
  const char *key;
  const char *json;
} av_attr_t;

typedef struct av_schema av_schema_t;

typedef struct av_field {
  const char *name;
  const char *doc;          /* NULL when absent */
  av_schema_t *type;
  const char *default_json; /* the "default" as JSON text; NULL when absent */
  const char *order;        /* "ascending" etc.; NULL when absent */
  uint32_t naliases;
  const char **aliases;
  uint32_t nattrs;
  av_attr_t *attrs;
} av_field_t;

struct av_schema {
  av_type_t type;
  av_logical_t logical;
  const char *logical_name; /* the logicalType text as written, NULL if none */
  int32_t precision, scale; /* decimal */
  /* Named types (record, enum, fixed). */
  const char *name;     /* simple name */
  const char *nspace;   /* namespace, NULL or "" when none */
  const char *fullname; /* nspace.name */
  const char *doc;
  uint32_t naliases;
  const char **aliases;
  /* record */
  uint32_t nfields;
  av_field_t *fields;
  /* enum */
  uint32_t nsymbols;
  const char **symbols;
  const char *enum_default; /* NULL when absent */
  /* fixed */
  int32_t size;
  /* array items, map values */
  av_schema_t *items;
  /* union */
  uint32_t nbranches;
  av_schema_t **branches;
  /* Attributes kept verbatim. */
  uint32_t nattrs;
  av_attr_t *attrs;
};

/*
 * Parses Avro schema JSON text (len bytes) into a tree in arena a. Errors
 * (FL_EPARSE) name the path inside the schema ("fields[2].type.items").
 */
int av_schema_parse(fl_arena_t *a, const char *text, size_t len, av_schema_t **out, fl_err_t *err);

/* Appends the schema as compact JSON text; named types are written in full
 * once and by full name afterwards. */
void av_schema_write(const av_schema_t *s, fl_buf_t *out);

/* Same, as a NUL-terminated string in the arena. */
char *av_schema_to_json(fl_arena_t *a, const av_schema_t *s);

/* Builders for code that makes schemas (all in arena a). */
av_schema_t *av_schema_new(fl_arena_t *a, av_type_t t);
/* Adds an attribute (value as JSON text) to a schema or a field. */
void av_schema_add_attr(fl_arena_t *a, av_schema_t *s, const char *key, const char *json);
void av_field_add_attr(fl_arena_t *a, av_field_t *f, const char *key, const char *json);
/* Sets a named type's name from a possibly dotted full name. */
void av_schema_set_name(fl_arena_t *a, av_schema_t *s, const char *name, const char *nspace);

/* Looks up an attribute's JSON text; NULL when absent. */
const char *av_schema_attr(const av_schema_t *s, const char *key);
const char *av_field_attr(const av_field_t *f, const char *key);
/* Reads an integer attribute; false when absent or not an integer. */
bool av_attr_int(const char *json, int64_t *out);

/* Index of a record field by name, or -1. */
int av_record_field_index(const av_schema_t *rec, const char *name);

/* For a union of null and one other branch: the other branch's index and
 * the null branch's index; false for any other schema. */
bool av_schema_is_option(const av_schema_t *s, uint32_t *value_branch, uint32_t *null_branch);

/* Smallest number of bytes one value of the schema can encode to (0 for
 * null and for records made only of such fields). */
size_t av_schema_min_bytes(const av_schema_t *s);

const char *av_type_name(av_type_t t);

#endif
