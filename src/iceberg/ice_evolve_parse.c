/*
 * ice_evolve_parse.c - the command-line forms of evolution operations
 * (layer 5, iceberg).
 *
 * Turns words such as `add-column 'point.z double not null default 0'
 * rename-column a b add-partition 'bucket(16, id)'` into ice_evolve_op_t
 * values. Column definitions are read by ty_schema_parse (name, type,
 * NOT NULL, COMMENT '...'); a DEFAULT clause is taken out first and its
 * value read as Iceberg's JSON single-value form for the column's type.
 */
#include <ctype.h>
#include <jansson.h>
#include <string.h>
#include <strings.h>

#include "iceberg/ice_conv.h"
#include "iceberg/ice_evolve.h"

static const char *const op_words[] = {
    "add-column",     "drop-column",      "rename-column",  "update-column", "update-doc",
    "make-optional",  "make-required",    "set-identifier", "move-column",   "add-partition",
    "drop-partition", "rename-partition", "--ignore-case",
};

static bool is_op_word(const char *w) {
  for (size_t i = 0; i < sizeof op_words / sizeof op_words[0]; i++)
    if (strcmp(w, op_words[i]) == 0) return true;
  return false;
}

/*
 * The offset of keyword kw in text at or after from, as a word of its own
 * (space before, space or end after) outside quotes and brackets; -1 when
 * absent.
 */
static long find_keyword(const char *text, size_t from, const char *kw) {
  size_t n = strlen(text), k = strlen(kw);
  int depth = 0;
  char quote = 0;
  for (size_t i = 0; i < n; i++) {
    char c = text[i];
    if (quote) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"' || c == '`') {
      quote = c;
      continue;
    }
    if (c == '<' || c == '(') depth++;
    if ((c == '>' || c == ')') && depth > 0) depth--;
    if (i < from || depth > 0 || i == 0 || !isspace((unsigned char)text[i - 1])) continue;
    if (strncasecmp(text + i, kw, k) == 0 &&
        (text[i + k] == 0 || isspace((unsigned char)text[i + k])))
      return (long)i;
  }
  return -1;
}

static const char *trimmed(fl_arena_t *a, const char *s, size_t n) {
  while (n > 0 && isspace((unsigned char)*s)) s++, n--;
  while (n > 0 && isspace((unsigned char)s[n - 1])) n--;
  return fl_arena_strndup(a, s, n);
}

/* Reads a default value's text as JSON for type t; 'text' is a string. */
static int parse_default(fl_arena_t *a, const char *text, const ty_type_t *t, const char *arg,
                         const ty_value_t **out, fl_err_t *err) {
  size_t n = strlen(text);
  json_t *j;
  if (n >= 2 && text[0] == '\'' && text[n - 1] == '\'') {
    j = json_stringn(text + 1, n - 2);
  } else {
    json_error_t je;
    j = json_loads(text, JSON_DECODE_ANY, &je);
    if (!j) j = json_string(text); /* a bare word: 2024-01-05 */
  }
  if (!j) return fl_err_set(err, FL_EPARSE, "add-column '%s': cannot read default %s", arg, text);
  ty_value_t *v = fl_arena_zalloc(a, sizeof *v);
  const char *what = fl_arena_sprintf(a, "add-column '%s': default", arg);
  int rc = ice_value_from_json(a, t, j, what, v, err);
  json_decref(j);
  if (rc) return rc;
  *out = v;
  return FL_OK;
}

