/*
 * st_kafka_decode.c - JSON message values and message metadata into table
 * batches (layer 10, stream).
 *
 * The JSON decoder works on a batch view whose column array points at the
 * table batch's value columns, so decoding a message appends straight to
 * the vectors the operators read. After a value is decoded the metadata
 * columns get the message's fields; a value that fails leaves no partial
 * row behind (js_decode_record takes it back).
 */
#include "stream/st_kafka_decode.h"

#include <string.h>

#include "base/alloc.h"
#include "base/arena.h"
#include "format/csv/csv.h"
#include "format/json/json_decoder.h"
#include "format/text_parse.h"

struct st_kafka_decoder {
  const ty_schema_t *table;
  st_kafka_meta_t *meta;
  uint32_t *value_cols; /* table column of each value column */
  uint32_t nvalue;
  fl_arena_t *arena;
  ty_schema_t *value_schema;
  js_decoder_t *js;
  ty_vec_t **view_cols;
  bool ignore_errors;
  bool raw;                  /* format 'raw': the value's bytes into the one value column */
  csv_record_decoder_t *csv; /* format 'csv'; NULL: json or raw */
  size_t max_bytes;          /* larger values are bad records; 0: no limit */
  /* 'key.format': the key columns and their decoder */
  uint32_t *key_cols;
  uint32_t nkey;
  ty_schema_t *key_schema;
  ty_vec_t **key_view;
  js_decoder_t *key_js;
  csv_record_decoder_t *key_csv;
  bool key_raw;
  uint64_t skipped;
};

static const struct {
  const char *key;
  st_kafka_meta_t kind;
} meta_keys[] = {
    {"topic", ST_META_TOPIC},
    {"partition", ST_META_PARTITION},
    {"offset", ST_META_OFFSET},
    {"timestamp", ST_META_TIMESTAMP},
    {"timestamp-type", ST_META_TIMESTAMP_TYPE},
    {"headers", ST_META_HEADERS},
};

bool st_kafka_meta_parse(const char *key, st_kafka_meta_t *out) {
  for (size_t i = 0; i < sizeof meta_keys / sizeof meta_keys[0]; i++)
    if (strcmp(key, meta_keys[i].key) == 0) {
      *out = meta_keys[i].kind;
      return true;
    }
  return false;
}

static const char *meta_name(st_kafka_meta_t m) {
  for (size_t i = 0; i < sizeof meta_keys / sizeof meta_keys[0]; i++)
    if (meta_keys[i].kind == m) return meta_keys[i].key;
  return "?";
}

static bool meta_type_ok(st_kafka_meta_t m, const ty_type_t *t) {
  switch (m) {
    case ST_META_TOPIC:
    case ST_META_TIMESTAMP_TYPE: return t->kind == TY_STRING;
    case ST_META_PARTITION: return t->kind == TY_INT;
    case ST_META_OFFSET: return t->kind == TY_LONG;
    case ST_META_TIMESTAMP: return t->kind == TY_TIMESTAMP || t->kind == TY_TIMESTAMPTZ;
    case ST_META_KEY_FIELD: return true;
    case ST_META_HEADERS:
      return t->kind == TY_MAP && t->fields[0].type->kind == TY_STRING &&
             (t->fields[1].type->kind == TY_BINARY || t->fields[1].type->kind == TY_STRING);
    case ST_META_NONE: return true;
  }
  return false;
}

int st_kafka_decoder_new(const ty_schema_t *table, const st_kafka_meta_t *meta,
                         bool ignore_parse_errors, st_kafka_decoder_t **out, fl_err_t *err) {
  *out = NULL;
  uint32_t n = table->root.nfields;
  for (uint32_t i = 0; meta && i < n; i++)
    if (!meta_type_ok(meta[i], table->root.fields[i].type))
      return fl_err_set(err, FL_EINVALID, "column '%s': metadata '%s' needs type %s",
                        table->root.fields[i].name, meta_name(meta[i]),
                        meta[i] == ST_META_PARTITION   ? "int"
                        : meta[i] == ST_META_OFFSET    ? "long"
                        : meta[i] == ST_META_TIMESTAMP ? "timestamp or timestamptz"
                        : meta[i] == ST_META_HEADERS   ? "map<string, binary>"
                                                       : "string");
  st_kafka_decoder_t *d = fl_calloc(1, sizeof *d);
  d->table = table;
  d->meta = fl_calloc(n ? n : 1, sizeof *d->meta);
  if (meta) memcpy(d->meta, meta, n * sizeof *meta);
  d->value_cols = fl_calloc(n ? n : 1, sizeof *d->value_cols);
  d->view_cols = fl_calloc(n ? n : 1, sizeof *d->view_cols);
  d->arena = fl_arena_new(0);
  ty_field_t *fields = fl_arena_zalloc(d->arena, (n ? n : 1) * sizeof *fields);
  for (uint32_t i = 0; i < n; i++)
    if (d->meta[i] == ST_META_NONE) {
      fields[d->nvalue] = table->root.fields[i];
      d->value_cols[d->nvalue++] = i;
    }
  d->value_schema = ty_schema_new(d->arena, 0, fields, d->nvalue);
  /* SQL folds unquoted column names to lower case while JSON keys keep
   * theirs (Nexmark's "dateTime"): members match their column ignoring
   * ASCII case, so a table written as Flink's DDL reads the same fields. */
  js_decode_opts_t jo = {.case_insensitive = true};
  d->js = js_decoder_new(d->value_schema, &jo);
  d->ignore_errors = ignore_parse_errors;
  *out = d;
  return FL_OK;
}

