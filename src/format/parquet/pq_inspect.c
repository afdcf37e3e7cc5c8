/*
 * pq_inspect.c - `floe inspect` for Parquet files (layer 4,
 * format/parquet): the schema in its Parquet and Iceberg forms with field
 * ids, the file's metadata, and per row group and column the types,
 * codec, encodings, sizes, statistics (rendered as values) and which
 * indexes exist. Human text by default, one JSON document with json set.
 */
#include <jansson.h>
#include <string.h>

#include "base/alloc.h"
#include "format/parquet/pq_int.h"
#include "format/parquet/pq_reader.h"

int pq_fmt_inspect(io_fs_t *fs, const char *path, bool json, FILE *out, fl_err_t *err);

static const char *rep_name(const pq_schema_element_t *e) {
  if (!e->has_repetition) return "";
  return e->repetition == PQ_REQUIRED ? "required" : e->repetition == PQ_OPTIONAL ? "optional" : "repeated";
}

static const char *logical_name(const pq_schema_element_t *e, char *buf, size_t cap) {
  static const char *lt[] = {"", "STRING", "MAP", "LIST", "ENUM", "DECIMAL", "DATE", "TIME",
                             "TIMESTAMP", "", "INTEGER", "UNKNOWN", "JSON", "BSON", "UUID",
                             "FLOAT16", "VARIANT", "GEOMETRY", "GEOGRAPHY"};
  static const char *ct[] = {"UTF8", "MAP", "MAP_KEY_VALUE", "LIST", "ENUM", "DECIMAL", "DATE",
                             "TIME_MILLIS", "TIME_MICROS", "TIMESTAMP_MILLIS", "TIMESTAMP_MICROS",
                             "UINT_8", "UINT_16", "UINT_32", "UINT_64", "INT_8", "INT_16", "INT_32",
                             "INT_64", "JSON", "BSON", "INTERVAL"};
  buf[0] = 0;
  if (e->has_logical_type && e->logical_type.kind > 0 && e->logical_type.kind <= PQ_LT_GEOGRAPHY) {
    const pq_logical_type_t *l = &e->logical_type;
    const char *units[] = {"", "MILLIS", "MICROS", "NANOS"};
    switch (l->kind) {
      case PQ_LT_DECIMAL:
        snprintf(buf, cap, "DECIMAL(%d,%d)", l->decimal_precision, l->decimal_scale);
        break;
      case PQ_LT_TIME:
      case PQ_LT_TIMESTAMP:
        snprintf(buf, cap, "%s(%s,%s)", lt[l->kind], units[l->unit & 3],
                 l->is_adjusted_to_utc ? "UTC" : "local");
        break;
      case PQ_LT_INTEGER:
        snprintf(buf, cap, "INTEGER(%d,%s)", l->int_bit_width, l->int_is_signed ? "signed" : "unsigned");
        break;
      default: snprintf(buf, cap, "%s", lt[l->kind]); break;
    }
  } else if (e->has_converted_type) {
    snprintf(buf, cap, "%s", ct[e->converted_type]);
  }
  return buf;
}

static void fmt_stat(const pq_node_t *lf, const pq_bytes_t *b, fl_buf_t *out) {
  ty_value_t v;
  fl_buf_clear(out);
  if (pq__stat_value(lf, b->p, b->n, &v)) {
    ty_value_format(lf->field.type, &v, out);
  } else {
    fl_buf_append_str(out, "0x");
    for (size_t i = 0; i < b->n; i++) fl_buf_printf(out, "%02x", b->p[i]);
  }
  fl_buf_append_u8(out, 0);
}

static void text_schema(FILE *out, const pq_file_meta_t *m) {
  /* Depth-first list with a stack of remaining children counts. */
  int32_t left[80];
  int depth = 0;
  char lb[64];
  for (uint32_t i = 0; i < m->nschema; i++) {
    const pq_schema_element_t *e = &m->schema[i];
    fprintf(out, "%*s", 2 * depth + 2, "");
    if (e->has_num_children && e->num_children > 0)
      fprintf(out, "%s%s%s", i ? rep_name(e) : "message", i ? " group " : " ", e->name);
    else
      fprintf(out, "%s %s %s", rep_name(e), e->has_type ? pq_type_name(e->type) : "?", e->name);
    if (e->has_type && e->type == PQ_FIXED_LEN_BYTE_ARRAY) fprintf(out, " (length %d)", e->type_length);
    logical_name(e, lb, sizeof lb);
    if (lb[0]) fprintf(out, " (%s)", lb);
    if (e->has_field_id) fprintf(out, " = %d", e->field_id);
    fputc('\n', out);
    if (depth > 0) left[depth - 1]--;
    if (e->has_num_children && e->num_children > 0 && depth < 79) {
      left[depth++] = e->num_children;
    }
    while (depth > 0 && left[depth - 1] == 0) depth--;
  }
}

