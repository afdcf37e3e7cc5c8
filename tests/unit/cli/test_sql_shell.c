/*
 * test_sql_shell.c - when the shell's input holds complete statements
 * (cli_sql_shell_split): closing ';', strings, quoted names and comments
 * that hide ';', statement sets, input still open at the end, positions,
 * and lexical errors no further input can fix.
 */
#include <stdlib.h>

#include "base/alloc.h"
#include "cli/sql_shell.h"
#include "test.h"

typedef struct split_result {
  sql_piece_t *pieces;
  size_t n, rest;
  bool incomplete;
  int rc;
  fl_err_t err;
} split_result_t;

static split_result_t split_from(fl_arena_t *a, const char *text, size_t from) {
  split_result_t r = {0};
  r.rc = cli_sql_shell_split(a, text, strlen(text), from, &r.pieces, &r.n, &r.rest, &r.incomplete,
                             &r.err);
  return r;
}

static split_result_t split(fl_arena_t *a, const char *text) { return split_from(a, text, 0); }

/* Whether piece i is exactly want. */
static bool piece_is(const char *text, const split_result_t *r, size_t i, const char *want) {
  return i < r->n && r->pieces[i].len == strlen(want) &&
         memcmp(text + r->pieces[i].off, want, r->pieces[i].len) == 0;
}

TEST(shell_split_one_statement) {
  fl_arena_t *a = fl_arena_new(0);
  const char *t = "SELECT 1;\n";
  split_result_t r = split(a, t);
  CHECK_OK(r.rc, &r.err);
  CHECK_EQ(r.n, 1);
  CHECK(!r.incomplete);
  CHECK_EQ(r.rest, strlen(t));
  CHECK(piece_is(t, &r, 0, "SELECT 1"));
  fl_arena_free(a);
}

TEST(shell_split_open_statement) {
  fl_arena_t *a = fl_arena_new(0);
  split_result_t r = split(a, "SELECT 1\n");
  CHECK_OK(r.rc, &r.err);
  CHECK_EQ(r.n, 0);
  CHECK(r.incomplete);
  CHECK_EQ(r.rest, 0);
  /* Blanks and comments alone leave nothing open. */
  r = split(a, "  -- just a note\n /* and ; this */\n");
  CHECK_OK(r.rc, &r.err);
  CHECK_EQ(r.n, 0);
  CHECK(!r.incomplete);
  fl_arena_free(a);
}

TEST(shell_split_multi_line_positions) {
  fl_arena_t *a = fl_arena_new(0);
  const char *t = "SELECT a,\n  b\nFROM t;\n";
  split_result_t r = split(a, t);
  CHECK_OK(r.rc, &r.err);
  CHECK_EQ(r.n, 1);
  CHECK(piece_is(t, &r, 0, "SELECT a,\n  b\nFROM t"));
  CHECK_EQ(r.pieces[0].pos.line, 1);
  CHECK_EQ(r.pieces[0].pos.col, 1);
  /* A second statement on the first line starts at its own column. */
  t = "SELECT 1;  SELECT\n 2;\n";
  r = split(a, t);
  CHECK_OK(r.rc, &r.err);
  CHECK_EQ(r.n, 2);
  CHECK(piece_is(t, &r, 1, "SELECT\n 2"));
  CHECK_EQ(r.pieces[1].pos.line, 1);
  CHECK_EQ(r.pieces[1].pos.col, 12);
  fl_arena_free(a);
}

TEST(shell_split_two_on_one_line_and_open_tail) {
  fl_arena_t *a = fl_arena_new(0);
  const char *t = "SELECT 1; SELECT 2; SELECT\n";
  split_result_t r = split(a, t);
  CHECK_OK(r.rc, &r.err);
  CHECK_EQ(r.n, 2);
  CHECK(piece_is(t, &r, 0, "SELECT 1"));
  CHECK(piece_is(t, &r, 1, "SELECT 2"));
  CHECK(r.incomplete);
  CHECK_EQ(r.rest, 20);
  /* After running those two, the caller goes on from rest. */
  const char *t2 = "SELECT 1; SELECT 2; SELECT\n3;\n";
  r = split_from(a, t2, 20);
  CHECK_OK(r.rc, &r.err);
  CHECK_EQ(r.n, 1);
  CHECK(piece_is(t2, &r, 0, "SELECT\n3"));
  CHECK(!r.incomplete);
  fl_arena_free(a);
}

TEST(shell_split_semicolons_in_strings_and_comments) {
  fl_arena_t *a = fl_arena_new(0);
  const char *t = "SELECT 'a;b', \"c;d\" -- e;f\n";
  split_result_t r = split(a, t);
  CHECK_OK(r.rc, &r.err);
  CHECK_EQ(r.n, 0);
  CHECK(r.incomplete);
  t = "SELECT /* ; */ 'x;';\n";
  r = split(a, t);
  CHECK_OK(r.rc, &r.err);
  CHECK_EQ(r.n, 1);
  CHECK(piece_is(t, &r, 0, "SELECT /* ; */ 'x;'"));
  fl_arena_free(a);
}

