/*
 * pq_meta_write.c - the Thrift compact protocol encoder for Parquet's footer,
 * page headers and page indexes (layer 4, format/parquet).
 *
 * The compact protocol writes each field as a header byte holding the
 * delta from the previous field id (1..15) and the field's compact type,
 * or the type alone followed by the zigzag id when the delta does not fit;
 * integers are zigzag varints, binaries a varint length and the bytes,
 * booleans live in the field header itself, lists a size/type header and
 * the elements, and a struct ends with a 0 byte. Field ids follow
 * parquet.thrift exactly.
 */
#include "format/parquet/pq_meta.h"
#include "format/parquet/pq_thrift.h"


#define TW_DEPTH 16

/* One encoder: the output and the last field id of each open struct. */
typedef struct tw {
  fl_buf_t *out;
  int depth;
  int16_t last[TW_DEPTH];
} tw_t;

static void tw_init(tw_t *w, fl_buf_t *out) {
  w->out = out;
  w->depth = 0;
  w->last[0] = 0;
}

static void field(tw_t *w, int type, int16_t id) {
  int16_t delta = (int16_t)(id - w->last[w->depth]);
  if (delta > 0 && delta <= 15) {
    fl_buf_append_u8(w->out, (uint8_t)((delta << 4) | type));
  } else {
    fl_buf_append_u8(w->out, (uint8_t)type);
    fl_buf_append_zvarint(w->out, id);
  }
  w->last[w->depth] = id;
}

static void f_i32(tw_t *w, int16_t id, int32_t v) {
  field(w, CT_I32, id);
  fl_buf_append_zvarint(w->out, v);
}
static void f_i64(tw_t *w, int16_t id, int64_t v) {
  field(w, CT_I64, id);
  fl_buf_append_zvarint(w->out, v);
}
static void f_i16(tw_t *w, int16_t id, int16_t v) {
  field(w, CT_I16, id);
  fl_buf_append_zvarint(w->out, v);
}
static void f_i8(tw_t *w, int16_t id, int8_t v) {
  field(w, CT_BYTE, id);
  fl_buf_append_u8(w->out, (uint8_t)v);
}
static void f_bool(tw_t *w, int16_t id, bool v) { field(w, v ? CT_TRUE : CT_FALSE, id); }
static void bin(tw_t *w, const void *p, size_t n) {
  fl_buf_append_uvarint(w->out, n);
  fl_buf_append(w->out, p, n);
}
static void f_bin(tw_t *w, int16_t id, const void *p, size_t n) {
  field(w, CT_BINARY, id);
  bin(w, p, n);
}
static void f_str(tw_t *w, int16_t id, const char *s) { f_bin(w, id, s, strlen(s)); }

/* Opens a struct: as field id (id > 0) or as a list element (id == 0). */
static void s_begin(tw_t *w, int16_t id) {
  if (id) field(w, CT_STRUCT, id);
  w->depth++;
  w->last[w->depth] = 0;
}
static void s_end(tw_t *w) {
  fl_buf_append_u8(w->out, CT_STOP);
  w->depth--;
}
/* Closes a top-level struct written without s_begin. */
static void top_end(tw_t *w) { fl_buf_append_u8(w->out, CT_STOP); }

static void list_header(tw_t *w, int elem_type, uint32_t n) {
  if (n < 15) {
    fl_buf_append_u8(w->out, (uint8_t)((n << 4) | elem_type));
  } else {
    fl_buf_append_u8(w->out, (uint8_t)(0xF0 | elem_type));
    fl_buf_append_uvarint(w->out, n);
  }
}
static void f_list(tw_t *w, int16_t id, int elem_type, uint32_t n) {
  field(w, CT_LIST, id);
  list_header(w, elem_type, n);
}