/* Iceberg view: one line per field with its id, nested fields indented. */
static void text_fields(FILE *out, const ty_type_t *t, int depth, fl_buf_t *tmp) {
  for (uint32_t i = 0; i < t->nfields; i++) {
    const ty_field_t *f = &t->fields[i];
    fl_buf_clear(tmp);
    if (ty_is_nested(f->type))
      fl_buf_append_str(tmp, ty_kind_name(f->type->kind));
    else
      ty_type_format(f->type, tmp);
    fl_buf_append_u8(tmp, 0);
    fprintf(out, "%*s%d: %s %s%s\n", 2 * depth + 2, "", f->id, f->name, (char *)tmp->data,
            f->required ? " not null" : "");
    if (ty_is_nested(f->type)) text_fields(out, f->type, depth + 1, tmp);
  }
}

static json_t *json_fields(const ty_type_t *t, fl_buf_t *tmp) {
  json_t *arr = json_array();
  for (uint32_t i = 0; i < t->nfields; i++) {
    const ty_field_t *f = &t->fields[i];
    json_t *o = json_object();
    json_object_set_new(o, "id", json_integer(f->id));
    json_object_set_new(o, "name", json_string(f->name));
    json_object_set_new(o, "required", json_boolean(f->required));
    fl_buf_clear(tmp);
    if (ty_is_nested(f->type))
      fl_buf_append_str(tmp, ty_kind_name(f->type->kind));
    else
      ty_type_format(f->type, tmp);
    fl_buf_append_u8(tmp, 0);
    json_object_set_new(o, "type", json_string((char *)tmp->data));
    if (ty_is_nested(f->type)) json_object_set_new(o, "fields", json_fields(f->type, tmp));
    json_array_append_new(arr, o);
  }
  return arr;
}

static json_t *j_str(const char *s) { return s ? json_string(s) : json_null(); }

static json_t *j_bytes_str(const char *s) {
  json_t *j = json_string(s);
  return j ? j : json_stringn(s, 0);
}

