/*
 * metrics_text.c - rendering a metrics snapshot in the Prometheus text
 * exposition format 0.0.4 (layer 1, base).
 *
 * See metrics_text.h for the shape. Numbers are written as the shortest of
 * %.15g/%.16g/%.17g that reads back exactly, so counters print as integers
 * and 0.1 prints as 0.1, and the output parses back to the same doubles.
 */
#include "base/metrics_text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fl_metrics_text_value(double v, fl_buf_t *out) {
  char s[40];
  if (isnan(v) || isinf(v)) {
    fl_buf_append_str(out, isnan(v) ? "NaN" : v > 0 ? "+Inf" : "-Inf");
    return;
  }
  for (int prec = 15; prec <= 17; prec++) {
    snprintf(s, sizeof s, "%.*g", prec, v);
    if (strtod(s, NULL) == v) break;
  }
  fl_buf_append_str(out, s);
}

/* Help text: backslash and newline escaped. */
static void help_escape(const char *s, fl_buf_t *out) {
  for (; *s; s++) {
    if (*s == '\\')
      fl_buf_append_str(out, "\\\\");
    else if (*s == '\n')
      fl_buf_append_str(out, "\\n");
    else
      fl_buf_append(out, s, 1);
  }
}

/* Label values: backslash, double quote and newline escaped. */
static void label_escape(const char *s, fl_buf_t *out) {
  for (; *s; s++) {
    if (*s == '\\')
      fl_buf_append_str(out, "\\\\");
    else if (*s == '"')
      fl_buf_append_str(out, "\\\"");
    else if (*s == '\n')
      fl_buf_append_str(out, "\\n");
    else
      fl_buf_append(out, s, 1);
  }
}

/* name{l1="v1",...[,le="bound"]} */
static void sample_head(const fl_metric_family_snap_t *f, const fl_metric_series_snap_t *s,
                        const char *suffix, const double *le, fl_buf_t *out) {
  fl_buf_append_str(out, f->name);
  fl_buf_append_str(out, suffix);
  if (f->nlabels == 0 && !le) return;
  fl_buf_append_u8(out, '{');
  for (uint32_t i = 0; i < f->nlabels; i++) {
    if (i) fl_buf_append_u8(out, ',');
    fl_buf_append_str(out, f->label_names[i]);
    fl_buf_append_str(out, "=\"");
    label_escape(s->label_values[i], out);
    fl_buf_append_u8(out, '"');
  }
  if (le) {
    if (f->nlabels) fl_buf_append_u8(out, ',');
    fl_buf_append_str(out, "le=\"");
    fl_metrics_text_value(*le, out);
    fl_buf_append_u8(out, '"');
  }
  fl_buf_append_u8(out, '}');
}

static const char *type_word(fl_metric_type_t t) {
  return t == FL_METRIC_COUNTER ? "counter" : t == FL_METRIC_GAUGE ? "gauge" : "histogram";
}

void fl_metrics_text(const fl_metrics_snap_t *s, fl_buf_t *out) {
  for (uint32_t i = 0; i < s->nfamilies; i++) {
    const fl_metric_family_snap_t *f = &s->families[i];
    if (f->nseries == 0) continue;
    fl_buf_printf(out, "# HELP %s ", f->name);
    help_escape(f->help, out);
    fl_buf_printf(out, "\n# TYPE %s %s\n", f->name, type_word(f->type));
    for (uint32_t j = 0; j < f->nseries; j++) {
      const fl_metric_series_snap_t *ss = &f->series[j];
      if (f->type != FL_METRIC_HISTOGRAM) {
        sample_head(f, ss, "", NULL, out);
        fl_buf_append_u8(out, ' ');
        fl_metrics_text_value(ss->u.value, out);
        fl_buf_append_u8(out, '\n');
        continue;
      }
      for (uint32_t b = 0; b <= f->nbounds; b++) {
        double le = b < f->nbounds ? f->bounds[b] : INFINITY;
        sample_head(f, ss, "_bucket", &le, out);
        fl_buf_printf(out, " %llu\n", (unsigned long long)ss->u.hist.cumulative[b]);
      }
      sample_head(f, ss, "_sum", NULL, out);
      fl_buf_append_u8(out, ' ');
      fl_metrics_text_value(ss->u.hist.sum, out);
      fl_buf_append_u8(out, '\n');
      sample_head(f, ss, "_count", NULL, out);
      fl_buf_printf(out, " %llu\n", (unsigned long long)ss->u.hist.count);
    }
  }
}