static void write_stats(tw_t *w, int16_t id, const pq_statistics_t *s) {
  s_begin(w, id);
  if (s->has_max) f_bin(w, 1, s->max.p, s->max.n);
  if (s->has_min) f_bin(w, 2, s->min.p, s->min.n);
  if (s->has_null_count) f_i64(w, 3, s->null_count);
  if (s->has_distinct_count) f_i64(w, 4, s->distinct_count);
  if (s->has_max_value) f_bin(w, 5, s->max_value.p, s->max_value.n);
  if (s->has_min_value) f_bin(w, 6, s->min_value.p, s->min_value.n);
  if (s->has_is_max_value_exact) f_bool(w, 7, s->is_max_value_exact);
  if (s->has_is_min_value_exact) f_bool(w, 8, s->is_min_value_exact);
  s_end(w);
}

static void write_kv_list(tw_t *w, int16_t id, const pq_key_value_t *kv, uint32_t n) {
  f_list(w, id, CT_STRUCT, n);
  for (uint32_t i = 0; i < n; i++) {
    s_begin(w, 0);
    f_str(w, 1, kv[i].key);
    if (kv[i].value) f_str(w, 2, kv[i].value);
    s_end(w);
  }
}

static void write_time_unit(tw_t *w, int16_t id, pq_time_unit_t unit) {
  s_begin(w, id);
  s_begin(w, (int16_t)unit); /* MILLIS 1, MICROS 2, NANOS 3: empty structs */
  s_end(w);
  s_end(w);
}

static void write_logical(tw_t *w, int16_t id, const pq_logical_type_t *lt) {
  s_begin(w, id);
  s_begin(w, (int16_t)lt->kind);
  switch (lt->kind) {
    case PQ_LT_DECIMAL:
      f_i32(w, 1, lt->decimal_scale);
      f_i32(w, 2, lt->decimal_precision);
      break;
    case PQ_LT_TIME:
    case PQ_LT_TIMESTAMP:
      f_bool(w, 1, lt->is_adjusted_to_utc);
      write_time_unit(w, 2, lt->unit);
      break;
    case PQ_LT_INTEGER:
      f_i8(w, 1, lt->int_bit_width);
      f_bool(w, 2, lt->int_is_signed);
      break;
    default: break; /* the other members are empty structs */
  }
  s_end(w);
  s_end(w);
}

static void write_schema_element(tw_t *w, const pq_schema_element_t *e) {
  s_begin(w, 0);
  if (e->has_type) f_i32(w, 1, (int32_t)e->type);
  if (e->has_type_length) f_i32(w, 2, e->type_length);
  if (e->has_repetition) f_i32(w, 3, (int32_t)e->repetition);
  f_str(w, 4, e->name ? e->name : "");
  if (e->has_num_children) f_i32(w, 5, e->num_children);
  if (e->has_converted_type) f_i32(w, 6, (int32_t)e->converted_type);
  if (e->has_scale) f_i32(w, 7, e->scale);
  if (e->has_precision) f_i32(w, 8, e->precision);
  if (e->has_field_id) f_i32(w, 9, e->field_id);
  if (e->has_logical_type && e->logical_type.kind != PQ_LT_NONE)
    write_logical(w, 10, &e->logical_type);
  s_end(w);
}

static void write_column_meta(tw_t *w, int16_t id, const pq_column_meta_t *m) {
  s_begin(w, id);
  f_i32(w, 1, (int32_t)m->type);
  f_list(w, 2, CT_I32, m->nencodings);
  for (uint32_t i = 0; i < m->nencodings; i++)
    fl_buf_append_zvarint(w->out, (int32_t)m->encodings[i]);
  f_list(w, 3, CT_BINARY, m->npath);
  for (uint32_t i = 0; i < m->npath; i++)
    bin(w, m->path_in_schema[i], strlen(m->path_in_schema[i]));
  f_i32(w, 4, (int32_t)m->codec);
  f_i64(w, 5, m->num_values);
  f_i64(w, 6, m->total_uncompressed_size);
  f_i64(w, 7, m->total_compressed_size);
  if (m->nkey_value) write_kv_list(w, 8, m->key_value_metadata, m->nkey_value);
  f_i64(w, 9, m->data_page_offset);
  if (m->has_index_page_offset) f_i64(w, 10, m->index_page_offset);
  if (m->has_dictionary_page_offset) f_i64(w, 11, m->dictionary_page_offset);
  if (m->has_statistics) write_stats(w, 12, &m->statistics);
  if (m->nencoding_stats) {
    f_list(w, 13, CT_STRUCT, m->nencoding_stats);
    for (uint32_t i = 0; i < m->nencoding_stats; i++) {
      s_begin(w, 0);
      f_i32(w, 1, (int32_t)m->encoding_stats[i].page_type);
      f_i32(w, 2, (int32_t)m->encoding_stats[i].encoding);
      f_i32(w, 3, m->encoding_stats[i].count);
      s_end(w);
    }
  }
  if (m->has_bloom_filter_offset) f_i64(w, 14, m->bloom_filter_offset);
  if (m->has_bloom_filter_length) f_i32(w, 15, m->bloom_filter_length);
  s_end(w);
}

