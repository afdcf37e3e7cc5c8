/*
 * evolve_tool.c - a test-only driver of schema and partition evolution
 * (ice_evolve.h) for the interop tests: creates table metadata and
 * commits evolution changes to it, one metadata file per change.
 *
 *   evolve_tool create LOCATION SCHEMA [SPEC [FORMAT_VERSION [NAME_MAPPING]]]
 *   evolve_tool apply METADATA_FILE CHANGE...
 *
 * SCHEMA is ty_schema_parse text ("id long not null, ts timestamptz"),
 * SPEC ice_spec_parse text ("day(ts), bucket(4, id)", "" for none), and
 * NAME_MAPPING the schema.name-mapping.default JSON, and
 * CHANGE the words ice_evolve_parse reads ("add-column" "c string" ...).
 * Both print the path of the metadata file they wrote; errors go to
 * stderr with exit status 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "iceberg/ice_evolve.h"
#include "io/fs.h"

/* The catalog of one table: the metadata file named on the command line. */
typedef struct file_catalog {
  char *current;
} file_catalog_t;

static int fc_current(void *ctx, char **out, fl_err_t *err) {
  (void)err;
  *out = fl_strdup(((file_catalog_t *)ctx)->current);
  return FL_OK;
}

static int fc_swap(void *ctx, const char *old, const char *new_loc, fl_err_t *err) {
  file_catalog_t *c = ctx;
  if (strcmp(old, c->current) != 0)
    return fl_err_set_retriable(err, FL_ECONFLICT, "%s is no longer current", old);
  fl_free(c->current);
  c->current = fl_strdup(new_loc);
  return FL_OK;
}

static int fail(const char *what, const fl_err_t *err) {
  fprintf(stderr, "evolve_tool: %s: %s\n", what, err->msg);
  return 1;
}

static int create(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: evolve_tool create LOCATION SCHEMA [SPEC [FORMAT_VERSION]]\n");
    return 2;
  }
  const char *location = argv[2];
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  io_fs_t *fs = io_local_fs();
  ty_schema_t *schema;
  if (ty_schema_parse(a, argv[3], &schema, &err)) return fail("schema", &err);
  ice_spec_t *spec = NULL;
  if (argc > 4 && argv[4][0]) {
    int32_t last = 999;
    if (ice_spec_parse(a, argv[4], schema, 0, &last, &spec, &err)) return fail("spec", &err);
  }
  ice_kv_t props[] = {{"format-version", argc > 5 ? argv[5] : "2"},
                      {"schema.name-mapping.default", argc > 6 ? argv[6] : ""}};
  ice_meta_t *m;
  if (ice_meta_new(schema, spec, NULL, location, props, argc > 6 ? 2 : 1, &m, &err))
    return fail("create", &err);
  char *path = ice_metadata_file_name(a, location, NULL);
  if (fs->mkdirs(fs, fl_arena_sprintf(a, "%s/metadata", location), &err))
    return fail("mkdirs", &err);
  if (ice_meta_write(fs, path, m, &err)) return fail(path, &err);
  printf("%s\n", path);
  ice_meta_free(m);
  fl_arena_free(a);
  return 0;
}

static int apply(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: evolve_tool apply METADATA_FILE CHANGE...\n");
    return 2;
  }
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err = {0};
  file_catalog_t cat = {.current = fl_strdup(argv[2])};
  ice_committer_t cm = {.ctx = &cat, .current = fc_current, .swap = fc_swap};
  ice_table_t *t;
  if (ice_table_load(io_local_fs(), "table", argv[2], &cm, &t, &err)) return fail("load", &err);
  ice_evolve_op_t *ops;
  uint32_t n;
  if (ice_evolve_parse(a, argc - 3, (const char *const *)argv + 3, &ops, &n, &err))
    return fail("parse", &err);
  if (ice_evolve_apply(t, ops, n, &err)) return fail("apply", &err);
  printf("%s\n", cat.current);
  ice_table_free(t);
  fl_free(cat.current);
  fl_arena_free(a);
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "create") == 0) return create(argc, argv);
  if (argc > 1 && strcmp(argv[1], "apply") == 0) return apply(argc, argv);
  fprintf(stderr, "usage: evolve_tool create|apply ...\n");
  return 2;
}
