/*
 * gen.h - deterministic random data of any schema (layer 3, types).
 *
 * Tests, benchmarks and the demo need rows of every type, with nulls,
 * edge values and nesting, reproducible from a seed: the same seed and
 * schema always give the same rows, whatever format they are written to.
 */
#ifndef FL_TYPES_GEN_H
#define FL_TYPES_GEN_H

#include <stdint.h>

#include "types/vec.h"

typedef struct ty_gen_opts {
  uint64_t seed;
  double null_fraction;    /* chance that an optional value is null (0.1 when < 0) */
  double edge_fraction;    /* chance of an edge value: extremes, NaN, -0.0, empty (0.02 when < 0) */
  uint32_t max_string;     /* longest generated string (40 when 0) */
  uint32_t max_elements;   /* longest list or map (4 when 0) */
  const char *sequence_column; /* a long column filled with the row number, or NULL */
} ty_gen_opts_t;

typedef struct ty_gen ty_gen_t;

ty_gen_t *ty_gen_new(const ty_gen_opts_t *opts);
void ty_gen_free(ty_gen_t *g);
/* Appends `rows` generated rows to the batch's columns and seals it. */
void ty_gen_fill(ty_gen_t *g, ty_batch_t *b, uint32_t rows);
/* A random 64-bit number from the generator's stream. */
uint64_t ty_gen_next(ty_gen_t *g);

#endif
