/*
 * ice_dv_write.c - writing deletion vectors (layer 5, iceberg).
 *
 * Iceberg v3 replaces position delete files with deletion vectors: per
 * data file one bitmap of deleted positions, a blob of type
 * deletion-vector-v1 inside a Puffin file. The blob is a big-endian
 * length (of what follows up to the CRC), the magic D1 D3 39 64, the
 * positions as a 64-bit Roaring bitmap in the portable layout (a little-
 * endian count of 32-bit bitmaps, each a key of the positions' high 32
 * bits and a standard Roaring bitmap of the low 32 bits) and a big-endian
 * CRC-32 of magic and bitmap. The 32-bit bitmaps are written without run
 * containers (cookie 12346, with the offset header): array containers for
 * up to 4096 positions of a 65536-wide chunk, bitmap containers above.
 *
 * The Puffin file is "PFA1", the blob at offset 4, then the footer:
 * "PFA1", a JSON payload listing the blob (type, fields [the row position
 * id], snapshot-id and sequence-number -1 as Java writes them, offset,
 * length, properties referenced-data-file and cardinality), the payload's
 * length (4 bytes little-endian), four flag bytes (0: uncompressed) and
 * "PFA1". One file holds one vector, so that replacing a data file's
 * vector later removes its whole file.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/hash.h"
#include "iceberg/ice_dv.h"
#include "iceberg/ice_meta.h"

static void put_be32(fl_buf_t *b, uint32_t v) {
  uint8_t x[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
  fl_buf_append(b, x, 4);
}

static void put_le16(fl_buf_t *b, uint16_t v) {
  uint8_t x[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
  fl_buf_append(b, x, 2);
}

/* One standard 32-bit Roaring bitmap of the low halves of p[0..n). */
static void roaring32(fl_buf_t *b, const int64_t *p, size_t n) {
  /* Containers: runs of equal bits 16..31. */
  size_t nc = 0;
  for (size_t i = 0; i < n; i++)
    if (i == 0 || ((uint32_t)p[i] >> 16) != ((uint32_t)p[i - 1] >> 16)) nc++;
  size_t start = b->len;
  fl_buf_append_le32(b, 12346);
  fl_buf_append_le32(b, (uint32_t)nc);
  size_t *first = fl_malloc((nc + 1) * sizeof *first);
  size_t c = 0;
  for (size_t i = 0; i < n; i++)
    if (i == 0 || ((uint32_t)p[i] >> 16) != ((uint32_t)p[i - 1] >> 16)) first[c++] = i;
  first[nc] = n;
  for (size_t k = 0; k < nc; k++) {
    put_le16(b, (uint16_t)((uint32_t)p[first[k]] >> 16));
    put_le16(b, (uint16_t)(first[k + 1] - first[k] - 1));
  }
  /* The offset header: where each container starts, from the cookie. */
  size_t off = b->len - start + 4 * nc;
  for (size_t k = 0; k < nc; k++) {
    fl_buf_append_le32(b, (uint32_t)off);
    size_t card = first[k + 1] - first[k];
    off += card > 4096 ? 8192 : 2 * card;
  }
  for (size_t k = 0; k < nc; k++) {
    size_t card = first[k + 1] - first[k];
    if (card > 4096) {
      uint64_t words[1024] = {0};
      for (size_t i = first[k]; i < first[k + 1]; i++) {
        uint32_t lo = (uint32_t)p[i] & 0xFFFF;
        words[lo / 64] |= (uint64_t)1 << (lo % 64);
      }
      for (int w = 0; w < 1024; w++) fl_buf_append_le64(b, words[w]);
    } else {
      for (size_t i = first[k]; i < first[k + 1]; i++) put_le16(b, (uint16_t)(p[i] & 0xFFFF));
    }
  }
  fl_free(first);
}

