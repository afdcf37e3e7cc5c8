/*
 * fuzz_sql.c - the SQL parser must turn any text into a tree or an error
 * with a position, never crash; a tree it prints must parse back to the
 * same printed text, and the script splitter must agree on the text.
 */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "sql/sql_parse.h"
#include "sql/sql_print.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 16384) return 0;
  const char *text = (const char *)data;
  fl_arena_t *a = fl_arena_new(0);
  fl_err_t err;
  sql_stmt_t **stmts;
  size_t n;
  int rc = sql_parse_script(a, text, size, &stmts, &n, &err);
  if (rc != FL_OK) {
    uint32_t line, col;
    if (rc != FL_EPARSE && rc != FL_ELIMIT) abort();
    if (rc == FL_EPARSE && !sql_error_pos(&err, &line, &col)) abort();
    fl_buf_t caret;
    fl_buf_init(&caret);
    sql_error_caret(text, size, &err, &caret);
    fl_buf_free(&caret);
  } else {
    for (size_t i = 0; i < n; i++) {
      char *printed = sql_stmt_text(a, stmts[i]);
      sql_stmt_t *again;
      if (sql_parse_statement(a, printed, strlen(printed), &again, &err) != FL_OK) abort();
      if (strcmp(printed, sql_stmt_text(a, again)) != 0) abort();
      if (stmts[i]->end < stmts[i]->pos.off || stmts[i]->end > size) abort();
    }
    sql_piece_t *pieces;
    size_t np;
    if (sql_split_script(a, text, size, &pieces, &np, &err) != FL_OK) abort();
  }
  fl_arena_free(a);
  return 0;
}
