/*
 * table_evolve.c - `floe table evolve NAME OP...`: schema and partition
 * evolution in one metadata commit (layer 12, cli).
 */
#include <stdio.h>

#include "base/arena.h"
#include "base/buf.h"
#include "cli/session.h"
#include "cli/table_cmds.h"
#include "iceberg/ice_evolve.h"

int cli_table_evolve(cat_catalog_t *c, int argc, char **argv) {
  if (argc < 2) return cli_table_usage("evolve", "expected NAME and at least one change");
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  fl_err_clear(&err);
  ice_evolve_op_t *ops;
  uint32_t n;
  if (ice_evolve_parse(a, argc - 1, (const char *const *)argv + 1, &ops, &n, &err)) {
    fl_arena_free(a);
    return cli_table_usage("evolve", "%s", err.msg);
  }
  ice_table_t *t;
  if (cli_session_table("table evolve", c, argv[0], &t)) {
    fl_arena_free(a);
    return 1;
  }
  int status = 0;
  if (ice_evolve_apply(t, ops, n, &err)) {
    status = cli_fail("table evolve", "%s", err.msg);
  } else {
    const ty_schema_t *s = ice_meta_schema(t->meta);
    fl_buf_t b;
    fl_buf_init(&b);
    ty_schema_format(s, &b);
    const ice_spec_t *spec = ice_meta_spec(t->meta);
    printf("%s: schema %d: %.*s; partition spec %d (%u fields)\n", t->ident, s->schema_id,
           (int)b.len, (const char *)b.data, spec ? spec->spec_id : 0, spec ? spec->nfields : 0);
    fl_buf_free(&b);
  }
  ice_table_free(t);
  fl_arena_free(a);
  return status;
}
