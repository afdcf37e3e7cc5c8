/*
 * format.c - picks a file format by extension and dispatches to it
 * (layer 4, format).
 */
#include "format/format.h"

#include <string.h>
#include <strings.h>

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcasecmp(s + n - m, suffix) == 0;
}

fmt_kind_t fmt_kind_from_path(const char *path) {
  if (ends_with(path, ".parquet") || ends_with(path, ".parq") || ends_with(path, ".pq")) return FMT_PARQUET;
  if (ends_with(path, ".avro")) return FMT_AVRO;
  if (ends_with(path, ".jsonl") || ends_with(path, ".ndjson") || ends_with(path, ".json"))
    return FMT_JSONL;
  if (ends_with(path, ".csv") || ends_with(path, ".tsv")) return FMT_CSV;
  return FMT_UNKNOWN;
}

const char *fmt_kind_name(fmt_kind_t k) {
  switch (k) {
    case FMT_PARQUET: return "parquet";
    case FMT_AVRO: return "avro";
    case FMT_JSONL: return "jsonl";
    case FMT_CSV: return "csv";
    default: return "unknown";
  }
}

static int find_impl(const char *path, fmt_kind_t k, const fmt_impl_t **out, fl_err_t *err) {
  if (k == FMT_UNKNOWN) k = fmt_kind_from_path(path);
  if (k == FMT_UNKNOWN)
    return fl_err_set(err, FL_EINVALID,
                      "%s: unknown file format (use .parquet, .avro, .jsonl or .csv)", path);
  for (const fmt_impl_t *const *i = fmt_impls; *i; i++)
    if ((*i)->kind == k) {
      *out = *i;
      return FL_OK;
    }
  return fl_err_set(err, FL_EUNSUPPORTED, "%s: the %s format is not built into this floe", path,
                    fmt_kind_name(k));
}

int fmt_open_reader(io_fs_t *fs, const char *path, const fmt_read_opts_t *opts, fmt_reader_t **out,
                    fl_err_t *err) {
  const fmt_impl_t *impl;
  int rc = find_impl(path, opts ? opts->kind : FMT_UNKNOWN, &impl, err);
  if (rc) return rc;
  if (!impl->open_reader)
    return fl_err_set(err, FL_EUNSUPPORTED, "%s: cannot read %s files", path, fmt_kind_name(impl->kind));
  fmt_read_opts_t defaults = {0};
  return impl->open_reader(fs, path, opts ? opts : &defaults, out, err);
}

int fmt_open_writer(io_fs_t *fs, const char *path, const ty_schema_t *schema,
                    const fmt_write_opts_t *opts, fmt_writer_t **out, fl_err_t *err) {
  const fmt_impl_t *impl;
  int rc = find_impl(path, FMT_UNKNOWN, &impl, err);
  if (rc) return rc;
  if (!impl->open_writer)
    return fl_err_set(err, FL_EUNSUPPORTED, "%s: cannot write %s files", path, fmt_kind_name(impl->kind));
  fmt_write_opts_t defaults = {0};
  return impl->open_writer(fs, path, schema, opts ? opts : &defaults, out, err);
}

int fmt_inspect(io_fs_t *fs, const char *path, bool json, FILE *out, fl_err_t *err) {
  const fmt_impl_t *impl;
  int rc = find_impl(path, FMT_UNKNOWN, &impl, err);
  if (rc) return rc;
  if (!impl->inspect)
    return fl_err_set(err, FL_EUNSUPPORTED, "%s: floe inspect reads Parquet and Avro files, not %s",
                      path, fmt_kind_name(impl->kind));
  return impl->inspect(fs, path, json, out, err);
}
