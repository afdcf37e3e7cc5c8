/*
 * ice_spec.c - partition specs and sort orders (layer 5, iceberg).
 *
 * Parses the CLI spellings of specs ("day(ts), bucket(16, id), name") and
 * sort orders ("id, ts DESC NULLS LAST") against a schema, types partition
 * tuples, and builds the folder path of a tuple the way Java's
 * PartitionSpec.partitionToPath does: name=value pairs joined by '/',
 * both URL-encoded as java.net.URLEncoder encodes UTF-8 text.
 */
#include <ctype.h>
#include <string.h>

#include "iceberg/ice_spec.h"

bool ice_spec_is_unpartitioned(const ice_spec_t *s) {
  for (uint32_t i = 0; i < s->nfields; i++)
    if (s->fields[i].transform.kind != ICE_T_VOID) return false;
  return true;
}

static const char *transform_text(fl_arena_t *a, const ice_transform_t *t) {
  fl_buf_t b;
  fl_buf_init(&b);
  ice_transform_format(t, &b);
  const char *s = fl_arena_strndup(a, (const char *)b.data, b.len);
  fl_buf_free(&b);
  return s;
}

int ice_spec_partition_type(fl_arena_t *a, const ice_spec_t *s, const ty_schema_t *schema,
                            const ty_type_t **out, fl_err_t *err) {
  ty_field_t *fields = fl_arena_zalloc(a, sizeof(ty_field_t) * (s->nfields ? s->nfields : 1));
  for (uint32_t i = 0; i < s->nfields; i++) {
    const ice_partition_field_t *pf = &s->fields[i];
    const ty_field_t *src = ty_schema_find_id(schema, pf->source_id);
    const ty_type_t *rt;
    if (!src) {
      if (pf->transform.kind != ICE_T_VOID)
        return fl_err_set(err, FL_EINVALID,
                          "partition field %s: source column id %d is not in schema %d", pf->name,
                          (int)pf->source_id, (int)schema->schema_id);
      rt = ty_primitive(TY_INT);
    } else {
      rt = ice_transform_result_type(&pf->transform, src->type);
      if (!rt)
        return fl_err_set(err, FL_EINVALID,
                          "partition field %s: transform %s cannot apply to column %s of type %s",
                          pf->name, transform_text(a, &pf->transform), src->name,
                          ty_kind_name(src->type->kind));
    }
    fields[i].id = pf->field_id;
    fields[i].name = pf->name;
    fields[i].required = false;
    fields[i].type = rt;
  }
  *out = ty_struct_new(a, fields, s->nfields);
  return FL_OK;
}

bool ice_spec_compatible(const ice_spec_t *a, const ice_spec_t *b) {
  if (a->nfields != b->nfields) return false;
  for (uint32_t i = 0; i < a->nfields; i++) {
    if (a->fields[i].source_id != b->fields[i].source_id) return false;
    if (!ice_transform_equal(&a->fields[i].transform, &b->fields[i].transform)) return false;
  }
  return true;
}

/*
 * Finds a column by name: a top-level column of exactly that name first,
 * else the dotted path through struct columns ("point.x"). Fields inside
 * lists and maps cannot be partition or sort sources.
 */
static const ty_field_t *find_column(const ty_schema_t *schema, const char *name) {
  const ty_type_t *st = &schema->root;
  const char *p = name;
  for (;;) {
    const ty_field_t *best = NULL;
    size_t best_len = 0;
    /* The longest member name that matches the rest or a dotted prefix of it. */
    for (uint32_t i = 0; i < st->nfields; i++) {
      const char *fn = st->fields[i].name;
      size_t l = strlen(fn);
      if (strncmp(p, fn, l) == 0 && (p[l] == 0 || p[l] == '.') && l >= best_len) {
        best = &st->fields[i];
        best_len = l;
      }
    }
    if (!best) return NULL;
    if (p[best_len] == 0) return best;
    if (best->type->kind != TY_STRUCT) return NULL;
    st = best->type;
    p += best_len + 1;
  }
}

/* Splits text at top-level commas (outside parentheses and quotes) into
 * trimmed, non-empty items; returns their count (items in arena). */
