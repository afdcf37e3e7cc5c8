/*
 * ex_type.c - SQL type names, storage mapping and Trino's implicit
 * coercion rules.
 */
#include "exec/ex_type.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

static const char *const g_kind_names[] = {
#define EX__TKIND_NAME(name, text) text,
    EX_TYPE_MAP(EX__TKIND_NAME)
#undef EX__TKIND_NAME
};

const char *ex_tkind_name(ex_tkind_t k) {
  return (unsigned)k < EX_TKIND_COUNT ? g_kind_names[k] : "?";
}

static const ex_type_t g_varchar = {.kind = EX_VARCHAR};
ex_type_t ex_type_array_varchar(void) { return (ex_type_t){.kind = EX_ARRAY, .elem = &g_varchar}; }

void ex_type_format(const ex_type_t *t, fl_buf_t *out) {
  switch (t->kind) {
    case EX_DECIMAL:
      if (t->precision)
        fl_buf_printf(out, "decimal(%d,%d)", t->precision, t->scale);
      else
        fl_buf_append_str(out, "decimal(p,s)");
      return;
    case EX_TIMESTAMP: fl_buf_printf(out, "timestamp(%d)", ex_type_ts_digits(t)); return;
    case EX_TIMESTAMPTZ:
      fl_buf_printf(out, "timestamp(%d) with time zone", ex_type_ts_digits(t));
      return;
    case EX_TIME: fl_buf_append_str(out, "time(6)"); return;
    case EX_ARRAY:
      fl_buf_append_str(out, "array(");
      if (t->elem)
        ex_type_format(t->elem, out);
      else
        fl_buf_append_str(out, "T"); /* a signature's any array */
      fl_buf_append_str(out, ")");
      return;
    case EX_MAP:
      fl_buf_append_str(out, "map(");
      if (t->key)
        ex_type_format(t->key, out);
      else
        fl_buf_append_str(out, "K");
      fl_buf_append_str(out, ", ");
      if (t->elem)
        ex_type_format(t->elem, out);
      else
        fl_buf_append_str(out, "V");
      fl_buf_append_str(out, ")");
      return;
    case EX_ROW:
      fl_buf_append_str(out, "row(");
      for (uint32_t i = 0; i < t->nfields; i++) {
        if (i) fl_buf_append_str(out, ", ");
        if (t->fields[i].name) fl_buf_printf(out, "%s ", t->fields[i].name);
        ex_type_format(&t->fields[i].type, out);
      }
      fl_buf_append_str(out, ")");
      return;
    default: fl_buf_append_str(out, ex_tkind_name(t->kind));
  }
}

const char *ex_type_str(const ex_type_t *t) {
  static _Thread_local char ring[4][512];
  static _Thread_local int at;
  char *b = ring[at++ & 3];
  fl_buf_t buf;
  fl_buf_init(&buf);
  ex_type_format(t, &buf);
  snprintf(b, 512, "%.*s", (int)buf.len, (const char *)buf.data);
  fl_buf_free(&buf);
  return b;
}

bool ex_type_equal(const ex_type_t *a, const ex_type_t *b) {
  if (a->kind != b->kind) return false;
  if (a->kind == EX_DECIMAL) return a->precision == b->precision && a->scale == b->scale;
  if (a->kind == EX_TIMESTAMP || a->kind == EX_TIMESTAMPTZ)
    return ex_type_is_nanos(a) == ex_type_is_nanos(b);
  if (a->kind == EX_ARRAY) return a->elem && b->elem && ex_type_equal(a->elem, b->elem);
  if (a->kind == EX_MAP)
    return a->elem && b->elem && a->key && b->key && ex_type_equal(a->key, b->key) &&
           ex_type_equal(a->elem, b->elem);
  if (a->kind == EX_ROW) {
    if (a->nfields != b->nfields) return false;
    for (uint32_t i = 0; i < a->nfields; i++)
      if (((a->fields[i].name || b->fields[i].name) &&
           (!a->fields[i].name || !b->fields[i].name ||
            strcmp(a->fields[i].name, b->fields[i].name) != 0)) ||
          !ex_type_equal(&a->fields[i].type, &b->fields[i].type))
        return false;
  }
  return true;
}

int64_t ex_type_int_min(ex_tkind_t k) {
  switch (k) {
    case EX_TINYINT: return INT8_MIN;
    case EX_SMALLINT: return INT16_MIN;
    case EX_INTEGER: return INT32_MIN;
    default: return INT64_MIN;
  }
}
int64_t ex_type_int_max(ex_tkind_t k) {
  switch (k) {
    case EX_TINYINT: return INT8_MAX;
    case EX_SMALLINT: return INT16_MAX;
    case EX_INTEGER: return INT32_MAX;
    default: return INT64_MAX;
  }
}
int ex_type_int_digits(ex_tkind_t k) {
  switch (k) {
    case EX_TINYINT: return 3;
    case EX_SMALLINT: return 5;
    case EX_INTEGER: return 10;
    default: return 19;
  }
}