static void write_column_chunk(tw_t *w, const pq_column_chunk_t *c) {
  s_begin(w, 0);
  if (c->file_path) f_str(w, 1, c->file_path);
  f_i64(w, 2, c->file_offset);
  if (c->has_meta_data) write_column_meta(w, 3, &c->meta_data);
  if (c->has_offset_index) {
    f_i64(w, 4, c->offset_index_offset);
    f_i32(w, 5, c->offset_index_length);
  }
  if (c->has_column_index) {
    f_i64(w, 6, c->column_index_offset);
    f_i32(w, 7, c->column_index_length);
  }
  s_end(w);
}

static void write_row_group(tw_t *w, const pq_row_group_t *g) {
  s_begin(w, 0);
  f_list(w, 1, CT_STRUCT, g->ncolumns);
  for (uint32_t i = 0; i < g->ncolumns; i++) write_column_chunk(w, &g->columns[i]);
  f_i64(w, 2, g->total_byte_size);
  f_i64(w, 3, g->num_rows);
  if (g->nsorting_columns) {
    f_list(w, 4, CT_STRUCT, g->nsorting_columns);
    for (uint32_t i = 0; i < g->nsorting_columns; i++) {
      s_begin(w, 0);
      f_i32(w, 1, g->sorting_columns[i].column_idx);
      f_bool(w, 2, g->sorting_columns[i].descending);
      f_bool(w, 3, g->sorting_columns[i].nulls_first);
      s_end(w);
    }
  }
  if (g->has_file_offset) f_i64(w, 5, g->file_offset);
  if (g->has_total_compressed_size) f_i64(w, 6, g->total_compressed_size);
  if (g->has_ordinal) f_i16(w, 7, g->ordinal);
  s_end(w);
}

void pq_meta_write_file(const pq_file_meta_t *m, fl_buf_t *out) {
  tw_t w;
  tw_init(&w, out);
  f_i32(&w, 1, m->version);
  f_list(&w, 2, CT_STRUCT, m->nschema);
  for (uint32_t i = 0; i < m->nschema; i++) write_schema_element(&w, &m->schema[i]);
  f_i64(&w, 3, m->num_rows);
  f_list(&w, 4, CT_STRUCT, m->nrow_groups);
  for (uint32_t i = 0; i < m->nrow_groups; i++) write_row_group(&w, &m->row_groups[i]);
  if (m->nkey_value) write_kv_list(&w, 5, m->key_value_metadata, m->nkey_value);
  if (m->created_by) f_str(&w, 6, m->created_by);
  if (m->ncolumn_orders) {
    /* ColumnOrder is a union whose only member is TYPE_ORDER (an empty struct). */
    f_list(&w, 7, CT_STRUCT, m->ncolumn_orders);
    for (uint32_t i = 0; i < m->ncolumn_orders; i++) {
      s_begin(&w, 0);
      s_begin(&w, 1);
      s_end(&w);
      s_end(&w);
    }
  }
  top_end(&w);
}

