/*
 * st_exchange.c - the channels between a job's lanes (layer 10, stream).
 * See st_exchange.h.
 *
 * Placing a row. The sender groups the live rows of a batch by lane with
 * the partitioner every keyed hand-off uses (exec/ex_partition.h: the
 * group hash table's hash of the key columns, so equal keys meet on one
 * lane whichever lane read them; no allocation); each other lane's rows
 * are gathered into the next free message of the channel, then the
 * sender's own rows go to its operator as a selection over the batch (no
 * copy).
 *
 * Channels. A channel is a single-producer single-consumer ring of
 * CH_SLOTS messages; `tail` (the producer's) and `head` (the consumer's)
 * count messages and only grow. A message owns a batch made on first use
 * and refilled ever after (vectors keep their memory), so steady state
 * allocates nothing. The consumer advances head only after the message
 * went into its operator, so an empty channel means nothing of it is
 * left anywhere but in operators. A full channel makes the sender drain
 * its own lane and then sleep on its bell, which the consumer rings when
 * it frees a message.
 *
 * Watermarks. The receiving side of lane k keeps per source lane s the
 * largest watermark received, and whether s is idle or finished. After a
 * watermark, idle, active or finish message it forwards the minimum over
 * the lanes neither idle nor finished when that minimum exceeds what it
 * forwarded before (so it never goes back); with every lane idle or
 * finished none holds it back: the largest of theirs is forwarded, as
 * st_watermark.h does for the partitions of one source. The N-th finish
 * finishes the operator.
 *
 * States of a lane's receiving side: OPEN (fewer than N finishes) ->
 * DONE (target finished). Of a sender: ACTIVE <-> IDLE, then FINISHED.
 */
#include "stream/st_exchange.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "base/alloc.h"
#include "exec/ex_partition.h"
#include "exec/ex_vec.h"
#include "stream/st_watermark.h"

#define CH_SLOTS 8

typedef enum msg_kind { MSG_ROWS, MSG_WATERMARK, MSG_IDLE, MSG_ACTIVE, MSG_FINISH } msg_kind_t;

typedef struct msg {
  msg_kind_t kind;
  int64_t ts;
  ty_batch_t *rows; /* made on first use */
} msg_t;

typedef struct channel {
  _Atomic uint64_t head; /* the consumer's */
  char pad[56];          /* apart from tail: the two lanes write one each */
  _Atomic uint64_t tail; /* the producer's */
  msg_t slot[CH_SLOTS];
} channel_t;

typedef struct bell {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  _Atomic uint64_t seq;
  _Atomic uint32_t sleepers;
} bell_t;

/* What lane k's receiving side knows of source lane s. */
typedef struct from {
  int64_t wm;
  bool idle, finished;
} from_t;

/* Lane l's two ends of one exchange. */
typedef struct xlane {
  ex_op_t op; /* the sender */
  st_exchange_t *x;
  uint32_t lane;
  ex_op_t *target;
  /* sender */
  ex_partitioner_t *parts; /* the rows of a batch by receiving lane */
  bool idle, finished;
  /* receiver */
  from_t *from;
  uint32_t nfinished;
  int64_t forwarded;
  bool done;
} xlane_t;

struct st_exchange {
  st_exchange_hub_t *hub;
  const ty_schema_t *schema;
  uint32_t *key_cols, nkeys;
  uint32_t n;
  xlane_t *lanes;
  channel_t *ch; /* ch[s * n + k]: lane s to lane k */
};

struct st_exchange_hub {
  uint32_t n;
  st_exchange_t **xs;
  uint32_t nxs;
  bell_t *bells;
  _Atomic bool aborted;
};

/* ---- bells ---- */

static void bell_ring(bell_t *b) {
  atomic_fetch_add(&b->seq, 1);
  if (atomic_load(&b->sleepers)) {
    pthread_mutex_lock(&b->mu);
    pthread_cond_broadcast(&b->cv);
    pthread_mutex_unlock(&b->mu);
  }
}

static void bell_wait(bell_t *b, uint64_t ticket, int timeout_ms) {
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_nsec += (long)timeout_ms * 1000000L;
  until.tv_sec += until.tv_nsec / 1000000000L;
  until.tv_nsec %= 1000000000L;
  pthread_mutex_lock(&b->mu);
  atomic_fetch_add(&b->sleepers, 1);
  while (atomic_load(&b->seq) == ticket)
    if (pthread_cond_timedwait(&b->cv, &b->mu, &until) == ETIMEDOUT) break;
  atomic_fetch_sub(&b->sleepers, 1);
  pthread_mutex_unlock(&b->mu);
}