static pthread_once_t g_list_once = PTHREAD_ONCE_INIT;
static fl_arena_t *g_type_arena;
static const ty_type_t *g_list_of[TY_KIND_COUNT];
static void make_lists(void) {
  g_type_arena = fl_arena_new(0);
  for (int k = 0; k < TY_KIND_COUNT; k++)
    if (k != TY_DECIMAL && k != TY_FIXED && k != TY_STRUCT && k != TY_LIST && k != TY_MAP)
      g_list_of[k] = ty_list_new(g_type_arena, 1, false, ty_primitive((ty_kind_t)k));
}

const ty_type_t *ex_type_storage(const ex_type_t *t, fl_arena_t *a) {
  switch (t->kind) {
    case EX_UNKNOWN:
    case EX_BOOLEAN: return ty_primitive(TY_BOOLEAN);
    case EX_TINYINT:
    case EX_SMALLINT:
    case EX_INTEGER:
    case EX_INTERVAL_YM: return ty_primitive(TY_INT);
    case EX_BIGINT:
    case EX_INTERVAL_DS: return ty_primitive(TY_LONG);
    case EX_REAL: return ty_primitive(TY_FLOAT);
    case EX_DOUBLE: return ty_primitive(TY_DOUBLE);
    case EX_DECIMAL: return ty_decimal(a, t->precision ? t->precision : 38, t->scale);
    case EX_VARCHAR: return ty_primitive(TY_STRING);
    case EX_VARBINARY: return ty_primitive(TY_BINARY);
    case EX_DATE: return ty_primitive(TY_DATE);
    case EX_TIME: return ty_primitive(TY_TIME);
    case EX_TIMESTAMP: return ty_primitive(ex_type_is_nanos(t) ? TY_TIMESTAMP_NS : TY_TIMESTAMP);
    case EX_TIMESTAMPTZ:
      return ty_primitive(ex_type_is_nanos(t) ? TY_TIMESTAMPTZ_NS : TY_TIMESTAMPTZ);
    case EX_UUID: return ty_primitive(TY_UUID);
    case EX_ARRAY: {
      const ty_type_t *e = ex_type_storage(t->elem ? t->elem : &g_varchar, a);
      if (e->kind != TY_DECIMAL && !ty_is_nested(e)) {
        pthread_once(&g_list_once, make_lists);
        return g_list_of[e->kind];
      }
      return ty_list_new(a, 1, false, e);
    }
    case EX_MAP: {
      const ty_type_t *k = ex_type_storage(t->key ? t->key : &g_varchar, a);
      const ty_type_t *v = ex_type_storage(t->elem ? t->elem : &g_varchar, a);
      return ty_map_new(a, 1, k, 2, false, v);
    }
    case EX_ROW: {
      ty_field_t *f = fl_arena_zalloc(a, (t->nfields ? t->nfields : 1) * sizeof *f);
      for (uint32_t i = 0; i < t->nfields; i++) {
        f[i].id = (int32_t)i + 1;
        f[i].name = t->fields[i].name ? t->fields[i].name : fl_arena_sprintf(a, "field%u", i);
        f[i].type = ex_type_storage(&t->fields[i].type, a);
      }
      return ty_struct_new(a, f, t->nfields);
    }
    case EX_JSON: return ty_primitive(TY_STRING);
    default: return ty_primitive(TY_BOOLEAN);
  }
}

int ex_type_from_storage(const ty_type_t *t, ex_type_t *out, fl_err_t *err) {
  return ex_type_from_storage_in(t, NULL, out, err);
}