/* "name type [not null] [default V] [comment 'doc']" into op. */
static int parse_column_def(fl_arena_t *a, const char *arg, ice_evolve_op_t *op, fl_err_t *err) {
  const char *text = trimmed(a, arg, strlen(arg));
  const char *default_text = NULL;
  long d = find_keyword(text, 0, "default");
  if (d >= 0) {
    long c = find_keyword(text, (size_t)d, "comment");
    size_t end = c >= 0 ? (size_t)c : strlen(text);
    default_text = trimmed(a, text + d + 7, end - (size_t)d - 7);
    if (!default_text[0])
      return fl_err_set(err, FL_EPARSE, "add-column '%s': DEFAULT needs a value", arg);
    text = fl_arena_sprintf(a, "%.*s %s", (int)d, text, c >= 0 ? text + c : "");
  }
  ty_schema_t *s;
  fl_err_t perr = {0};
  if (ty_schema_parse(a, text, &s, &perr))
    return fl_err_set(err, FL_EPARSE, "add-column '%s': %s", arg, perr.msg);
  if (s->root.nfields != 1)
    return fl_err_set(err, FL_EPARSE, "add-column '%s': expected one column definition", arg);
  const ty_field_t *f = &s->root.fields[0];
  op->kind = ICE_EV_ADD_COLUMN;
  op->type = f->type;
  op->required = f->required;
  op->doc = f->doc;
  const char *dot = strrchr(f->name, '.');
  bool quoted = text[0] == '"' || text[0] == '`';
  if (dot && !quoted) {
    if (dot == f->name || !dot[1])
      return fl_err_set(err, FL_EPARSE, "add-column '%s': malformed column path %s", arg, f->name);
    op->parent = fl_arena_strndup(a, f->name, (size_t)(dot - f->name));
    op->name = fl_arena_strdup(a, dot + 1);
  } else {
    op->name = f->name;
  }
  if (default_text) return parse_default(a, default_text, f->type, arg, &op->default_value, err);
  return FL_OK;
}

static int parse_identifiers(fl_arena_t *a, const char *arg, ice_evolve_op_t *op) {
  uint32_t cap = 1;
  for (const char *p = arg; *p; p++)
    if (*p == ',') cap++;
  const char **names = fl_arena_zalloc(a, cap * sizeof *names);
  uint32_t n = 0;
  const char *p = arg;
  for (;;) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    const char *w = trimmed(a, p, len);
    if (w[0]) names[n++] = w;
    if (!e) break;
    p = e + 1;
  }
  op->kind = ICE_EV_SET_IDENTIFIER;
  op->names = names;
  op->nnames = n;
  return FL_OK;
}

