/*
 * write_opts.h - the file-writing options shared by convert and generate
 * (layer 12, cli).
 */
#ifndef FL_CLI_WRITE_OPTS_H
#define FL_CLI_WRITE_OPTS_H

#include "cli/args.h"
#include "format/format.h"

/* Option specs for --compression, --row-group-size, --page-size, ... */
#define CLI_WRITE_OPT_SPECS                                                       \
  {"compression", true}, {"compression-level", true}, {"row-group-size", true},   \
      {"row-group-bytes", true}, {"page-size", true}, {"dictionary-page-size", true}, \
      {"no-dictionary", false}, {"page-v2", false}, {"delimiter", true}

/* Fills opts from parsed args; prints an error and returns 2 when malformed. */
int cli_write_opts_from_args(const char *cmd, const cli_args_t *a, fmt_write_opts_t *opts);

#define CLI_WRITE_OPTS_HELP                                                           \
  "  --compression C       Parquet: zstd (default), snappy, gzip, lz4_raw, uncompressed;\n" \
  "                        Avro: deflate, snappy, zstd, null\n"                         \
  "  --compression-level N codec level (default: the codec's)\n"                        \
  "  --row-group-size N    Parquet rows per row group (default 1048576)\n"              \
  "  --row-group-bytes N   Parquet bytes per row group (default 128M)\n"                \
  "  --page-size N         Parquet data page bytes (default 1M)\n"                      \
  "  --dictionary-page-size N  dictionary bytes before falling back to PLAIN (default 1M)\n" \
  "  --no-dictionary       Parquet: PLAIN encoding only\n"                              \
  "  --page-v2             Parquet: data pages v2\n"                                    \
  "  --delimiter C         CSV field separator (default ',')\n"

#endif
