/*
 * ice_meta_int.h - helpers shared by the metadata JSON reader, writer and
 * updater (layer 5, iceberg, private).
 *
 * The getters read one key of a JSON object and check its type and range;
 * errors are FL_ECORRUPT and name the source and the key path, as in
 * "v3.metadata.json: snapshots[2].timestamp-ms: expected an integer".
 */
#ifndef FL_ICEBERG_ICE_META_INT_H
#define FL_ICEBERG_ICE_META_INT_H

#include <jansson.h>

#include "iceberg/ice_meta.h"

/* Where a value sits: the source's name and the path of its object. */
typedef struct ice_jpath {
  const char *what; /* "metadata.json" */
  const char *path; /* "snapshots[2]" or "" for the top level */
} ice_jpath_t;

/*
 * Reads obj[key] as an integer in [lo, hi]. Absent (or null) keys give
 * FL_ECORRUPT when required, else leave *out unchanged and set *found
 * (may be NULL) to false.
 */
int ice__jint(const json_t *obj, const char *key, ice_jpath_t at, bool required, int64_t lo,
              int64_t hi, int64_t *out, bool *found, fl_err_t *err);
/* Reads obj[key] as a string copied into a; *out stays NULL when absent. */
int ice__jstr(fl_arena_t *a, const json_t *obj, const char *key, ice_jpath_t at, bool required,
              const char **out, fl_err_t *err);
/* Reads obj[key] as a boolean. */
int ice__jbool(const json_t *obj, const char *key, ice_jpath_t at, bool required, bool *out,
               fl_err_t *err);
/* obj[key] when it is an array (NULL when absent; FL_ECORRUPT for other types). */
int ice__jarray(const json_t *obj, const char *key, ice_jpath_t at, bool required,
                const json_t **out, fl_err_t *err);
/* Records "what: path.key: msg" as FL_ECORRUPT. */
int ice__jfail(fl_err_t *err, ice_jpath_t at, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* "path[i]" (or "key[i]" at the top level) in a. */
const char *ice__jitem(fl_arena_t *a, ice_jpath_t at, const char *key, size_t i);

/* Deep copies into another arena. */
ty_schema_t *ice__schema_copy(fl_arena_t *a, const ty_schema_t *s);
const ty_type_t *ice__type_copy(fl_arena_t *a, const ty_type_t *t);
ice_spec_t *ice__spec_copy(fl_arena_t *a, const ice_spec_t *s);
ice_sort_order_t *ice__sort_order_copy(fl_arena_t *a, const ice_sort_order_t *o);
void ice__snapshot_copy(fl_arena_t *a, ice_snapshot_t *dst, const ice_snapshot_t *src);

/* Schemas equal in everything Java compares (ids, names, types,
 * nullability, docs, defaults, identifier fields), schema ids aside. */
bool ice__schema_same(const ty_schema_t *a, const ty_schema_t *b);

/* Hands the caller's reference to j over to the arena, which drops it at
 * reset; returns j. */
json_t *ice__arena_json(fl_arena_t *a, json_t *j);

#endif