int ice_evolve_parse(fl_arena_t *a, int argc, const char *const *argv, ice_evolve_op_t **ops,
                     uint32_t *n, fl_err_t *err) {
  ice_evolve_op_t *out = fl_arena_zalloc(a, (size_t)(argc > 0 ? argc : 1) * sizeof *out);
  uint32_t cnt = 0;
  bool ignore_case = false;
  int i = 0;
#define NEED(k, what)                                                                           \
  do {                                                                                          \
    if (i + (k) >= argc || is_op_word(argv[i + (k)]))                                           \
      return fl_err_set(err, FL_EPARSE, "%s: expected %s (argument %d)", w, what, i + (k) + 1); \
  } while (0)
  while (i < argc) {
    const char *w = argv[i];
    ice_evolve_op_t *op = &out[cnt];
    memset(op, 0, sizeof *op);
    op->ignore_case = ignore_case;
    if (strcmp(w, "--ignore-case") == 0) {
      ignore_case = true;
      i++;
      continue;
    } else if (strcmp(w, "add-column") == 0) {
      NEED(1, "a column definition such as 'c string'");
      /* Unquoted definitions may come as several words: join them. */
      int j = i + 1;
      const char *def = argv[j++];
      while (j < argc && !is_op_word(argv[j])) def = fl_arena_sprintf(a, "%s %s", def, argv[j++]);
      int rc = parse_column_def(a, def, op, err);
      if (rc) return rc;
      op->ignore_case = ignore_case;
      i = j;
    } else if (strcmp(w, "drop-column") == 0 || strcmp(w, "make-optional") == 0 ||
               strcmp(w, "make-required") == 0 || strcmp(w, "drop-partition") == 0) {
      NEED(1, w[0] == 'd' && w[5] == 'p' ? "a partition field name" : "a column name");
      op->kind = strcmp(w, "drop-column") == 0     ? ICE_EV_DROP_COLUMN
                 : strcmp(w, "make-optional") == 0 ? ICE_EV_MAKE_OPTIONAL
                 : strcmp(w, "make-required") == 0 ? ICE_EV_MAKE_REQUIRED
                                                   : ICE_EV_DROP_PARTITION;
      op->name = argv[i + 1];
      i += 2;
    } else if (strcmp(w, "rename-column") == 0 || strcmp(w, "rename-partition") == 0) {
      NEED(1, "the old name");
      NEED(2, "the new name");
      op->kind = w[7] == 'c' ? ICE_EV_RENAME_COLUMN : ICE_EV_RENAME_PARTITION;
      op->name = argv[i + 1];
      op->new_name = argv[i + 2];
      i += 3;
    } else if (strcmp(w, "update-column") == 0) {
      NEED(1, "a column name");
      NEED(2, "the new type");
      op->kind = ICE_EV_UPDATE_COLUMN;
      op->name = argv[i + 1];
      int32_t next_id = 1;
      fl_err_t perr = {0};
      if (ty_type_parse(a, argv[i + 2], &next_id, &op->type, &perr))
        return fl_err_set(err, FL_EPARSE, "update-column %s '%s': %s", op->name, argv[i + 2],
                          perr.msg);
      i += 3;
    } else if (strcmp(w, "update-doc") == 0) {
      NEED(1, "a column name");
      if (i + 2 >= argc)
        return fl_err_set(err, FL_EPARSE, "update-doc: expected the doc text (argument %d)", i + 3);
      op->kind = ICE_EV_UPDATE_DOC;
      op->name = argv[i + 1];
      op->doc = argv[i + 2][0] ? argv[i + 2] : NULL;
      i += 3;
    } else if (strcmp(w, "set-identifier") == 0) {
      if (i + 1 >= argc)
        return fl_err_set(err, FL_EPARSE,
                          "set-identifier: expected a column list such as a,b "
                          "('' for none) (argument %d)",
                          i + 2);
      parse_identifiers(a, argv[i + 1], op);
      i += 2;
    } else if (strcmp(w, "move-column") == 0) {
      NEED(1, "a column name");
      NEED(2, "first, after COLUMN or before COLUMN");
      op->name = argv[i + 1];
      const char *where = argv[i + 2];
      if (strcasecmp(where, "first") == 0) {
        op->kind = ICE_EV_MOVE_FIRST;
        i += 3;
      } else if (strcasecmp(where, "after") == 0 || strcasecmp(where, "before") == 0) {
        NEED(3, "the column to move next to");
        op->kind = tolower((unsigned char)where[0]) == 'a' ? ICE_EV_MOVE_AFTER : ICE_EV_MOVE_BEFORE;
        op->ref = argv[i + 3];
        i += 4;
      } else {
        return fl_err_set(err, FL_EPARSE,
                          "move-column %s: expected first, after COLUMN or before COLUMN, not '%s'",
                          op->name, where);
      }
    } else if (strcmp(w, "add-partition") == 0) {
      NEED(1, "a partition term such as 'hour(ts)' or 'bucket(16, id)'");
      op->kind = ICE_EV_ADD_PARTITION;
      op->term = argv[i + 1];
      i += 2;
      if (i < argc && !is_op_word(argv[i])) op->name = argv[i++];
    } else {
      return fl_err_set(err, FL_EPARSE,
                        "unknown change '%s' (argument %d); expected add-column, drop-column, "
                        "rename-column, update-column, update-doc, make-optional, make-required, "
                        "set-identifier, move-column, add-partition, drop-partition, "
                        "rename-partition or --ignore-case",
                        w, i + 1);
    }
    cnt++;
  }
#undef NEED
  if (cnt == 0) return fl_err_set(err, FL_EPARSE, "no schema or partition changes given");
  *ops = out;
  *n = cnt;
  return FL_OK;
}
