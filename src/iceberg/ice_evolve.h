/*
 * ice_evolve.h - schema evolution and partition evolution (layer 5, iceberg).
 *
 * A change to a table's schema or partition spec is a list of operations
 * (add, drop, rename, retype, reorder columns; add, drop, rename partition
 * fields) applied together to the table's current schema and default
 * spec, with the reference implementation's rules (Java's SchemaUpdate
 * and BaseUpdatePartitionSpec, which PyIceberg's update_schema() and
 * update_spec() follow):
 *
 *  - Every column name in a schema operation refers to the base schema,
 *    as the reference does: a column renamed earlier in the list is still
 *    found by its old name, a column added earlier can be retyped, made
 *    optional, documented and moved by its new name, but not renamed or
 *    dropped. Adds are applied before moves.
 *  - New columns get ids from last-column-id + 1, in operation order; the
 *    nested fields of an added type get fresh ids after the column's own
 *    (a struct's fields first, then each field's nested type).
 *  - A required column may only be added with a default value, and
 *    defaults need format version 3. Type changes are the allowed
 *    promotions only: int -> long, float -> double, decimal(P,S) ->
 *    decimal(P2,S) with P2 >= P. A column may become optional; it may
 *    become required only when it is added in the same change with a
 *    default.
 *  - Identifier fields must be required primitive fields other than float
 *    and double, reachable through required structs only (not inside a
 *    list, a map or an optional struct); a column that is an identifier
 *    field cannot be dropped unless the identifier fields are set anew in
 *    the same change.
 *  - Partition fields: a field with the same source column and transform
 *    as a field of any earlier spec of a v2+ table gets that field's id
 *    (and name, unless one is given), otherwise last-partition-id + 1.
 *    Removing a field drops it (v2+) or replaces it by a void transform
 *    keeping its id (v1). Adding a field whose source and transform are
 *    already in the spec, or two time transforms (year, month, day, hour)
 *    of one column in one change, is an error.
 *  - When the change is committed, the default partition spec and sort
 *    order must still apply to the new current schema (a column that a
 *    current partition field or sort field uses cannot be dropped, unless
 *    the same change removes that partition field), and no column may take
 *    the name of a partition field of any spec unless it is that field's
 *    source (Java rebinds every spec to the new schema).
 *
 * The schema.name-mapping.default property follows the schema as in Java
 * (new names added beside the old ones, added columns mapped). Not done:
 * per-column properties (write.metadata.metrics.column.*) are not renamed
 * or removed with their columns; there is no union-by-name and no
 * allowIncompatibleChanges.
 *
 * Errors are FL_EINVALID (FL_ENOTFOUND for unknown columns and partition
 * fields) with a message that names the column, partition field or types
 * involved. Operations and their strings live in the caller's arena.
 */
#ifndef FL_ICEBERG_ICE_EVOLVE_H
#define FL_ICEBERG_ICE_EVOLVE_H

#include "base/arena.h"
#include "base/error.h"
#include "iceberg/ice_meta.h"
#include "iceberg/ice_spec.h"
#include "iceberg/ice_table.h"
#include "types/type.h"
#include "types/value.h"

typedef enum ice_evolve_kind {
  /* schema */
  ICE_EV_ADD_COLUMN,     /* parent (NULL: top level), name, type, required, doc, default_value */
  ICE_EV_DROP_COLUMN,    /* name */
  ICE_EV_RENAME_COLUMN,  /* name -> new_name (a name within the same struct) */
  ICE_EV_UPDATE_COLUMN,  /* name, type: a primitive promotion */
  ICE_EV_UPDATE_DOC,     /* name, doc (NULL removes it) */
  ICE_EV_MAKE_OPTIONAL,  /* name */
  ICE_EV_MAKE_REQUIRED,  /* name (only for a column added with a default) */
  ICE_EV_SET_IDENTIFIER, /* names / nnames (none: no identifier fields) */
  ICE_EV_MOVE_FIRST,     /* name */
  ICE_EV_MOVE_BEFORE,    /* name, ref */
  ICE_EV_MOVE_AFTER,     /* name, ref */
  /* partition spec */
  ICE_EV_ADD_PARTITION,    /* term ("hour(ts)", "bucket(16, id)", "id"), name (NULL: default) */
  ICE_EV_DROP_PARTITION,   /* name */
  ICE_EV_RENAME_PARTITION, /* name -> new_name */
} ice_evolve_kind_t;

