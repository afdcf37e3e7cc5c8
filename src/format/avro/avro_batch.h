/*
 * avro_batch.h - Avro records straight into column vectors and back
 * (layer 4, format/avro).
 *
 * A plan pairs an Avro schema with the Iceberg type it is read as or
 * written from (nullable unions, logical types, Iceberg's map encodings,
 * multi-branch unions as {tag, field0..} structs); decoding and encoding
 * then walk the plan, never building generic values.
 */
#ifndef FL_FORMAT_AVRO_BATCH_H
#define FL_FORMAT_AVRO_BATCH_H

#include "format/avro/avro_schema.h"
#include "types/type.h"
#include "types/vec.h"

typedef struct av_plan av_plan_t;

/*
 * Builds the plan of a record schema against the columns of `target`: a
 * column is matched to the Avro field of the same field id (or, without
 * ids, the same name); Avro fields not in target are skipped and target
 * columns missing from the file read as nulls (an error if required).
 * FL_EUNSUPPORTED when a type cannot be read as its target type.
 */
int av_plan_build(fl_arena_t *a, const av_schema_t *record, const ty_schema_t *target,
                  av_plan_t **out, fl_err_t *err);

/* Decodes one record from r and appends it as one row of batch b. */
int av_plan_decode_row(const av_plan_t *p, fl_rd_t *r, ty_batch_t *b, fl_err_t *err);

/* Encodes row `row` of batch b (whose schema is the plan's target and
 * whose columns are all in the file) as one Avro record. */
int av_plan_encode_row(const av_plan_t *p, const ty_batch_t *b, uint32_t row, fl_buf_t *out,
                       fl_err_t *err);

#endif
