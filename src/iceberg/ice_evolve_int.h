/*
 * ice_evolve_int.h - the field index shared by schema and partition
 * evolution (layer 5, iceberg, private).
 *
 * Every field of a schema with its parent (the field whose type holds it;
 * -1 for top-level columns), its role and its names the way Java's
 * TypeUtil.indexByName gives them: the full name with the "element",
 * "key" and "value" steps of lists and maps ("tags.element",
 * "points.element.x"), and the short name that leaves out the element and
 * value steps before a nested field ("points.x").
 */
#ifndef FL_ICEBERG_ICE_EVOLVE_INT_H
#define FL_ICEBERG_ICE_EVOLVE_INT_H

#include "iceberg/ice_evolve.h"

typedef enum ice_field_role {
  ICE_ROLE_MEMBER,  /* of a struct (or the top level) */
  ICE_ROLE_ELEMENT, /* of a list */
  ICE_ROLE_KEY,     /* of a map */
  ICE_ROLE_VALUE,   /* of a map */
} ice_field_role_t;

typedef struct ice_field_ref {
  const ty_field_t *f;
  int32_t parent; /* -1: top level */
  ice_field_role_t role;
  bool in_collection; /* somewhere inside a list or map */
  const char *full;
  const char *shortn;
} ice_field_ref_t;

typedef struct ice_field_index {
  ice_field_ref_t *refs;
  uint32_t n;
} ice_field_index_t;

/* Indexes every field of the struct type root (a schema's root). */
void ice__field_index(fl_arena_t *a, const ty_type_t *root, ice_field_index_t *out);
/* Finds a field by full name, else by short name; NULL when absent. */
const ice_field_ref_t *ice__field_find(const ice_field_index_t *x, const char *name,
                                       bool ignore_case);
const ice_field_ref_t *ice__field_by_id(const ice_field_index_t *x, int32_t id);

/* Appends the type as text ("decimal(10,2)") into a. */
const char *ice__type_text(fl_arena_t *a, const ty_type_t *t);

#endif