/* ---- the receiving side ---- */

static int combine(xlane_t *l, fl_err_t *err) {
  int64_t min = INT64_MAX, max = ST_NO_WATERMARK;
  bool any = false;
  for (uint32_t s = 0; s < l->x->n; s++) {
    if (l->from[s].wm > max) max = l->from[s].wm;
    if (l->from[s].idle || l->from[s].finished) continue;
    any = true;
    if (l->from[s].wm < min) min = l->from[s].wm;
  }
  /* Every lane idle or finished: none holds the watermark back (as with
   * the partitions of one source, st_watermark.h). */
  if (!any) min = max;
  if (min == ST_NO_WATERMARK || min == INT64_MAX || min <= l->forwarded) return FL_OK;
  l->forwarded = min;
  return ex_op_watermark(l->target, min, err);
}

/* Message m of source lane s into lane l's target. */
static int deliver(xlane_t *l, uint32_t s, msg_kind_t kind, int64_t ts, const ty_batch_t *rows,
                   fl_err_t *err) {
  from_t *f = &l->from[s];
  switch (kind) {
    case MSG_ROWS: return ex_op_push(l->target, rows, err);
    case MSG_WATERMARK:
      if (ts > f->wm) f->wm = ts;
      break;
    case MSG_IDLE: f->idle = true; break;
    case MSG_ACTIVE: f->idle = false; break;
    case MSG_FINISH:
      if (f->finished) return fl_err_set(err, FL_EINTERNAL, "exchange: lane %u finished twice", s);
      f->finished = true;
      if (++l->nfinished == l->x->n) {
        l->done = true;
        return ex_op_finish(l->target, err);
      }
      break;
  }
  return combine(l, err);
}

int st_exchange_hub_drain(st_exchange_hub_t *h, uint32_t k, bool *did, fl_err_t *err) {
  *did = false;
  for (uint32_t i = 0; i < h->nxs; i++) {
    st_exchange_t *x = h->xs[i];
    xlane_t *l = &x->lanes[k];
    for (uint32_t s = 0; s < x->n; s++) {
      if (s == k) continue;
      channel_t *c = &x->ch[s * x->n + k];
      uint64_t head = atomic_load_explicit(&c->head, memory_order_relaxed);
      uint64_t tail = atomic_load_explicit(&c->tail, memory_order_acquire);
      /* At most one ring's worth, so the lane's own sources get their turn. */
      for (; head < tail; head++) {
        msg_t *m = &c->slot[head % CH_SLOTS];
        int rc = deliver(l, s, m->kind, m->ts, m->rows, err);
        atomic_store_explicit(&c->head, head + 1, memory_order_release);
        bell_ring(&h->bells[s]);
        *did = true;
        if (rc) return rc;
      }
    }
  }
  return FL_OK;
}

bool st_exchange_hub_pending(const st_exchange_hub_t *h, uint32_t k) {
  for (uint32_t i = 0; i < h->nxs; i++) {
    const st_exchange_t *x = h->xs[i];
    for (uint32_t s = 0; s < x->n; s++) {
      const channel_t *c = &x->ch[s * x->n + k];
      if (s != k && atomic_load(&c->head) != atomic_load(&c->tail)) return true;
    }
  }
  return false;
}

/* ---- the sending side ---- */

/* Message kind (with ts, or rows[0..n) of b) from lane l to lane d. */
static int send(xlane_t *l, uint32_t d, msg_kind_t kind, int64_t ts, const ty_batch_t *b,
                const uint32_t *rows, uint32_t n, fl_err_t *err) {
  st_exchange_t *x = l->x;
  st_exchange_hub_t *h = x->hub;
  if (d == l->lane) {
    if (kind != MSG_ROWS) return deliver(&x->lanes[d], d, kind, ts, NULL, err);
    ty_batch_t view = {.schema = b->schema,
                       .ncols = b->ncols,
                       .cols = b->cols,
                       .nrows = b->nrows,
                       .sel = (uint32_t *)rows,
                       .nsel = n};
    return ex_op_push(x->lanes[d].target, &view, err);
  }
  channel_t *c = &x->ch[l->lane * x->n + d];
  uint64_t tail = atomic_load_explicit(&c->tail, memory_order_relaxed);
  while (tail - atomic_load_explicit(&c->head, memory_order_acquire) >= CH_SLOTS) {
    if (atomic_load(&h->aborted))
      return fl_err_set(err, FL_EINTERNAL, "exchange: another worker thread failed");
    uint64_t t = st_exchange_hub_ticket(h, l->lane);
    bool did;
    int rc = st_exchange_hub_drain(h, l->lane, &did, err);
    if (rc) return rc;
    if (!did && tail - atomic_load(&c->head) >= CH_SLOTS) bell_wait(&h->bells[l->lane], t, 10);
  }
  msg_t *m = &c->slot[tail % CH_SLOTS];
  m->kind = kind;
  m->ts = ts;
  if (kind == MSG_ROWS) {
    if (!m->rows) m->rows = ty_batch_new(x->schema, 64);
    ty_batch_reset(m->rows);
    for (uint32_t col = 0; col < m->rows->ncols; col++)
      ex_vec_gather(m->rows->cols[col], b->cols[col], rows, n);
    m->rows->nrows = n;
  }
  atomic_store_explicit(&c->tail, tail + 1, memory_order_release);
  bell_ring(&h->bells[d]);
  return FL_OK;
}

