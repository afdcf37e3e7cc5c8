/*
 * cat_ident.c - table identifiers and the catalog's small owned lists
 * (layer 6, catalog).
 */
#include <string.h>

#include "base/alloc.h"
#include "catalog/catalog.h"

int cat_split_ident(const char *ident, char **ns, char **name, fl_err_t *err) {
  const char *dot = strrchr(ident, '.');
  if (!dot || dot == ident || dot[1] == '\0')
    return fl_err_set(err, FL_EINVALID,
                      "table name '%s' needs a namespace: write NAMESPACE.TABLE", ident);
  *ns = fl_strndup(ident, (size_t)(dot - ident));
  *name = fl_strdup(dot + 1);
  return FL_OK;
}

void cat_names_free(cat_names_t *n) {
  if (!n) return;
  for (size_t i = 0; i < n->n; i++) fl_free(n->items[i]);
  fl_free(n->items);
  n->items = NULL;
  n->n = 0;
}

void cat_props_free(cat_prop_t *p, size_t n) {
  if (!p) return;
  for (size_t i = 0; i < n; i++) {
    fl_free(p[i].key);
    fl_free(p[i].value);
  }
  fl_free(p);
}