int ex_type_from_storage_in(const ty_type_t *t, fl_arena_t *a, ex_type_t *out, fl_err_t *err) {
  switch (t->kind) {
    case TY_BOOLEAN: *out = ex_type(EX_BOOLEAN); return FL_OK;
    case TY_INT: *out = ex_type(EX_INTEGER); return FL_OK;
    case TY_LONG: *out = ex_type(EX_BIGINT); return FL_OK;
    case TY_FLOAT: *out = ex_type(EX_REAL); return FL_OK;
    case TY_DOUBLE: *out = ex_type(EX_DOUBLE); return FL_OK;
    case TY_DECIMAL: *out = ex_type_decimal(t->precision, t->scale); return FL_OK;
    case TY_DATE: *out = ex_type(EX_DATE); return FL_OK;
    case TY_TIME: *out = ex_type(EX_TIME); return FL_OK;
    case TY_TIMESTAMP: *out = ex_type(EX_TIMESTAMP); return FL_OK;
    case TY_TIMESTAMPTZ: *out = ex_type(EX_TIMESTAMPTZ); return FL_OK;
    case TY_TIMESTAMP_NS: *out = (ex_type_t){.kind = EX_TIMESTAMP, .precision = 9}; return FL_OK;
    case TY_TIMESTAMPTZ_NS:
      *out = (ex_type_t){.kind = EX_TIMESTAMPTZ, .precision = 9};
      return FL_OK;
    case TY_STRING: *out = ex_type(EX_VARCHAR); return FL_OK;
    case TY_UUID: *out = ex_type(EX_UUID); return FL_OK;
    case TY_FIXED:
    case TY_BINARY: *out = ex_type(EX_VARBINARY); return FL_OK;
    case TY_LIST:
      if (t->fields[0].type->kind == TY_STRING) {
        *out = ex_type_array_varchar();
        return FL_OK;
      }
      if (!a) break;
      {
        ex_type_t *e = fl_arena_zalloc(a, sizeof *e);
        int rc = ex_type_from_storage_in(t->fields[0].type, a, e, err);
        if (rc) return rc;
        *out = (ex_type_t){.kind = EX_ARRAY, .elem = e};
        return FL_OK;
      }
    case TY_MAP: {
      if (!a) break;
      ex_type_t *k = fl_arena_zalloc(a, sizeof *k), *v = fl_arena_zalloc(a, sizeof *v);
      int rc;
      if ((rc = ex_type_from_storage_in(t->fields[0].type, a, k, err)) ||
          (rc = ex_type_from_storage_in(t->fields[1].type, a, v, err)))
        return rc;
      *out = (ex_type_t){.kind = EX_MAP, .key = k, .elem = v};
      return FL_OK;
    }
    case TY_STRUCT: {
      if (!a) break;
      ex_tfield_t *f = fl_arena_zalloc(a, (t->nfields ? t->nfields : 1) * sizeof *f);
      for (uint32_t i = 0; i < t->nfields; i++) {
        f[i].name = t->fields[i].name;
        int rc = ex_type_from_storage_in(t->fields[i].type, a, &f[i].type, err);
        if (rc) return rc;
      }
      *out = (ex_type_t){.kind = EX_ROW, .fields = f, .nfields = t->nfields};
      return FL_OK;
    }
    default: break;
  }
  return fl_err_set(err, FL_EUNSUPPORTED, "column type %s is not supported in SQL expressions yet",
                    ty_kind_name(t->kind));
}

bool ex_type_has_fixed(const ty_type_t *t) {
  if (t->kind == TY_FIXED) return true;
  if (!ty_is_nested(t)) return false;
  for (uint32_t i = 0; i < t->nfields; i++)
    if (ex_type_has_fixed(t->fields[i].type)) return true;
  return false;
}

/* Position on the numeric chain tinyint -> ... -> double. */
static int num_rank(ex_tkind_t k) {
  switch (k) {
    case EX_TINYINT: return 0;
    case EX_SMALLINT: return 1;
    case EX_INTEGER: return 2;
    case EX_BIGINT: return 3;
    case EX_DECIMAL: return 4;
    case EX_REAL: return 5;
    case EX_DOUBLE: return 6;
    default: return -1;
  }
}

static ex_type_t as_decimal(const ex_type_t *t) {
  if (t->kind == EX_DECIMAL) return *t;
  return ex_type_decimal(ex_type_int_digits(t->kind), 0);
}

static ex_type_t decimal_common(const ex_type_t *a, const ex_type_t *b) {
  ex_type_t x = as_decimal(a), y = as_decimal(b);
  int s = x.scale > y.scale ? x.scale : y.scale;
  int ix = x.precision - x.scale, iy = y.precision - y.scale;
  int p = (ix > iy ? ix : iy) + s;
  if (p > 38) p = 38;
  return ex_type_decimal(p, s);
}

static int temporal_rank(ex_tkind_t k) {
  return k == EX_DATE ? 0 : k == EX_TIMESTAMP ? 1 : k == EX_TIMESTAMPTZ ? 2 : -1;
}