int pq_fmt_inspect(io_fs_t *fs, const char *path, bool json, FILE *out, fl_err_t *err) {
  pq_reader_t *r;
  int rc = pq_reader_open(fs, path, NULL, &r, err);
  if (rc) return rc;
  const pq_file_meta_t *m = pq_reader_file_meta(r);
  const ty_schema_t *sc = pq_reader_file_schema(r);
  fl_arena_t *a = fl_arena_new(0);
  pq_schema_t *ps;
  if ((rc = pq__schema_from_file(a, m, &ps, err))) goto done;
  fl_buf_t b, s1, s2;
  fl_buf_init(&b);
  fl_buf_init(&s1);
  fl_buf_init(&s2);
  ty_schema_format(sc, &b);
  fl_buf_append_u8(&b, 0);
  char lb[64];
  if (!json) {
    fprintf(out, "file: %s\nformat: parquet (version %d)\ncreated_by: %s\nnum_rows: %lld\nrow_groups: %u\n",
            path, m->version, m->created_by ? m->created_by : "", (long long)m->num_rows, m->nrow_groups);
    fprintf(out, "parquet schema:\n");
    text_schema(out, m);
    fprintf(out, "iceberg schema:\n  %s\n", (char *)b.data);
    fprintf(out, "iceberg fields:\n");
    text_fields(out, &sc->root, 0, &s1);
    if (m->nkey_value) {
      fprintf(out, "key_value_metadata:\n");
      for (uint32_t i = 0; i < m->nkey_value; i++) {
        const char *v = m->key_value_metadata[i].value;
        size_t vl = v ? strlen(v) : 0;
        fprintf(out, "  %s: %.*s%s\n", m->key_value_metadata[i].key, (int)(vl > 200 ? 200 : vl),
                v ? v : "(null)", vl > 200 ? "..." : "");
      }
    }
    for (uint32_t g = 0; g < m->nrow_groups; g++) {
      const pq_row_group_t *rg = &m->row_groups[g];
      fprintf(out, "row group %u: rows %lld, total_byte_size %lld", g, (long long)rg->num_rows,
              (long long)rg->total_byte_size);
      if (rg->has_total_compressed_size)
        fprintf(out, ", compressed %lld", (long long)rg->total_compressed_size);
      fputc('\n', out);
      for (uint32_t c = 0; c < rg->ncolumns && c < ps->nleaves; c++) {
        const pq_column_chunk_t *cc = &rg->columns[c];
        const pq_column_meta_t *md = &cc->meta_data;
        const pq_node_t *lf = ps->leaves[c];
        fl_buf_clear(&s1);
        ty_type_format(lf->field.type, &s1);
        fl_buf_append_u8(&s1, 0);
        fprintf(out, "  column %s (id %d): %s", lf->path, lf->field.id, pq_type_name(md->type));
        logical_name(lf->el, lb, sizeof lb);
        if (lb[0]) fprintf(out, " %s", lb);
        fprintf(out, " -> %s, %s, encodings", (char *)s1.data, pq_codec_name(md->codec));
        for (uint32_t e = 0; e < md->nencodings; e++)
          fprintf(out, "%s%s", e ? "," : " ", pq_encoding_name(md->encodings[e]));
        fprintf(out, "\n    values %lld, compressed %lld, uncompressed %lld, data_page_offset %lld",
                (long long)md->num_values, (long long)md->total_compressed_size,
                (long long)md->total_uncompressed_size, (long long)md->data_page_offset);
        if (md->has_dictionary_page_offset)
          fprintf(out, ", dictionary_page_offset %lld", (long long)md->dictionary_page_offset);
        fprintf(out, "%s%s\n", cc->has_column_index ? ", column index" : "",
                cc->has_offset_index ? ", offset index" : "");
        if (md->has_statistics) {
          const pq_statistics_t *st = &md->statistics;
          const pq_bytes_t *mn = st->has_min_value ? &st->min_value : st->has_min ? &st->min : NULL;
          const pq_bytes_t *mx = st->has_max_value ? &st->max_value : st->has_max ? &st->max : NULL;
          fprintf(out, "    statistics:");
          if (mn) {
            fmt_stat(lf, mn, &s1);
            fprintf(out, " min %s", (char *)s1.data);
          }
          if (mx) {
            fmt_stat(lf, mx, &s2);
            fprintf(out, " max %s", (char *)s2.data);
          }
          if (st->has_null_count) fprintf(out, " nulls %lld", (long long)st->null_count);
          fputc('\n', out);
        }
      }
    }
  } else {
    json_t *root = json_object();
    json_object_set_new(root, "file", json_string(path));
    json_object_set_new(root, "format", json_string("parquet"));
    json_object_set_new(root, "version", json_integer(m->version));
    json_object_set_new(root, "created_by", j_str(m->created_by));
    json_object_set_new(root, "num_rows", json_integer(m->num_rows));
    json_object_set_new(root, "iceberg_schema", json_string((char *)b.data));
    json_object_set_new(root, "iceberg_fields", json_fields(&sc->root, &s1));
    json_t *els = json_array();
    for (uint32_t i = 0; i < m->nschema; i++) {
      const pq_schema_element_t *e = &m->schema[i];
      json_t *o = json_object();
      json_object_set_new(o, "name", j_bytes_str(e->name));
      if (e->has_type) json_object_set_new(o, "type", json_string(pq_type_name(e->type)));
      if (e->has_type_length) json_object_set_new(o, "type_length", json_integer(e->type_length));
      if (e->has_repetition) json_object_set_new(o, "repetition", json_string(rep_name(e)));
      if (e->has_num_children) json_object_set_new(o, "num_children", json_integer(e->num_children));
      logical_name(e, lb, sizeof lb);
      if (lb[0]) json_object_set_new(o, "logical_type", json_string(lb));
      if (e->has_field_id) json_object_set_new(o, "field_id", json_integer(e->field_id));
      json_array_append_new(els, o);
    }
    json_object_set_new(root, "parquet_schema", els);
    json_t *kv = json_object();
    for (uint32_t i = 0; i < m->nkey_value; i++) {
      const pq_key_value_t *p = &m->key_value_metadata[i];
      json_t *v = p->value ? json_string(p->value) : json_null();
      json_object_set_new(kv, p->key, v ? v : json_null());
    }
    json_object_set_new(root, "key_value_metadata", kv);
    json_t *rgs = json_array();
    for (uint32_t g = 0; g < m->nrow_groups; g++) {
      const pq_row_group_t *rg = &m->row_groups[g];
      json_t *o = json_object();
      json_object_set_new(o, "num_rows", json_integer(rg->num_rows));
      json_object_set_new(o, "total_byte_size", json_integer(rg->total_byte_size));
      if (rg->has_total_compressed_size)
        json_object_set_new(o, "total_compressed_size", json_integer(rg->total_compressed_size));
      json_t *cols = json_array();
      for (uint32_t c = 0; c < rg->ncolumns && c < ps->nleaves; c++) {
        const pq_column_chunk_t *cc = &rg->columns[c];
        const pq_column_meta_t *md = &cc->meta_data;
        const pq_node_t *lf = ps->leaves[c];
        json_t *co = json_object();
        json_object_set_new(co, "path", json_string(lf->path));
        json_object_set_new(co, "field_id", json_integer(lf->field.id));
        json_object_set_new(co, "physical_type", json_string(pq_type_name(md->type)));
        logical_name(lf->el, lb, sizeof lb);
        if (lb[0]) json_object_set_new(co, "logical_type", json_string(lb));
        fl_buf_clear(&s1);
        ty_type_format(lf->field.type, &s1);
        fl_buf_append_u8(&s1, 0);
        json_object_set_new(co, "iceberg_type", json_string((char *)s1.data));
        json_object_set_new(co, "codec", json_string(pq_codec_name(md->codec)));
        json_t *encs = json_array();
        for (uint32_t e = 0; e < md->nencodings; e++)
          json_array_append_new(encs, json_string(pq_encoding_name(md->encodings[e])));
        json_object_set_new(co, "encodings", encs);
        json_object_set_new(co, "num_values", json_integer(md->num_values));
        json_object_set_new(co, "total_compressed_size", json_integer(md->total_compressed_size));
        json_object_set_new(co, "total_uncompressed_size", json_integer(md->total_uncompressed_size));
        json_object_set_new(co, "data_page_offset", json_integer(md->data_page_offset));
        if (md->has_dictionary_page_offset)
          json_object_set_new(co, "dictionary_page_offset", json_integer(md->dictionary_page_offset));
        json_object_set_new(co, "column_index", json_boolean(cc->has_column_index));
        json_object_set_new(co, "offset_index", json_boolean(cc->has_offset_index));
        if (md->has_statistics) {
          const pq_statistics_t *st = &md->statistics;
          json_t *so = json_object();
          const pq_bytes_t *mn = st->has_min_value ? &st->min_value : st->has_min ? &st->min : NULL;
          const pq_bytes_t *mx = st->has_max_value ? &st->max_value : st->has_max ? &st->max : NULL;
          if (mn) {
            fmt_stat(lf, mn, &s1);
            json_object_set_new(so, "min", j_bytes_str((char *)s1.data));
          }
          if (mx) {
            fmt_stat(lf, mx, &s2);
            json_object_set_new(so, "max", j_bytes_str((char *)s2.data));
          }
          if (st->has_null_count) json_object_set_new(so, "null_count", json_integer(st->null_count));
          json_object_set_new(co, "statistics", so);
        }
        json_array_append_new(cols, co);
      }
      json_object_set_new(o, "columns", cols);
      json_array_append_new(rgs, o);
    }
    json_object_set_new(root, "row_groups", rgs);
    char *txt = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    if (txt) {
      fputs(txt, out);
      fputc('\n', out);
      free(txt);
    }
    json_decref(root);
  }
  fl_buf_free(&b);
  fl_buf_free(&s1);
  fl_buf_free(&s2);
done:
  fl_arena_free(a);
  pq_reader_close(r);
  return rc;
}