static int split_items(fl_arena_t *a, const char *text, const char ***items, uint32_t *n,
                       const char *what, fl_err_t *err) {
  size_t len = strlen(text);
  uint32_t cap = 1;
  for (size_t i = 0; i < len; i++)
    if (text[i] == ',') cap++;
  const char **out = fl_arena_alloc(a, sizeof(char *) * cap);
  uint32_t cnt = 0;
  int depth = 0;
  char quote = 0;
  size_t start = 0;
  for (size_t i = 0; i <= len; i++) {
    char c = i < len ? text[i] : ',';
    if (quote) {
      if (c == quote) quote = 0;
      if (i < len) continue;
    }
    if (c == '"' || c == '`') quote = c;
    if (c == '(') depth++;
    if (c == ')') depth--;
    if (c != ',' || (depth > 0 && i < len)) continue;
    size_t s = start, e = i;
    while (s < e && isspace((unsigned char)text[s])) s++;
    while (e > s && isspace((unsigned char)text[e - 1])) e--;
    if (s == e) {
      if (cnt == 0 && i == len) break; /* empty list */
      return fl_err_set(err, FL_EPARSE, "%s \"%s\": empty item at byte %zu", what, text, start);
    }
    out[cnt++] = fl_arena_strndup(a, text + s, e - s);
    start = i + 1;
  }
  if (depth != 0 || quote)
    return fl_err_set(err, FL_EPARSE, "%s \"%s\": unbalanced parentheses or quotes", what, text);
  *items = out;
  *n = cnt;
  return FL_OK;
}

/* Resolves the column of one item and checks the transform applies. */
static int bind_column(fl_arena_t *a, const ty_schema_t *schema, const char *item,
                       const ice_transform_t *t, const char *column, const ty_field_t **out,
                       fl_err_t *err) {
  const ty_field_t *f = find_column(schema, column);
  if (!f) return fl_err_set(err, FL_ENOTFOUND, "\"%s\": no column named %s", item, column);
  if (!ice_transform_can_apply(t, f->type)) {
    fl_buf_t tb;
    fl_buf_init(&tb);
    ty_type_format(f->type, &tb);
    int rc = fl_err_set(err, FL_EINVALID, "\"%s\": transform %s cannot apply to column %s of type %.*s",
                        item, transform_text(a, t), column, (int)tb.len, (const char *)tb.data);
    fl_buf_free(&tb);
    return rc;
  }
  *out = f;
  return FL_OK;
}

int ice_spec_parse(fl_arena_t *a, const char *text, const ty_schema_t *schema, int32_t spec_id,
                   int32_t *last_partition_id, ice_spec_t **out, fl_err_t *err) {
  const char **items = NULL;
  uint32_t n = 0;
  int rc = split_items(a, text, &items, &n, "partition spec", err);
  if (rc) return rc;
  ice_spec_t *s = fl_arena_zalloc(a, sizeof *s);
  s->spec_id = spec_id;
  s->fields = fl_arena_zalloc(a, sizeof(ice_partition_field_t) * (n ? n : 1));
  int32_t next_id = *last_partition_id < 999 ? 999 : *last_partition_id;
  for (uint32_t i = 0; i < n; i++) {
    ice_partition_field_t *pf = &s->fields[i];
    const char *column;
    rc = ice_transform_parse_call(a, items[i], &pf->transform, &column, err);
    if (rc) return rc;
    const ty_field_t *f;
    rc = bind_column(a, schema, items[i], &pf->transform, column, &f, err);
    if (rc) return rc;
    pf->source_id = f->id;
    pf->name = ice_transform_field_name(a, &pf->transform, column);
    for (uint32_t k = 0; k < i; k++) {
      if (s->fields[k].source_id == pf->source_id &&
          ice_transform_equal(&s->fields[k].transform, &pf->transform))
        return fl_err_set(err, FL_EINVALID, "partition spec \"%s\": \"%s\" is listed twice", text,
                          items[i]);
      if (strcmp(s->fields[k].name, pf->name) == 0)
        return fl_err_set(err, FL_EINVALID,
                          "partition spec \"%s\": two partition fields named %s", text, pf->name);
    }
    /* A partition field may share a schema column's name only when it is
     * that column's identity (Java's and PyIceberg's rule). */
    const ty_field_t *clash = find_column(schema, pf->name);
    if (clash && !(pf->transform.kind == ICE_T_IDENTITY && clash->id == f->id))
      return fl_err_set(err, FL_EINVALID,
                        "partition spec \"%s\": partition field name %s is a column of the schema",
                        text, pf->name);
    pf->field_id = ++next_id;
  }
  s->nfields = n;
  *last_partition_id = next_id;
  *out = s;
  return FL_OK;
}