void st_kafka_decoder_free(st_kafka_decoder_t *d) {
  if (!d) return;
  js_decoder_free(d->js);
  csv_record_decoder_free(d->csv);
  js_decoder_free(d->key_js);
  csv_record_decoder_free(d->key_csv);
  fl_free(d->key_cols);
  fl_free(d->key_view);
  fl_arena_free(d->arena);
  fl_free(d->meta);
  fl_free(d->value_cols);
  fl_free(d->view_cols);
  fl_free(d);
}

uint64_t st_kafka_decoder_skipped(const st_kafka_decoder_t *d) { return d->skipped; }

int st_kafka_decoder_set_raw(st_kafka_decoder_t *d, fl_err_t *err) {
  if (d->nvalue != 1)
    return fl_err_set(err, FL_EINVALID,
                      "format 'raw' needs exactly one physical column, the table has %u",
                      d->nvalue);
  const ty_field_t *f = &d->value_schema->root.fields[0];
  if (f->type->kind != TY_STRING && f->type->kind != TY_BINARY)
    return fl_err_set(err, FL_EINVALID, "format 'raw': column '%s' must be STRING or BYTES",
                      f->name);
  d->raw = true;
  return FL_OK;
}

int st_kafka_decoder_set_csv(st_kafka_decoder_t *d, const csv_dialect_t *dialect, fl_err_t *err) {
  csv_record_decoder_free(d->csv);
  d->csv = NULL;
  return csv_record_decoder_new(d->value_schema, dialect, &d->csv, err);
}

void st_kafka_decoder_set_fail_on_missing(st_kafka_decoder_t *d, bool fail) {
  js_decoder_free(d->js);
  js_decode_opts_t jo = {.case_insensitive = true, .fail_on_missing = fail};
  d->js = js_decoder_new(d->value_schema, &jo);
}

int st_kafka_decoder_set_key_format(st_kafka_decoder_t *d, const char *format,
                                    const csv_dialect_t *dialect, const char *prefix,
                                    fl_err_t *err) {
  size_t np = prefix ? strlen(prefix) : 0;
  uint32_t n = d->table->root.nfields;
  d->key_cols = fl_calloc(n ? n : 1, sizeof *d->key_cols);
  d->key_view = fl_calloc(n ? n : 1, sizeof *d->key_view);
  ty_field_t *fields = fl_arena_zalloc(d->arena, (n ? n : 1) * sizeof *fields);
  for (uint32_t i = 0; i < n; i++)
    if (d->meta[i] == ST_META_KEY_FIELD) {
      fields[d->nkey] = d->table->root.fields[i];
      const char *name = fields[d->nkey].name;
      if (np && strncmp(name, prefix, np) == 0 && name[np]) fields[d->nkey].name = name + np;
      d->key_cols[d->nkey++] = i;
    }
  d->key_schema = ty_schema_new(d->arena, 0, fields, d->nkey);
  if (!strcmp(format, "json")) {
    js_decode_opts_t jo = {.case_insensitive = true};
    d->key_js = js_decoder_new(d->key_schema, &jo);
    return FL_OK;
  }
  if (!strcmp(format, "csv"))
    return csv_record_decoder_new(d->key_schema, dialect, &d->key_csv, err);
  if (!strcmp(format, "raw")) {
    const ty_type_t *t = d->nkey == 1 ? fields[0].type : NULL;
    if (!t || (t->kind != TY_STRING && t->kind != TY_BINARY))
      return fl_err_set(err, FL_EINVALID,
                        "key format 'raw' needs exactly one key field, STRING or BYTES");
    d->key_raw = true;
    return FL_OK;
  }
  return fl_err_set(err, FL_EUNSUPPORTED, "key format '%s' (json, csv or raw)", format);
}

