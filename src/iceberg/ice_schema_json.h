/*
 * ice_schema_json.h - Iceberg schemas as JSON (layer 5, iceberg).
 *
 * The spec's JSON form of schemas and types: {"type": "struct",
 * "schema-id": 0, "identifier-field-ids": [..], "fields": [{"id", "name",
 * "required", "type", "doc", "initial-default", "write-default"}]},
 * primitive types as strings ("decimal(9,2)", "fixed[16]",
 * "timestamptz_ns"), lists {"type": "list", "element-id",
 * "element-required", "element"}, maps {"type": "map", "key-id", "key",
 * "value-id", "value-required", "value"}. Used by table metadata and by
 * the "schema" key of manifests and Parquet footers ("iceberg.schema").
 */
#ifndef FL_ICEBERG_ICE_SCHEMA_JSON_H
#define FL_ICEBERG_ICE_SCHEMA_JSON_H

#include <jansson.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "types/type.h"

/* Builds a JSON object (new reference) for a schema / a type. */
json_t *ice_schema_to_json(const ty_schema_t *s);
json_t *ice_type_to_json(const ty_type_t *t);

/* Appends the schema as compact JSON text. */
void ice_schema_to_text(const ty_schema_t *s, fl_buf_t *out);

/*
 * Parses a schema object (what names it for messages, e.g.
 * "metadata.json: schemas[1]"). Unknown primitive type names are
 * FL_EUNSUPPORTED naming the field; duplicate field ids FL_ECORRUPT.
 * Identifier field ids must name required primitive fields.
 */
int ice_schema_from_json(fl_arena_t *a, const json_t *j, const char *what, ty_schema_t **out,
                         fl_err_t *err);
int ice_type_from_json(fl_arena_t *a, const json_t *j, const char *what, const ty_type_t **out,
                       fl_err_t *err);
/* Parses schema JSON text (manifest and Parquet footer keys). */
int ice_schema_from_text(fl_arena_t *a, const char *text, size_t len, const char *what,
                         ty_schema_t **out, fl_err_t *err);

#endif