/* The same message to every lane, the sender's own last. */
static int send_all(xlane_t *l, msg_kind_t kind, int64_t ts, fl_err_t *err) {
  uint32_t n = l->x->n;
  for (uint32_t i = 1; i <= n; i++) {
    int rc = send(l, (l->lane + i) % n, kind, ts, NULL, NULL, 0, err);
    if (rc) return rc;
  }
  return FL_OK;
}

static int xs_push(ex_op_t *op, const ty_batch_t *b, fl_err_t *err) {
  xlane_t *l = (xlane_t *)op;
  st_exchange_t *x = l->x;
  uint32_t live = ty_batch_live(b), n = x->n;
  if (!live) return FL_OK;
  if (l->finished) return fl_err_set(err, FL_EINTERNAL, "exchange: rows after finish");
  if (l->idle) {
    /* Rows from a lane the receivers thought idle: count it again. */
    l->idle = false;
    int rc = send_all(l, MSG_ACTIVE, 0, err);
    if (rc) return rc;
  }
  ex_partitioner_split(l->parts, b);
  /* Other lanes first, so they start on their share while this one works. */
  for (uint32_t i = 1; i <= n; i++) {
    uint32_t d = (l->lane + i) % n;
    uint32_t cnt;
    const uint32_t *rows = ex_partitioner_part(l->parts, d, &cnt);
    if (!cnt) continue;
    int rc = send(l, d, MSG_ROWS, 0, b, rows, cnt, err);
    if (rc) return rc;
  }
  return FL_OK;
}

static int xs_watermark(ex_op_t *op, int64_t ts, fl_err_t *err) {
  xlane_t *l = (xlane_t *)op;
  if (l->finished) return FL_OK;
  if (l->idle) {
    l->idle = false;
    int rc = send_all(l, MSG_ACTIVE, 0, err);
    if (rc) return rc;
  }
  return send_all(l, MSG_WATERMARK, ts, err);
}

static int xs_finish(ex_op_t *op, fl_err_t *err) {
  xlane_t *l = (xlane_t *)op;
  if (l->finished) return fl_err_set(err, FL_EINTERNAL, "exchange: finished twice");
  l->finished = true;
  return send_all(l, MSG_FINISH, 0, err);
}

/* The channels are drained before a checkpoint: the sender holds nothing. */
static int xs_checkpoint(ex_op_t *op, fl_buf_t *w, fl_err_t *err) {
  (void)op;
  (void)w;
  (void)err;
  return FL_OK;
}
static int xs_restore(ex_op_t *op, fl_rd_t *r, fl_err_t *err) {
  (void)op;
  (void)r;
  (void)err;
  return FL_OK;
}
static void xs_destroy(ex_op_t *op) { (void)op; /* freed with the hub */ }

static const ex_op_vt_t sender_vt = {
    .name = "exchange",
    .push = xs_push,
    .watermark = xs_watermark,
    .finish = xs_finish,
    .checkpoint = xs_checkpoint,
    .restore = xs_restore,
    .destroy = xs_destroy,
};

int st_exchange_set_idle(st_exchange_t *x, uint32_t lane, bool idle, fl_err_t *err) {
  xlane_t *l = &x->lanes[lane];
  if (l->finished || l->idle == idle) return FL_OK;
  l->idle = idle;
  return send_all(l, idle ? MSG_IDLE : MSG_ACTIVE, 0, err);
}

bool st_exchange_done(const st_exchange_t *x, uint32_t lane) { return x->lanes[lane].done; }

/* ---- set-up ---- */