typedef struct ice_evolve_op {
  ice_evolve_kind_t kind;
  /* Resolve column names ignoring ASCII case (Java's caseSensitive(false)). */
  bool ignore_case;
  const char *name;      /* the column (dotted path) or partition field */
  const char *parent;    /* ICE_EV_ADD_COLUMN: the struct to add to (dotted path) */
  const char *new_name;  /* renames */
  const char *ref;       /* moves before / after: the other column */
  const char *term;      /* ICE_EV_ADD_PARTITION */
  const ty_type_t *type; /* add (field ids in it are ignored), update */
  bool required;         /* ICE_EV_ADD_COLUMN */
  const char *doc;       /* ICE_EV_ADD_COLUMN, ICE_EV_UPDATE_DOC */
  /* ICE_EV_ADD_COLUMN: initial and write default (NULL: none); v3 only. */
  const ty_value_t *default_value;
  const char *const *names; /* ICE_EV_SET_IDENTIFIER: column names */
  uint32_t nnames;
} ice_evolve_op_t;

/* Whether an operation changes the schema (else the partition spec). */
bool ice_evolve_is_schema_op(const ice_evolve_op_t *op);

/*
 * Applies the schema operations of ops (partition operations are
 * skipped) to base, whose table has last-column-id last_column_id and
 * the given format version. *out is the new schema in a (schema id
 * copied from base; the metadata assigns the real one), *new_last_id the
 * highest column id assigned (last_column_id when none).
 */
int ice_schema_evolve(fl_arena_t *a, const ty_schema_t *base, int32_t last_column_id,
                      int format_version, const ice_evolve_op_t *ops, uint32_t n, ty_schema_t **out,
                      int32_t *new_last_id, fl_err_t *err);

/*
 * Applies the partition operations of ops (schema operations skipped) to
 * m's default spec. Column names resolve in schema (NULL: m's current
 * schema); partition field ids are reused from every spec of m (v2+) or
 * counted on from m's last-partition-id. *out, in a, carries the spec id
 * it will have: that of an existing spec with the same fields (source,
 * transform and name) or one above the highest.
 */
int ice_spec_evolve(fl_arena_t *a, const ice_meta_t *m, const ty_schema_t *schema,
                    const ice_evolve_op_t *ops, uint32_t n, ice_spec_t **out, fl_err_t *err);

/*
 * Applies all operations to metadata being edited (a clone): the new
 * schema is added and made current, then the new spec added and made
 * default, then the default spec and sort order are checked against the
 * new schema. This is what a commit does on each attempt. On failure m
 * may be partly changed: discard it.
 */
int ice_evolve_meta(ice_meta_t *m, const ice_evolve_op_t *ops, uint32_t n, fl_err_t *err);

/*
 * Commits all operations as one metadata change (ice_commit_meta_edit);
 * after a lost race they are applied and checked again on the new head.
 * On success t holds the new metadata.
 */
int ice_evolve_apply(ice_table_t *t, const ice_evolve_op_t *ops, uint32_t n, fl_err_t *err);

/*
 * Parses the command-line forms, several in a row:
 *   add-column 'point.z double not null default 0 comment "height"'
 *   drop-column c            rename-column a b       update-column c long
 *   update-doc c 'text'      make-optional c         make-required c
 *   set-identifier a,b       (set-identifier '' clears them)
 *   move-column c first | move-column c after x | move-column c before x
 *   add-partition 'hour(ts)' [name]
 *   drop-partition NAME      rename-partition OLD NEW
 *   --ignore-case            (for the operations that follow)
 * A column definition is "name type [not null] [default JSON] [comment
 * 'doc']" in ty_schema_parse's syntax; a dotted name adds to a struct
 * (quote the name, "a.b", to take the dot literally). The default is the
 * value in Iceberg's JSON single-value form (0, 1.5, "text",
 * "2024-01-05"). Errors name the argument. *ops is an array of *n in a.
 */
int ice_evolve_parse(fl_arena_t *a, int argc, const char *const *argv, ice_evolve_op_t **ops,
                     uint32_t *n, fl_err_t *err);

#endif
