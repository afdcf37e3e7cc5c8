/*
 * ex_spill.h - temporary files of batches for operators that outgrow their
 * memory budget, and the batch encoding they and checkpoints use
 * (layer 8, exec).
 *
 * A spill directory is private to one operator: created below a base
 * folder with a unique name, and removed with every file in it when closed.
 * A spill file is written once (append batches, then seal) and read back
 * from the start any number of times. Its format:
 *
 *   "FLSPILL1"                                  8-byte header
 *   block*:  u32 'SBLK' | u32 nrows | u32 payload bytes | u32 crc32(payload)
 *            payload = the encoded columns (ex_batch_encode)
 *   trailer: u32 'SEND' | u32 blocks | u64 rows | u32 crc32 of the 16 bytes
 *
 * little-endian throughout. Every read is checked: a file cut short (even
 * at a block boundary, thanks to the trailer), a bad checksum or a column
 * that does not decode is an FL_ECORRUPT error naming the file and offset.
 * Spill files are not compressed: they live for one query on local disk,
 * where writing is cheaper than compressing.
 */
#ifndef FL_EXEC_EX_SPILL_H
#define FL_EXEC_EX_SPILL_H

#include <stdbool.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/error.h"
#include "types/vec.h"

/*
 * Appends the first nrows rows of every column of b (its selection is
 * ignored: pass compact batches). ex_batch_decode reads them back into a
 * batch of the same schema, replacing its contents; it checks every length
 * and offset and fails with FL_ECORRUPT on bytes it did not write.
 */
void ex_batch_encode(const ty_batch_t *b, fl_buf_t *out);
int ex_batch_decode(fl_rd_t *r, ty_batch_t *into, fl_err_t *err);

/* One column's rows [0, len) alone, in the same encoding; the vector given
 * to ex_vec_decode (of the written type) is reset and filled. Aggregate
 * states that hold values (array_agg, DISTINCT) serialize with these. */
void ex_vec_encode(const ty_vec_t *v, uint32_t len, fl_buf_t *out);
int ex_vec_decode(fl_rd_t *r, ty_vec_t *into, fl_err_t *err);

typedef struct ex_spill_dir ex_spill_dir_t;
typedef struct ex_spill_file ex_spill_file_t;

/* Creates a private directory below base (NULL: $TMPDIR or /tmp). */
int ex_spill_dir_open(const char *base, ex_spill_dir_t **out, fl_err_t *err);
/* Deletes the remaining files and the directory; NULL is ok. */
void ex_spill_dir_close(ex_spill_dir_t *d);
const char *ex_spill_dir_path(const ex_spill_dir_t *d);

/* Creates a new empty file in the directory, open for writing. */
int ex_spill_create(ex_spill_dir_t *d, ex_spill_file_t **out, fl_err_t *err);
/* Appends a batch's rows (nrows of each column; no selection). */
int ex_spill_write(ex_spill_file_t *f, const ty_batch_t *b, fl_err_t *err);
/* Writes the trailer and flushes; the file becomes readable. */
int ex_spill_seal(ex_spill_file_t *f, fl_err_t *err);
/* Starts reading from the first batch (after seal). */
void ex_spill_rewind(ex_spill_file_t *f);
/*
 * Reads the next batch into `into` (reset first); *eof is set instead at
 * the trailer. The batch's schema must be the one written.
 */
int ex_spill_read(ex_spill_file_t *f, ty_batch_t *into, bool *eof, fl_err_t *err);
/* Closes and deletes the file; NULL is ok. */
void ex_spill_free(ex_spill_file_t *f);

const char *ex_spill_path(const ex_spill_file_t *f);
uint64_t ex_spill_rows(const ex_spill_file_t *f);
uint64_t ex_spill_bytes(const ex_spill_file_t *f);

#endif