bool ex_type_common(const ex_type_t *a, const ex_type_t *b, ex_type_t *out) {
  if (a->kind == EX_UNKNOWN) {
    *out = *b;
    return true;
  }
  if (b->kind == EX_UNKNOWN) {
    *out = *a;
    return true;
  }
  int ra = num_rank(a->kind), rb = num_rank(b->kind);
  if (ra >= 0 && rb >= 0) {
    int r = ra > rb ? ra : rb;
    if (r == 4) {
      *out = decimal_common(a, b);
    } else {
      *out = ex_type(ra > rb ? a->kind : b->kind);
    }
    return true;
  }
  int ta = temporal_rank(a->kind), tb = temporal_rank(b->kind);
  if (ta >= 0 && tb >= 0) {
    *out = ta >= tb ? *a : *b;
    /* timestamp(6) and timestamp(9) meet at the finer precision. */
    if (ex_type_is_nanos(a) || ex_type_is_nanos(b)) out->precision = 9;
    if (a->kind == EX_TIMESTAMPTZ && b->kind == EX_TIMESTAMPTZ && a->zone != b->zone)
      out->zone = NULL;
    return true;
  }
  if (a->kind == EX_ARRAY && b->kind == EX_ARRAY) {
    if (!a->elem || !b->elem) return false;
    /* array(unknown), as ARRAY[NULL] or ARRAY[] has, meets any array. */
    if (a->elem->kind == EX_UNKNOWN) {
      *out = *b;
      return true;
    }
    if (b->elem->kind != EX_UNKNOWN && !ex_type_equal(a->elem, b->elem)) return false;
    *out = *a;
    return true;
  }
  if ((a->kind == EX_MAP || a->kind == EX_ROW) && b->kind == a->kind && !ex_type_equal(a, b)) {
    /* map(varchar, unknown) (from map(ARRAY['a'], ARRAY[NULL])) and
     * row(integer, unknown) meet the type whose parts they leave open. */
    if (ex_type_coercion_cost(a, b) > 0) {
      *out = *b;
      return true;
    }
    if (ex_type_coercion_cost(b, a) > 0) {
      *out = *a;
      return true;
    }
    return false;
  }
  if (a->kind != b->kind) return false;
  *out = *a;
  return true;
}

int ex_type_coercion_cost(const ex_type_t *from, const ex_type_t *to) {
  if (to->kind == EX_ANY) return 0;
  if (from->kind == EX_UNKNOWN) return to->kind == EX_UNKNOWN ? 0 : 1;
  int rf = num_rank(from->kind), rt = num_rank(to->kind);
  if (rf >= 0 && rt >= 0) {
    if (rt < rf) return -1;
    if (to->kind == EX_DECIMAL) {
      ex_type_t d = as_decimal(from);
      if (!to->precision) return rt - rf; /* any decimal */
      if (to->precision - to->scale < d.precision - d.scale || to->scale < d.scale) return -1;
      return rt - rf + (ex_type_equal(&d, to) ? 0 : 1);
    }
    return rt - rf;
  }
  int tf = temporal_rank(from->kind), tt = temporal_rank(to->kind);
  if (tf >= 0 && tt >= 0) {
    if (ex_type_is_nanos(from) && !ex_type_is_nanos(to)) return -1;
    return tt >= tf ? tt - tf + (ex_type_is_nanos(from) != ex_type_is_nanos(to)) : -1;
  }
  if (from->kind == EX_ARRAY && to->kind == EX_ARRAY) {
    if (!from->elem || !to->elem) return -1;
    if (from->elem->kind == EX_UNKNOWN) return to->elem->kind == EX_UNKNOWN ? 0 : 1;
    return ex_type_equal(from->elem, to->elem) ? 0 : -1;
  }
  if ((from->kind == EX_MAP || from->kind == EX_ROW) && from->kind == to->kind) {
    if (ex_type_equal(from, to)) return 0;
    /* Parts of unknown type (NULLs) coerce to anything. */
    if (from->kind == EX_MAP) {
      if (!from->key || !from->elem || !to->key || !to->elem) return -1;
      int k = ex_type_coercion_cost(from->key, to->key), v = ex_type_coercion_cost(from->elem, to->elem);
      bool ok = (k == 0 || (k > 0 && from->key->kind == EX_UNKNOWN)) &&
                (v == 0 || (v > 0 && from->elem->kind == EX_UNKNOWN));
      return ok ? 1 : -1;
    }
    if (from->nfields != to->nfields) return -1;
    for (uint32_t i = 0; i < from->nfields; i++) {
      int c = ex_type_coercion_cost(&from->fields[i].type, &to->fields[i].type);
      if (c < 0 || (c > 0 && from->fields[i].type.kind != EX_UNKNOWN)) return -1;
    }
    return 1;
  }
  if (from->kind == EX_MAP || from->kind == EX_ROW) return -1;
  return from->kind == to->kind ? 0 : -1;
}

static bool type_ok(const ex_type_t *t, bool order) {
  switch (t->kind) {
    case EX_JSON: return false;
    case EX_MAP:
      return !order && t->key && t->elem && type_ok(t->key, order) && type_ok(t->elem, order);
    case EX_ARRAY: return !t->elem || type_ok(t->elem, order);
    case EX_ROW:
      for (uint32_t i = 0; i < t->nfields; i++)
        if (!type_ok(&t->fields[i].type, order)) return false;
      return true;
    default: return true;
  }
}

bool ex_type_comparable(const ex_type_t *t) { return type_ok(t, false); }
bool ex_type_orderable(const ex_type_t *t) { return type_ok(t, true); }