/* The key columns of message m into b's row b->nrows (not counted yet). */
static int decode_key(st_kafka_decoder_t *d, const kf_msg_t *m, ty_batch_t *b, fl_err_t *err) {
  ty_batch_t view = {
      .schema = d->key_schema, .ncols = d->nkey, .cols = d->key_view, .nrows = b->nrows};
  for (uint32_t j = 0; j < d->nkey; j++) view.cols[j] = b->cols[d->key_cols[j]];
  if (!m->key) {
    for (uint32_t j = 0; j < d->nkey; j++) {
      if (d->key_schema->root.fields[j].required)
        return fl_err_set(err, FL_EINVALID, "key field '%s': a null key for a NOT NULL column",
                          d->key_schema->root.fields[j].name);
      ty_vec_append_null(view.cols[j]);
    }
    return FL_OK;
  }
  int rc = FL_OK;
  if (d->key_raw) {
    ty_vec_append_bytes(view.cols[0], m->key, m->key_len);
  } else if (d->key_csv) {
    bool row;
    rc = csv_record_decode(d->key_csv, m->key, m->key_len, &view, &row, err);
    if (!rc && !row) rc = fl_err_set(err, FL_EPARSE, "the key is a CSV comment");
  } else {
    rc = js_decode_record(d->key_js, m->key, m->key_len, &view, err);
  }
  return rc ? fl_err_prefix(err, "key: ") : FL_OK;
}

void st_kafka_decoder_set_max_bytes(st_kafka_decoder_t *d, size_t max_bytes) {
  d->max_bytes = max_bytes;
}

static void append_meta(st_kafka_meta_t m, const kf_msg_t *msg, ty_vec_t *v) {
  static const char *const ts_names[] = {"NoTimestampType", "CreateTime", "LogAppendTime"};
  switch (m) {
    case ST_META_TOPIC: ty_vec_append_bytes(v, msg->topic, strlen(msg->topic)); break;
    case ST_META_PARTITION: ty_vec_append_i32(v, msg->partition); break;
    case ST_META_OFFSET: ty_vec_append_i64(v, msg->offset); break;
    case ST_META_TIMESTAMP:
      if (msg->ts_type == KF_TS_NONE)
        ty_vec_append_null(v);
      else
        ty_vec_append_i64(v, msg->timestamp_ms * 1000);
      break;
    case ST_META_TIMESTAMP_TYPE:
      ty_vec_append_bytes(v, ts_names[msg->ts_type], strlen(ts_names[msg->ts_type]));
      break;
    case ST_META_HEADERS: {
      uint32_t nh = kf_msg_header_count(msg);
      for (uint32_t i = 0; i < nh; i++) {
        const char *name;
        const void *val;
        size_t len;
        if (!kf_msg_header(msg, i, &name, &val, &len)) continue;
        ty_vec_append_bytes(v->children[0], name, strlen(name));
        if (val)
          ty_vec_append_bytes(v->children[1], val, len);
        else
          ty_vec_append_null(v->children[1]);
      }
      ty_vec_append_list_end(v);
      break;
    }
    case ST_META_KEY_FIELD:
    case ST_META_NONE: break;
  }
}

int st_kafka_decode(st_kafka_decoder_t *d, const kf_msgs_t *msgs, uint32_t *next, ty_batch_t *b,
                    fl_err_t *err) {
  ty_batch_t view = {.schema = d->value_schema, .ncols = d->nvalue, .cols = d->view_cols};
  for (uint32_t j = 0; j < d->nvalue; j++) view.cols[j] = b->cols[d->value_cols[j]];
  while (*next < msgs->n && b->nrows < TY_BATCH_ROWS) {
    const kf_msg_t *m = &msgs->msgs[*next];
    int rc = FL_OK;
    bool row = true;
    view.nrows = b->nrows;
    if (m->value && d->max_bytes && m->value_len > d->max_bytes) {
      /* Checked before anything looks at the bytes: a huge value costs no
       * copy and no parse. */
      rc = fl_err_set(err, FL_EINVALID,
                      "a value of %zu bytes is larger than the limit of %zu bytes "
                      "(SET 'floe.max-record-bytes')",
                      m->value_len, d->max_bytes);
    } else if (d->raw) {
      ty_vec_t *v = b->cols[d->value_cols[0]];
      if (m->value)
        ty_vec_append_bytes(v, m->value, m->value_len);
      else
        ty_vec_append_null(v);
    } else if (!m->value) {
      d->skipped++;
      (*next)++;
      continue;
    } else if (d->csv) {
      rc = csv_record_decode(d->csv, m->value, m->value_len, &view, &row, err);
    } else {
      rc = js_decode_record(d->js, m->value, m->value_len, &view, err);
    }
    if (!rc && row && d->nkey && (rc = decode_key(d, m, b, err))) {
      /* The value's row is taken back, and the key's partial one. */
      for (uint32_t i = 0; i < b->ncols; i++) tp_vec_truncate(b->cols[i], b->nrows);
    }
    if (rc) {
      if (d->ignore_errors && rc != FL_ELIMIT) {
        d->skipped++;
        (*next)++;
        continue;
      }
      return fl_err_prefix(err, "%s[%d] offset %lld: ", m->topic, m->partition,
                           (long long)m->offset);
    }
    if (!row) { /* a csv comment */
      d->skipped++;
      (*next)++;
      continue;
    }
    for (uint32_t i = 0; i < b->ncols; i++)
      if (d->meta[i] != ST_META_NONE) append_meta(d->meta[i], m, b->cols[i]);
    b->nrows++;
    (*next)++;
  }
  return FL_OK;
}
