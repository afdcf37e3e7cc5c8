/*
 * json_record.c - one JSON object per buffer, as message formats frame
 * them (layer 4, format/json).
 *
 * A Kafka message or an HTTP body holds one record, so unlike a JSON lines
 * file an empty buffer or a second object is an error of that message.
 * The run decoder does the work; this checks that it used exactly one
 * object and all of the text, and takes the row back otherwise.
 */
#include "format/json/json_decoder.h"
#include "format/text_parse.h"

static bool all_space(const char *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r' && p[i] != '\n') return false;
  return true;
}

int js_decode_record(js_decoder_t *d, const char *p, size_t n, ty_batch_t *b, fl_err_t *err) {
  uint32_t rows0 = b->ncols ? b->cols[0]->len : b->nrows;
  if (rows0 >= TY_BATCH_ROWS)
    return fl_err_set(err, FL_ELIMIT, "the batch is full (%u rows)", rows0);
  if (js_decode_flat(d, p, n, b)) return FL_OK;
  if (all_space(p, n)) return fl_err_set(err, FL_EPARSE, "expected a JSON object, got empty text");
  js_decoder_set_line(d, 1);
  int rc = js_decode(d, p, n, b, err);
  if (rc == FL_OK && b->nrows != rows0 + 1)
    rc = fl_err_set(err, FL_EPARSE, "expected one JSON object, found %u", b->nrows - rows0);
  size_t used = js_decoder_consumed(d);
  if (rc == FL_OK && !all_space(p + used, n - used))
    rc = fl_err_set(err, FL_EPARSE, "byte %zu: text after the JSON object", used + 1);
  if (rc && b->nrows != rows0) {
    /* A later object was bad or extra: the first one goes too. */
    for (uint32_t c = 0; c < b->ncols; c++) tp_vec_truncate(b->cols[c], rows0);
    b->nrows = rows0;
  }
  return rc;
}
