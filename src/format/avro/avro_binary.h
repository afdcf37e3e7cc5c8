/*
 * avro_binary.h - Avro's binary encoding for a generic value tree (layer 4,
 * format/avro).
 *
 * av_value_t is one value of any Avro type, allocated in an arena. It is
 * the slow, flexible path used for manifests and manifest lists: build a
 * record by field name, encode it against its schema; decode a record and
 * read its fields by name. Column data takes the batch path instead
 * (avro_batch.c), which never builds these trees.
 *
 * Values carry their own type; encoding against a union picks the first
 * branch whose type (and, for named types, schema) matches the value, or
 * the branch a decoded value came from.
 */
#ifndef FL_FORMAT_AVRO_BINARY_H
#define FL_FORMAT_AVRO_BINARY_H

#include "base/arena.h"
#include "base/buf.h"
#include "format/avro/avro_schema.h"

typedef struct av_value av_value_t;
struct av_value {
  av_type_t type;           /* never AV_UNION */
  const av_schema_t *schema; /* the (branch) schema, NULL for values built by hand */
  int32_t branch;           /* union branch it was decoded from, -1 if none */
  union {
    bool b;
    int32_t i;  /* int, enum symbol index */
    int64_t l;
    float f;
    double d;
    struct {
      const uint8_t *p;
      size_t n;
    } bytes; /* bytes, string, fixed */
    struct {
      uint32_t n;
      av_value_t **items;
    } array;
    struct {
      uint32_t n;
      const char **keys;
      size_t *key_lens;
      av_value_t **values;
    } map;
    struct {
      uint32_t n;
      av_value_t **fields; /* in the record schema's field order */
    } record;
  } u;
};

/* Constructors (arena-allocated; byte contents are copied). */
av_value_t *av_value_null(fl_arena_t *a);
av_value_t *av_value_bool(fl_arena_t *a, bool b);
av_value_t *av_value_int(fl_arena_t *a, int32_t v);
av_value_t *av_value_long(fl_arena_t *a, int64_t v);
av_value_t *av_value_float(fl_arena_t *a, float v);
av_value_t *av_value_double(fl_arena_t *a, double v);
av_value_t *av_value_bytes(fl_arena_t *a, const void *p, size_t n);
av_value_t *av_value_string(fl_arena_t *a, const char *s);
av_value_t *av_value_stringn(fl_arena_t *a, const void *p, size_t n);
/* fixed and enum values know their schema. */
av_value_t *av_value_fixed(fl_arena_t *a, const av_schema_t *fixed, const void *p);
av_value_t *av_value_enum(fl_arena_t *a, const av_schema_t *en, int32_t symbol);
/* A record of the given (record) schema with every field null. */
av_value_t *av_value_record(fl_arena_t *a, const av_schema_t *rec);
/* Empty array / map with room for cap entries (grown on append). */
av_value_t *av_value_array(fl_arena_t *a, uint32_t cap);
av_value_t *av_value_map(fl_arena_t *a, uint32_t cap);
void av_array_append(fl_arena_t *a, av_value_t *arr, av_value_t *item);
void av_map_put(fl_arena_t *a, av_value_t *map, const char *key, av_value_t *v);

/* Sets a record field by name; FL_EINVALID if there is no such field. */
int av_record_set(av_value_t *rec, const char *field, av_value_t *v, fl_err_t *err);
/* Reads a field by name: NULL when the record has no such field. */
const av_value_t *av_record_get(const av_value_t *rec, const char *field);

/* Encodes v against schema s, appending to out. FL_EINVALID when the value
 * does not fit the schema (the message names the field path). */
int av_encode(const av_schema_t *s, const av_value_t *v, fl_buf_t *out, fl_err_t *err);

/*
 * Decodes one value of schema s from r into arena a (byte values point into
 * r's memory, which must outlive them). Every length and count is checked
 * against the bytes left; errors are FL_ECORRUPT naming r->what and the
 * offset.
 */
int av_decode(fl_arena_t *a, const av_schema_t *s, fl_rd_t *r, av_value_t **out, fl_err_t *err);

/* Skips one value of schema s. */
int av_skip(const av_schema_t *s, fl_rd_t *r, fl_err_t *err);

/* Primitive readers used by the batch decoder too. */
int av__read_long(fl_rd_t *r, int64_t *out, fl_err_t *err);
int av__read_int(fl_rd_t *r, int32_t *out, fl_err_t *err);
/* Reads a length-prefixed byte string. */
int av__read_bytes(fl_rd_t *r, const uint8_t **p, size_t *n, fl_err_t *err);
/*
 * Reads an array or map block header: *count items follow (0: the end).
 * A negative count on the wire is turned positive after its byte size is
 * read (and checked against the bytes left). min_item_bytes (>0) bounds
 * the count by the bytes left.
 */
int av__read_block_count(fl_rd_t *r, size_t min_item_bytes, uint64_t *count, fl_err_t *err);

#endif
