/*
 * pq_write_int.h - what the Parquet writer's files share (layer 4,
 * format/parquet, private to the writer): the shape of the schema as
 * level-computing nodes and leaf columns, built once from an Iceberg
 * schema by pq_schema_write.c.
 */
#ifndef FL_FORMAT_PARQUET_PQ_WRITE_INT_H
#define FL_FORMAT_PARQUET_PQ_WRITE_INT_H

#include "format/parquet/pq_meta.h"
#include "types/type.h"

/*
 * One Iceberg field in the shredding tree. `def` is the definition level
 * reached when this field's value is present. For lists and maps,
 * `rep_def` and `rep` are the definition and repetition levels of the
 * repeated group (an element is present); children are the element, or
 * the key and value.
 */
typedef struct pq__node pq__node_t;
struct pq__node {
  const ty_field_t *field;
  ty_kind_t kind;
  bool optional;
  uint16_t def;
  uint16_t rep_def, rep;
  uint32_t nchildren;
  pq__node_t *children;
  uint32_t leaf_first, leaf_count; /* leaves under this node (contiguous) */
};

/* One leaf column, in schema (depth-first) order. */
typedef struct pq__leaf {
  const ty_field_t *field;
  const ty_type_t *type;
  pq_type_t ptype;
  int32_t type_length; /* FIXED_LEN_BYTE_ARRAY */
  uint16_t max_def, max_rep;
  uint32_t npath;
  const char **path;
  uint32_t top; /* top-level column it belongs to */
  const pq_schema_element_t *elem;
} pq__leaf_t;

typedef struct pq__schema {
  uint32_t nelems;
  pq_schema_element_t *elems; /* depth-first, [0] the root */
  uint32_t nleaves;
  pq__leaf_t *leaves;
  uint32_t ncols;
  pq__node_t *cols; /* one per top-level column */
} pq__schema_t;

/* Bytes of the minimal FIXED_LEN_BYTE_ARRAY holding any unscaled decimal of a precision. */
int32_t pq__decimal_bytes(int precision);

/*
 * Maps an Iceberg schema to Parquet schema elements (field ids everywhere,
 * 3-level LIST and MAP) and the shredding tree, all in arena a.
 */
int pq__schema_from_iceberg(fl_arena_t *a, const ty_schema_t *s, pq__schema_t *out, fl_err_t *err);

/* The row groups a writer recorded (its footer's), for tests and tools. */
typedef struct pq_writer pq_writer_t;
const pq_row_group_t *pq__writer_row_groups(const pq_writer_t *w, uint32_t *n);

#endif
