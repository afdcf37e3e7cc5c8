/*
 * csv_record.c - one CSV record into one row (layer 4, format/csv): the
 * decoder behind Flink's csv format for Kafka message values. See csv.h.
 *
 * The record is split with the file reader's splitter (csv_split.c) under
 * the decoder's dialect, then its fields are parsed by position into the
 * batch's vectors with text_parse.h; a field that fails cuts the row back
 * out of every column, so a bad record leaves nothing behind.
 */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "format/csv/csv_int.h"
#include "format/text_parse.h"

struct csv_record_decoder {
  const ty_schema_t *schema;
  csv_splitter_t sp;
  fl_buf_t elem; /* one element of a list or struct field, unescaped */
};

static bool bad_char(char c) { return c == '\n' || c == '\r' || c == '\0'; }

int csv_record_decoder_new(const ty_schema_t *s, const csv_dialect_t *d, csv_record_decoder_t **out,
                           fl_err_t *err) {
  *out = NULL;
  csv_record_decoder_t *r = fl_calloc(1, sizeof *r);
  r->schema = s;
  csv__splitter_init(&r->sp, d, "record");
  fl_buf_init(&r->elem);
  const csv_dialect_t *x = &r->sp.d;
  int rc = FL_OK;
  if (bad_char(x->delimiter) || bad_char(x->quote) || bad_char(x->array_delimiter) ||
      (x->escape && bad_char(x->escape)))
    rc = fl_err_set(err, FL_EINVALID, "csv: a delimiter, quote or escape cannot be a line break");
  else if ((!x->no_quote && x->quote == x->delimiter) ||
           (x->escape && (x->escape == x->delimiter || (!x->no_quote && x->escape == x->quote))))
    rc = fl_err_set(err, FL_EINVALID,
                    "csv: the field delimiter, the quote and the escape character must differ");
  for (uint32_t c = 0; !rc && c < s->root.nfields; c++) {
    const ty_field_t *f = &s->root.fields[c];
    const ty_type_t *t = f->type;
    bool ok = !ty_is_nested(t);
    if (t->kind == TY_LIST) ok = !ty_is_nested(t->fields[0].type);
    if (t->kind == TY_STRUCT) {
      ok = true;
      for (uint32_t k = 0; k < t->nfields; k++) ok &= !ty_is_nested(t->fields[k].type);
    }
    if (!ok)
      rc = fl_err_set(err, FL_EUNSUPPORTED,
                      "csv: column '%s': maps and nested collections are not supported (arrays "
                      "and rows of primitive values are)",
                      f->name);
  }
  if (rc) {
    csv_record_decoder_free(r);
    return rc;
  }
  *out = r;
  return FL_OK;
}

void csv_record_decoder_free(csv_record_decoder_t *d) {
  if (!d) return;
  csv__splitter_free(&d->sp);
  fl_buf_free(&d->elem);
  fl_free(d);
}

static bool is_null_text(const csv_record_decoder_t *d, const csv_field_t *f, const char *s,
                         size_t n) {
  if (!f->quoted && n == 0) return true;
  const char *nl = d->sp.d.null_literal;
  return nl && strlen(nl) == n && memcmp(nl, s, n) == 0;
}

/* A list or struct field: its text split at the array delimiter, each
 * element parsed into the child vector (an empty element is null). */
static const char *nested_field(csv_record_decoder_t *d, ty_vec_t *v, const char *s, size_t n) {
  const ty_type_t *t = v->type;
  char ad = d->sp.d.array_delimiter;
  uint32_t k = 0, want = t->kind == TY_STRUCT ? t->nfields : 0;
  /* s may point into the splitter's scratch: copy it once. */
  fl_buf_clear(&d->elem);
  fl_buf_append(&d->elem, s, n);
  const char *p = (const char *)d->elem.data, *end = p + n;
  if (t->kind == TY_LIST && n == 0) {
    ty_vec_append_list_end(v);
    return NULL;
  }
  for (;;) {
    const char *e = memchr(p, ad, (size_t)(end - p));
    if (!e) e = end;
    if (t->kind == TY_STRUCT && k >= want) return "more fields than the row type has";
    ty_vec_t *child = t->kind == TY_LIST ? v->children[0] : v->children[k];
    if (e == p)
      ty_vec_append_null(child);
    else if (tp_append(child, p, (size_t)(e - p)))
      return t->kind == TY_LIST ? "an element does not parse as the array's element type"
                                : "a field does not parse as its type in the row";
    k++;
    if (e == end) break;
    p = e + 1;
  }
  if (t->kind == TY_STRUCT) {
    if (k != want) return "fewer fields than the row type has";
    ty_vec_append_struct(v);
  } else {
    ty_vec_append_list_end(v);
  }
  return NULL;
}

int csv_record_decode(csv_record_decoder_t *d, const char *p, size_t n, ty_batch_t *b,
                      bool *appended, fl_err_t *err) {
  *appended = false;
  if (d->sp.d.allow_comments && n > 0 && p[0] == '#') return FL_OK;
  const char *end = p + n, *next = NULL;
  uint64_t line_after;
  bool whole;
  int rc = csv__split_row(&d->sp, p, end, false, 1, &next, &line_after, &whole, err);
  if (rc) return rc;
  if (next != end)
    return fl_err_set(err, FL_EPARSE, "record: more than one CSV record (a line break at byte %zu)",
                      (size_t)(next - p));
  const ty_field_t *cols = d->schema->root.fields;
  uint32_t ncols = d->schema->root.nfields;
  if (d->sp.nf != ncols)
    return fl_err_set(err, FL_EPARSE, "record: expected %u fields, found %zu", ncols, d->sp.nf);
  uint32_t rows = b->nrows;
  for (uint32_t c = 0; c < ncols; c++) {
    const csv_field_t *f = &d->sp.fields[c];
    ty_vec_t *v = b->cols[c];
    const char *s;
    size_t len;
    csv__field_text(&d->sp, f, &s, &len);
    const char *why = NULL;
    if (is_null_text(d, f, s, len)) {
      if (cols[c].required) {
        rc = csv__field_error(&d->sp, f, cols[c].name, FL_EINVALID,
                              "null value for a NOT NULL column", NULL, 0, err);
        goto fail;
      }
      ty_vec_append_null(v);
      continue;
    }
    why = ty_is_nested(v->type) ? nested_field(d, v, s, len) : tp_append(v, s, len);
    if (why) {
      rc = csv__field_error(&d->sp, f, cols[c].name, FL_EINVALID, why, s, len, err);
      goto fail;
    }
  }
  b->nrows = rows + 1;
  *appended = true;
  return FL_OK;
fail:
  for (uint32_t c = 0; c < b->ncols; c++) tp_vec_truncate(b->cols[c], rows);
  return rc;
}