st_exchange_hub_t *st_exchange_hub_new(uint32_t nlanes) {
  st_exchange_hub_t *h = fl_calloc(1, sizeof *h);
  h->n = nlanes;
  h->bells = fl_calloc(nlanes, sizeof *h->bells);
  for (uint32_t i = 0; i < nlanes; i++) {
    pthread_mutex_init(&h->bells[i].mu, NULL);
    pthread_cond_init(&h->bells[i].cv, NULL);
  }
  return h;
}

st_exchange_t *st_exchange_new(st_exchange_hub_t *h, const ty_schema_t *schema,
                               const uint32_t *key_cols, uint32_t nkeys) {
  st_exchange_t *x = fl_calloc(1, sizeof *x);
  uint32_t n = h->n;
  x->hub = h;
  x->schema = schema;
  x->n = n;
  x->nkeys = nkeys;
  x->key_cols = fl_calloc(nkeys ? nkeys : 1, sizeof *x->key_cols);
  if (nkeys) memcpy(x->key_cols, key_cols, nkeys * sizeof *key_cols);
  const ty_type_t **kt = fl_calloc(nkeys ? nkeys : 1, sizeof *kt);
  for (uint32_t c = 0; c < nkeys; c++) kt[c] = schema->root.fields[key_cols[c]].type;
  x->ch = fl_calloc((size_t)n * n, sizeof *x->ch);
  x->lanes = fl_calloc(n, sizeof *x->lanes);
  for (uint32_t i = 0; i < n; i++) {
    xlane_t *l = &x->lanes[i];
    l->op.vt = &sender_vt;
    l->op.out_schema = schema;
    l->x = x;
    l->lane = i;
    l->parts = ex_partitioner_new(kt, key_cols, nkeys, n);
    l->from = fl_calloc(n, sizeof *l->from);
    for (uint32_t s = 0; s < n; s++) l->from[s].wm = ST_NO_WATERMARK;
    l->forwarded = ST_NO_WATERMARK;
  }
  fl_free(kt);
  h->xs = fl_realloc(h->xs, (h->nxs + 1) * sizeof *h->xs);
  h->xs[h->nxs++] = x;
  return x;
}

ex_op_t *st_exchange_attach(st_exchange_t *x, uint32_t lane, ex_op_t *target) {
  x->lanes[lane].target = target;
  x->lanes[lane].op.next = target;
  return &x->lanes[lane].op;
}

static void exchange_free(st_exchange_t *x) {
  for (uint32_t i = 0; i < x->n; i++) {
    xlane_t *l = &x->lanes[i];
    ex_partitioner_free(l->parts);
    fl_free(l->from);
  }
  for (size_t c = 0; c < (size_t)x->n * x->n; c++)
    for (uint32_t k = 0; k < CH_SLOTS; k++) ty_batch_free(x->ch[c].slot[k].rows);
  fl_free(x->ch);
  fl_free(x->lanes);
  fl_free(x->key_cols);
  fl_free(x);
}

void st_exchange_hub_free(st_exchange_hub_t *h) {
  if (!h) return;
  for (uint32_t i = 0; i < h->nxs; i++) exchange_free(h->xs[i]);
  for (uint32_t i = 0; i < h->n; i++) {
    pthread_mutex_destroy(&h->bells[i].mu);
    pthread_cond_destroy(&h->bells[i].cv);
  }
  fl_free(h->bells);
  fl_free(h->xs);
  fl_free(h);
}

/* ---- the hub ---- */

uint64_t st_exchange_hub_ticket(const st_exchange_hub_t *h, uint32_t lane) {
  return atomic_load(&h->bells[lane].seq);
}

void st_exchange_hub_wait(st_exchange_hub_t *h, uint32_t lane, uint64_t ticket, int timeout_ms) {
  bell_wait(&h->bells[lane], ticket, timeout_ms);
}

void st_exchange_hub_wake(st_exchange_hub_t *h, uint32_t lane) { bell_ring(&h->bells[lane]); }

void st_exchange_hub_abort(st_exchange_hub_t *h) {
  atomic_store(&h->aborted, true);
  for (uint32_t i = 0; i < h->n; i++) bell_ring(&h->bells[i]);
}

bool st_exchange_hub_quiet(const st_exchange_hub_t *h) {
  for (uint32_t i = 0; i < h->nxs; i++) {
    const st_exchange_t *x = h->xs[i];
    for (size_t c = 0; c < (size_t)x->n * x->n; c++)
      if (atomic_load(&x->ch[c].head) != atomic_load(&x->ch[c].tail)) return false;
  }
  return true;
}