void pq_meta_write_page_header(const pq_page_header_t *h, fl_buf_t *out) {
  tw_t w;
  tw_init(&w, out);
  f_i32(&w, 1, (int32_t)h->type);
  f_i32(&w, 2, h->uncompressed_page_size);
  f_i32(&w, 3, h->compressed_page_size);
  if (h->has_crc) f_i32(&w, 4, h->crc);
  if (h->has_data_page_header) {
    const pq_data_page_header_t *d = &h->data_page_header;
    s_begin(&w, 5);
    f_i32(&w, 1, d->num_values);
    f_i32(&w, 2, (int32_t)d->encoding);
    f_i32(&w, 3, (int32_t)d->definition_level_encoding);
    f_i32(&w, 4, (int32_t)d->repetition_level_encoding);
    if (d->has_statistics) write_stats(&w, 5, &d->statistics);
    s_end(&w);
  }
  if (h->has_dictionary_page_header) {
    const pq_dictionary_page_header_t *d = &h->dictionary_page_header;
    s_begin(&w, 7);
    f_i32(&w, 1, d->num_values);
    f_i32(&w, 2, (int32_t)d->encoding);
    if (d->has_is_sorted) f_bool(&w, 3, d->is_sorted);
    s_end(&w);
  }
  if (h->has_data_page_header_v2) {
    const pq_data_page_header_v2_t *d = &h->data_page_header_v2;
    s_begin(&w, 8);
    f_i32(&w, 1, d->num_values);
    f_i32(&w, 2, d->num_nulls);
    f_i32(&w, 3, d->num_rows);
    f_i32(&w, 4, (int32_t)d->encoding);
    f_i32(&w, 5, d->definition_levels_byte_length);
    f_i32(&w, 6, d->repetition_levels_byte_length);
    f_bool(&w, 7, d->is_compressed);
    if (d->has_statistics) write_stats(&w, 8, &d->statistics);
    s_end(&w);
  }
  top_end(&w);
}

void pq_meta_write_column_index(const pq_column_index_t *ci, fl_buf_t *out) {
  tw_t w;
  tw_init(&w, out);
  f_list(&w, 1, CT_TRUE, ci->npages);
  /* Booleans inside lists are one byte each: 1 true, 2 false (as Thrift's
   * Java and C++ libraries write them). */
  for (uint32_t i = 0; i < ci->npages; i++)
    fl_buf_append_u8(out, ci->null_pages[i] ? CT_TRUE : CT_FALSE);
  f_list(&w, 2, CT_BINARY, ci->npages);
  for (uint32_t i = 0; i < ci->npages; i++) bin(&w, ci->min_values[i].p, ci->min_values[i].n);
  f_list(&w, 3, CT_BINARY, ci->npages);
  for (uint32_t i = 0; i < ci->npages; i++) bin(&w, ci->max_values[i].p, ci->max_values[i].n);
  f_i32(&w, 4, (int32_t)ci->boundary_order);
  if (ci->has_null_counts) {
    f_list(&w, 5, CT_I64, ci->npages);
    for (uint32_t i = 0; i < ci->npages; i++) fl_buf_append_zvarint(out, ci->null_counts[i]);
  }
  top_end(&w);
}

void pq_meta_write_offset_index(const pq_offset_index_t *oi, fl_buf_t *out) {
  tw_t w;
  tw_init(&w, out);
  f_list(&w, 1, CT_STRUCT, oi->npages);
  for (uint32_t i = 0; i < oi->npages; i++) {
    s_begin(&w, 0);
    f_i64(&w, 1, oi->page_locations[i].offset);
    f_i32(&w, 2, oi->page_locations[i].compressed_page_size);
    f_i64(&w, 3, oi->page_locations[i].first_row_index);
    s_end(&w);
  }
  if (oi->nunencoded) {
    f_list(&w, 2, CT_I64, oi->nunencoded);
    for (uint32_t i = 0; i < oi->nunencoded; i++)
      fl_buf_append_zvarint(out, oi->unencoded_byte_array_data_bytes[i]);
  }
  top_end(&w);
}