/* Whether item ends with the keyword kw (case-insensitive) after a space;
 * if so *len is shortened to drop it and the space before. */
static bool take_word(const char *item, size_t *len, const char *kw) {
  size_t k = strlen(kw), n = *len;
  if (n <= k) return false;
  for (size_t i = 0; i < k; i++)
    if (tolower((unsigned char)item[n - k + i]) != kw[i]) return false;
  if (!isspace((unsigned char)item[n - k - 1])) return false;
  n -= k;
  while (n > 0 && isspace((unsigned char)item[n - 1])) n--;
  *len = n;
  return true;
}

int ice_sort_order_parse(fl_arena_t *a, const char *text, const ty_schema_t *schema,
                         int32_t order_id, ice_sort_order_t **out, fl_err_t *err) {
  const char **items = NULL;
  uint32_t n = 0;
  int rc = split_items(a, text, &items, &n, "sort order", err);
  if (rc) return rc;
  ice_sort_order_t *o = fl_arena_zalloc(a, sizeof *o);
  o->order_id = order_id;
  o->fields = fl_arena_zalloc(a, sizeof(ice_sort_field_t) * (n ? n : 1));
  for (uint32_t i = 0; i < n; i++) {
    ice_sort_field_t *sf = &o->fields[i];
    size_t len = strlen(items[i]);
    int nulls = -1; /* -1 default, 0 last, 1 first */
    if (take_word(items[i], &len, "first")) {
      if (!take_word(items[i], &len, "nulls"))
        return fl_err_set(err, FL_EPARSE, "sort order \"%s\": expected NULLS FIRST in \"%s\"",
                          text, items[i]);
      nulls = 1;
    } else if (take_word(items[i], &len, "last")) {
      if (!take_word(items[i], &len, "nulls"))
        return fl_err_set(err, FL_EPARSE, "sort order \"%s\": expected NULLS LAST in \"%s\"",
                          text, items[i]);
      nulls = 0;
    }
    if (take_word(items[i], &len, "desc"))
      sf->descending = true;
    else
      take_word(items[i], &len, "asc");
    /* Iceberg's defaults: ascending puts nulls first, descending last. */
    sf->nulls_first = nulls < 0 ? !sf->descending : nulls == 1;
    const char *expr = fl_arena_strndup(a, items[i], len);
    const char *column;
    rc = ice_transform_parse_call(a, expr, &sf->transform, &column, err);
    if (rc) return rc;
    const ty_field_t *f;
    rc = bind_column(a, schema, items[i], &sf->transform, column, &f, err);
    if (rc) return rc;
    sf->source_id = f->id;
  }
  o->nfields = n;
  *out = o;
  return FL_OK;
}

/* java.net.URLEncoder with UTF-8: letters, digits and ".-*_" stay, space
 * becomes '+', every other byte %XX in upper-case hex. */
static void url_escape(const uint8_t *p, size_t n, fl_buf_t *out) {
  static const char hex[] = "0123456789ABCDEF";
  for (size_t i = 0; i < n; i++) {
    uint8_t c = p[i];
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
        c == '-' || c == '*' || c == '_') {
      fl_buf_append_u8(out, c);
    } else if (c == ' ') {
      fl_buf_append_u8(out, '+');
    } else {
      char e[3] = {'%', hex[c >> 4], hex[c & 15]};
      fl_buf_append(out, e, 3);
    }
  }
}

void ice_spec_partition_path(const ice_spec_t *s, const ty_type_t *partition_type,
                             const ty_value_t *values, fl_buf_t *out) {
  fl_buf_t human;
  fl_buf_init(&human);
  for (uint32_t i = 0; i < s->nfields; i++) {
    if (i) fl_buf_append_u8(out, '/');
    const char *name = s->fields[i].name;
    url_escape((const uint8_t *)name, strlen(name), out);
    fl_buf_append_u8(out, '=');
    fl_buf_clear(&human);
    ice_transform_human(&s->fields[i].transform, partition_type->fields[i].type, &values[i],
                        &human);
    url_escape(human.data, human.len, out);
  }
  fl_buf_free(&human);
}
