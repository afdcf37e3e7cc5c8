/*
 * pq_int.h - what the Parquet reader's files share (layer 4,
 * format/parquet, private to the reader): the schema tree that maps
 * Parquet columns to Iceberg fields with their repetition and definition
 * levels, and the column-chunk reader.
 */
#ifndef FL_FORMAT_PARQUET_PQ_INT_H
#define FL_FORMAT_PARQUET_PQ_INT_H

#include "format/parquet/pq_meta.h"
#include "format/parquet/pq_reader.h"
#include "io/fs.h"
#include "types/type.h"
#include "types/vec.h"

/* How a leaf's physical values become a vector's values. */
typedef enum pq_conv {
  PQ_CV_COPY,       /* same bytes (bool, int32, int64, float, double, FLBA as fixed/uuid) */
  PQ_CV_BYTES,      /* BYTE_ARRAY to string/binary */
  PQ_CV_U32,        /* INT32 read as unsigned into long */
  PQ_CV_U64,        /* INT64 read as unsigned into long: fails above INT64_MAX */
  PQ_CV_I32_X1000,  /* TIME(MILLIS) into micros */
  PQ_CV_I64_X1000,  /* TIMESTAMP(MILLIS) into micros */
  PQ_CV_I64_D1000,  /* TIME(NANOS) into micros */
  PQ_CV_I32_DEC,    /* INT32 decimal into i128 */
  PQ_CV_I64_DEC,    /* INT64 decimal into i128 */
  PQ_CV_BE_DEC,     /* FLBA or BYTE_ARRAY big-endian two's complement into i128 */
  PQ_CV_INT96,      /* INT96 (nanos of day, Julian day) into timestamptz micros */
  PQ_CV_F16,        /* FLOAT16 (FLBA 2) into float */
} pq_conv_t;

typedef enum pq_node_kind { PQ_NODE_LEAF, PQ_NODE_STRUCT, PQ_NODE_LIST, PQ_NODE_MAP } pq_node_kind_t;

typedef struct pq_node pq_node_t;
struct pq_node {
  pq_node_kind_t kind;
  const pq_schema_element_t *el; /* the element this node came from */
  ty_field_t field;              /* the Iceberg field (type filled in last) */
  int16_t def;                   /* definition level at which the node is non-null */
  int16_t ctx_def, ctx_rep;      /* a slot exists for entries with def >= ctx_def, starting at rep <= ctx_rep */
  uint32_t nchildren;            /* struct: fields; list: 1; map: 2 */
  pq_node_t **children;
  int32_t leaf;       /* LEAF: column index in the row group */
  int32_t first_leaf; /* the column whose levels give this node's shape */
  /* LEAF only */
  pq_type_t ptype;
  int32_t type_length;
  pq_conv_t conv;
  int16_t max_def, max_rep;
  const char *path; /* dotted Parquet path, for messages */
};

typedef struct pq_schema {
  pq_node_t root; /* STRUCT of the top-level columns */
  uint32_t nleaves;
  pq_node_t **leaves; /* by column index */
  ty_schema_t *schema;
} pq_schema_t;

/*
 * pq_schema_read.c: builds the tree and the Iceberg schema from the footer's
 * schema elements; ids come from field_id, missing ones are assigned in
 * Iceberg's fresh-id order after the highest given id.
 */
int pq__schema_from_file(fl_arena_t *a, const pq_file_meta_t *m, pq_schema_t **out, fl_err_t *err);

/* Whether node n or one of its descendants has field id `id`. */
bool pq__node_has_id(const pq_node_t *n, int32_t id);
/* A copy of n keeping only the fields listed in ids and the parents on
 * their way (a listed field keeps its whole subtree); NULL when none of
 * them is under n. Types are rebuilt in the arena. */
const pq_node_t *pq__node_prune(fl_arena_t *a, const pq_node_t *n, const int32_t *ids,
                                uint32_t nids);

/* pq_column_reader.c: reads one column chunk's pages. */
typedef struct pq_col pq_col_t;
pq_col_t *pq__col_new(const pq_node_t *leaf, pq_read_stats_t *stats);
void pq__col_free(pq_col_t *c);
/* Starts a column chunk: reads its bytes [off, off+len) through r. */
int pq__col_start(pq_col_t *c, io_reader_t *r, const pq_column_chunk_t *cc, uint32_t rg,
                  uint64_t off, uint64_t len, fl_err_t *err);
/*
 * Reads the next `rows` rows into the leaf vector v (appending), keeping the
 * batch's levels for pq__assemble. skip_rows first drops that many rows.
 */
int pq__col_read(pq_col_t *c, uint32_t skip_rows, uint32_t rows, ty_vec_t *v, fl_err_t *err);
/* The levels of the last pq__col_read call. */
void pq__col_levels(const pq_col_t *c, const uint16_t **def, const uint16_t **rep, uint32_t *n);

/*
 * pq_assemble.c: fills validity and offsets of the non-leaf vectors of
 * node n (whose leaves have been read) and checks the children agree.
 */
int pq__assemble(const pq_node_t *n, ty_vec_t *v, pq_col_t *const *cols, uint32_t rows,
                 fl_err_t *err);

/* pq_codec_decompress.c: fails when a page's declared size is more than
 * its codec could produce from n bytes (checked before allocating). */
int pq__decompress_check(pq_codec_t codec, const uint8_t *in, size_t n, size_t out_len,
                         fl_err_t *err);

/* pq_prune.c: true when the row group's statistics prove no row matches. */
bool pq__prune_row_group(const pq_schema_t *s, const pq_row_group_t *rg, const pq_pred_term_t *t,
                         uint32_t n);
/* pq_prune.c: the row ranges [start, end) (pairs, fl_malloc'd) of a row
 * group that pages' column indexes leave possible; the whole row group
 * when no index applies. Index problems never fail the read. */
int pq__prune_pages(io_reader_t *io, const pq_schema_t *s, const pq_row_group_t *rg,
                    const pq_pred_term_t *t, uint32_t n, int64_t **ranges, uint32_t *nranges);
/* Decodes a statistics value of leaf n into v (false: not usable). */
bool pq__stat_value(const pq_node_t *n, const uint8_t *p, size_t len, ty_value_t *v);

#endif