void ice_dv_encode(const int64_t *pos, size_t n, fl_buf_t *out) {
  fl_buf_t bm;
  fl_buf_init(&bm);
  fl_buf_append(&bm, "\xD1\xD3\x39\x64", 4);
  size_t nb = 0;
  for (size_t i = 0; i < n; i++)
    if (i == 0 || (pos[i] >> 32) != (pos[i - 1] >> 32)) nb++;
  fl_buf_append_le64(&bm, nb);
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && (pos[j] >> 32) == (pos[i] >> 32)) j++;
    fl_buf_append_le32(&bm, (uint32_t)(pos[i] >> 32));
    roaring32(&bm, pos + i, j - i);
    i = j;
  }
  put_be32(out, (uint32_t)bm.len);
  fl_buf_append(out, bm.data, bm.len);
  put_be32(out, fl_crc32(0, bm.data, bm.len));
  fl_buf_free(&bm);
}

static void put_json_string(fl_buf_t *b, const char *s) {
  fl_buf_append_u8(b, '"');
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\') {
      fl_buf_append_u8(b, '\\');
      fl_buf_append_u8(b, ch);
    } else if (ch < 0x20) {
      fl_buf_printf(b, "\\u%04x", ch);
    } else {
      fl_buf_append_u8(b, ch);
    }
  }
  fl_buf_append_u8(b, '"');
}

int ice_dv_write(const ice_table_t *t, const ice_data_file_t *data, const int64_t *pos, size_t n,
                 fl_arena_t *a, ice_data_file_t *out, fl_err_t *err) {
  for (size_t i = 0; i < n; i++)
    if (pos[i] < 0 || (i && pos[i] <= pos[i - 1]))
      return fl_err_set(err, FL_EINVALID,
                        "deletion vector for %s: positions must be sorted, distinct and >= 0",
                        data->path);
  fl_buf_t f;
  fl_buf_init(&f);
  fl_buf_append(&f, "PFA1", 4);
  ice_dv_encode(pos, n, &f);
  size_t blob_len = f.len - 4;
  fl_buf_append(&f, "PFA1", 4);
  fl_buf_t js;
  fl_buf_init(&js);
  fl_buf_printf(&js,
                "{\"blobs\":[{\"type\":\"deletion-vector-v1\",\"fields\":[%d],\"snapshot-id\":-1,"
                "\"sequence-number\":-1,\"offset\":4,\"length\":%zu,\"properties\":{"
                "\"referenced-data-file\":",
                (int)2147483645, blob_len);
  put_json_string(&js, data->path);
  fl_buf_printf(&js, ",\"cardinality\":\"%zu\"}}],\"properties\":{\"created-by\":\"floe\"}}", n);
  fl_buf_append(&f, js.data, js.len);
  fl_buf_append_le32(&f, (uint32_t)js.len);
  fl_buf_append_le32(&f, 0);
  fl_buf_append(&f, "PFA1", 4);
  fl_buf_free(&js);

  const char *dp = ice_meta_property(t->meta, "write.data.path");
  char uuid[37];
  ice_new_uuid(uuid);
  const char *path;
  if (dp && *dp)
    path = fl_arena_sprintf(a, "%s/%s-deletes.puffin", dp, uuid);
  else
    path = fl_arena_sprintf(a, "%s/data/%s-deletes.puffin", t->meta->location, uuid);
  const char *fs_path = ice_table_path(t, a, path);
  io_writer_t *w;
  int rc = t->fs->create(t->fs, fs_path, true, &w, err);
  if (!rc) {
    rc = w->write(w, f.data, f.len, err);
    if (!rc)
      rc = w->commit(w, err);
    else
      w->abort(w);
  }
  size_t total = f.len;
  fl_buf_free(&f);
  if (rc) return fl_err_prefix(err, "deletion vector %s: ", path);
  memset(out, 0, sizeof *out);
  out->content = ICE_CONTENT_POSITION_DELETES;
  out->path = path;
  out->format = "PUFFIN";
  out->spec_id = data->spec_id;
  out->npartition = data->npartition;
  out->partition = data->partition;
  out->record_count = (int64_t)n;
  out->file_size = (int64_t)total;
  out->sort_order_id = -1;
  out->referenced_data_file = fl_arena_strdup(a, data->path);
  out->first_row_id = -1;
  out->content_offset = 4;
  out->content_size = (int64_t)blob_len;
  return FL_OK;
}
