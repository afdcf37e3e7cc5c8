/*
 * avro_iceberg.h - Iceberg schemas to Avro schemas and back (layer 4,
 * format/avro), as Iceberg's AvroSchemaUtil converts them.
 *
 * Iceberg -> Avro: optional fields are ["null", T] with "default": null;
 * every field carries "field-id"; nested records are named r<field-id>;
 * lists are arrays with "element-id"; maps with string keys are Avro maps
 * with "key-id" and "value-id"; other maps are arrays of {key, value}
 * records named k<key-id>_v<value-id> with "logicalType": "map"; decimals
 * are fixed of minimal size; uuid is fixed 16; timestamps are longs with
 * timestamp-micros / timestamp-nanos and "adjust-to-utc".
 *
 * Avro -> Iceberg (for files written by anyone): enums become strings,
 * ["null", T] an optional T, unions of several non-null branches a struct
 * {tag int, field0.., fieldN} as Iceberg reads them; field ids come from
 * the attributes when present, else fresh ids above the largest one used.
 */
#ifndef FL_FORMAT_AVRO_ICEBERG_H
#define FL_FORMAT_AVRO_ICEBERG_H

#include "format/avro/avro_schema.h"
#include "types/type.h"

/* Builds the Avro record schema of an Iceberg schema; root_name names the
 * top record ("manifest_entry", "table"). */
int av_schema_from_iceberg(fl_arena_t *a, const ty_schema_t *s, const char *root_name,
                           av_schema_t **out, fl_err_t *err);
/* Same for one type (a struct becomes a record named root_name). */
int av_type_from_iceberg(fl_arena_t *a, const ty_type_t *t, bool required, const char *root_name,
                         av_schema_t **out, fl_err_t *err);

/*
 * Converts an Avro record schema to an Iceberg schema. FL_EUNSUPPORTED when
 * the top level is not a record or a type has no Iceberg equivalent (a
 * bare null, recursion).
 */
int av_schema_to_iceberg(fl_arena_t *a, const av_schema_t *s, ty_schema_t **out, fl_err_t *err);

/* Whether an Avro array schema is Iceberg's encoding of a map with non-string
 * keys (an array of {key, value} records). */
bool av_is_kv_array(const av_schema_t *s);

/* Whether a ty_type_t came from an Avro multi-branch union: such structs
 * are marked by the leading "tag" field the converter adds. */
bool av_is_union_struct(const av_schema_t *s);

#endif