TEST(shell_split_open_string_and_comment) {
  fl_arena_t *a = fl_arena_new(0);
  /* The string is still open: its ';' does not end anything. */
  split_result_t r = split(a, "SELECT 'abc;\n");
  CHECK_OK(r.rc, &r.err);
  CHECK_EQ(r.n, 0);
  CHECK(r.incomplete);
  r = split(a, "SELECT 1 /* still;\n");
  CHECK_OK(r.rc, &r.err);
  CHECK(r.incomplete);
  r = split(a, "SELECT \"col;\n");
  CHECK_OK(r.rc, &r.err);
  CHECK(r.incomplete);
  /* A statement closed before the open string is complete all the same. */
  const char *t = "SELECT 1; SELECT 'ab\n";
  r = split(a, t);
  CHECK_OK(r.rc, &r.err);
  CHECK_EQ(r.n, 1);
  CHECK(piece_is(t, &r, 0, "SELECT 1"));
  CHECK(r.incomplete);
  CHECK_EQ(r.rest, 10);
  /* Closing it completes the statement. */
  t = "SELECT 'abc;\ndef';\n";
  r = split(a, t);
  CHECK_OK(r.rc, &r.err);
  CHECK_EQ(r.n, 1);
  CHECK(piece_is(t, &r, 0, "SELECT 'abc;\ndef'"));
  fl_arena_free(a);
}

TEST(shell_split_statement_set) {
  fl_arena_t *a = fl_arena_new(0);
  const char *t = "BEGIN STATEMENT SET;\nINSERT INTO a SELECT 1;\n";
  split_result_t r = split(a, t);
  CHECK_OK(r.rc, &r.err);
  CHECK_EQ(r.n, 0);
  CHECK(r.incomplete);
  /* END without its ';' is still open. */
  r = split(a, "BEGIN STATEMENT SET;\nINSERT INTO a SELECT CASE WHEN x THEN 1 END;\nEND\n");
  CHECK_OK(r.rc, &r.err);
  CHECK_EQ(r.n, 0);
  CHECK(r.incomplete);
  t = "BEGIN STATEMENT SET;\nINSERT INTO a SELECT CASE WHEN x THEN 1 END;\nEND;\n";
  r = split(a, t);
  CHECK_OK(r.rc, &r.err);
  CHECK_EQ(r.n, 1);
  CHECK(!r.incomplete);
  CHECK(piece_is(t, &r, 0,
                 "BEGIN STATEMENT SET;\nINSERT INTO a SELECT CASE WHEN x THEN 1 END;\nEND"));
  fl_arena_free(a);
}

TEST(shell_split_lexical_error) {
  fl_arena_t *a = fl_arena_new(0);
  split_result_t r = split(a, "SELECT 1e;\n");
  CHECK_ERR(r.rc, FL_EPARSE);
  CHECK(strstr(r.err.msg, "line 1, column 8") != NULL);
  fl_arena_free(a);
}

TEST(shell_split_utf8_position_of_open_string) {
  fl_arena_t *a = fl_arena_new(0);
  /* Columns count characters: the open string after 'é' is found by its
   * lexer position, so the statement before it still completes. */
  const char *t = "SELECT 'é'; SELECT 'x\n";
  split_result_t r = split(a, t);
  CHECK_OK(r.rc, &r.err);
  CHECK_EQ(r.n, 1);
  CHECK(piece_is(t, &r, 0, "SELECT 'é'"));
  CHECK_EQ(r.rest, 13);
  fl_arena_free(a);
}

TEST(shell_history_path) {
  const char *old_hist = getenv("FLOE_HISTORY");
  const char *old_home = getenv("HOME");
  char *save_hist = old_hist ? strdup(old_hist) : NULL;
  char *save_home = old_home ? strdup(old_home) : NULL;
  setenv("FLOE_HISTORY", "/tmp/h1", 1);
  char *p = cli_sql_shell_history_path();
  bool ok1 = p && strcmp(p, "/tmp/h1") == 0;
  fl_free(p);
  setenv("FLOE_HISTORY", "", 1);
  p = cli_sql_shell_history_path();
  bool ok2 = p == NULL;
  unsetenv("FLOE_HISTORY");
  setenv("HOME", "/home/x", 1);
  p = cli_sql_shell_history_path();
  bool ok3 = p && strcmp(p, "/home/x/.floe_history") == 0;
  fl_free(p);
  unsetenv("HOME");
  p = cli_sql_shell_history_path();
  bool ok4 = p == NULL;
  if (save_hist) setenv("FLOE_HISTORY", save_hist, 1);
  if (save_home) setenv("HOME", save_home, 1);
  free(save_hist);
  free(save_home);
  CHECK(ok1);
  CHECK(ok2);
  CHECK(ok3);
  CHECK(ok4);
}
