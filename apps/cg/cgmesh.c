/*
 * cgmesh - unpreconditioned conjugate gradient on an unstructured mesh-like
 * sparse matrix, assembled serially by rank 0, for measuring re-homing on
 * next touch (scopedsm_next_touch, SCOPEDSM_NEXT_TOUCH; docs/PROTOCOL.md
 * §6c).
 *
 * The matrix. The points of an m x m grid are the unknowns (n = m * m).
 * Two points whose grid distance is at most 2 in each direction are joined
 * with probability 0.58 (a hash of the pair decides), about 14 neighbours
 * per point, so a row has about 15 non-zeros. The points arrive numbered in
 * a random order (an unstructured mesh as a generator would write it); rank
 * 0 renumbers them with reverse Cuthill-McKee (breadth-first from a far
 * point, neighbours by increasing degree, then reversed), which brings the
 * bandwidth down to a few grid rows. Off-diagonal entries are -0.1 .. -1.0
 * (a hash of the pair), the diagonal is the sum of their magnitudes plus
 * 0.05: symmetric, diagonally dominant, positive definite. The right-hand
 * side is A x* for a pseudo-random x*; x starts at 0.
 *
 * Sharing. Everything is in one allocation homed at rank 0 (scopedsm_alloc_on),
 * which assembles the matrix (row starts, columns, values) and sets b, r = b,
 * p = b: the serial set-up of a program that reads its mesh on one process.
 * The rows are dealt to the processes in blocks of whole pages of the
 * vectors (512 rows). Each CG iteration reads the process's rows of the
 * matrix and p at their columns, and writes its own parts of q, x, r and p;
 * two dot products are reduced through one page per process and a barrier
 * each, and a third barrier publishes p: 3 barriers per iteration.
 *
 * Re-homing (-r): none leaves every home at rank 0; once calls
 * scopedsm_next_touch on the whole allocation just before the first
 * iteration (timed with it), so each page moves to the process that touches
 * it next; auto sets SCOPEDSM_NEXT_TOUCH=barrier:1 (unless the environment
 * sets it), so the barrier that ends the set-up is the next-touch point.
 * Which touch counts is SCOPEDSM_NEXT_TOUCH_ON (touch or write).
 *
 * Output: besides the SCOPEDSM_RESULT line (time_s: the timed iterations),
 * rank 0 prints the time of the first iteration, where the re-homing cost
 * lands (with -r once, the next-touch point too), and the mean of the
 * others. From a run with re-homing and one without, the break-even
 * iteration count is (first_with - first_without) / (later_without -
 * later_with), when the later iterations got faster.
 *
 * Verification: rank 0 computes the true residual |b - A x| / |b| from the
 * shared data after the last iteration and compares it with the recursive
 * one the iteration carried, sqrt(r.r) / |b|. They agree to rounding in a
 * correct run; a run that reads stale p or loses writes drifts apart by
 * orders of magnitude (app.cgmesh.fault). The recursive residual must also
 * have fallen (below 0.5).
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "appkit.h"
#include "scopedsm.h"

#define KEEP 0.58    /* chance that two points in a 5x5 window are joined */
#define SHIFT 0.05   /* diagonal margin over the off-diagonal magnitudes */
#define WINDOW 2     /* neighbours within this grid distance per direction */
#define MAX_ROW ((2 * WINDOW + 1) * (2 * WINDOW + 1))
#define CHUNK 512    /* rows per block: one page of doubles */

static const char usage[] =
    "usage: cgmesh [-m side] [-i iterations] [-r none|once|auto]\n"
    "  -m  mesh points per side, n = m*m rows (default 48; benchmark 400)\n"
    "  -i  CG iterations, all timed (default 30; benchmark 100)\n"
    "  -r  re-homing of the data rank 0 assembled: none (default), once\n"
    "      (scopedsm_next_touch before the first iteration) or auto\n"
    "      (SCOPEDSM_NEXT_TOUCH=barrier:1 unless the environment sets it)\n";

/* Whether grid points a < b (within the window) are joined, and the entry. */
static int joined(long a, long b) { return appkit_unit(appkit_key2(0xed6eULL, appkit_key2((uint64_t)a, (uint64_t)b))) < KEEP; }
static double weight(long a, long b) {
  return -(0.1 + 0.9 * appkit_unit(appkit_key2(0x3e16ULL, appkit_key2((uint64_t)a, (uint64_t)b))));
}

/* Calls fn(b) for each grid point b joined to a, in a fixed order. */
#define FOR_NEIGHBOURS(m, a, b, body)                                          \
  do {                                                                         \
    long ai_ = (a) / (m), aj_ = (a) % (m);                                     \
    for (long di_ = -WINDOW; di_ <= WINDOW; ++di_)                             \
      for (long dj_ = -WINDOW; dj_ <= WINDOW; ++dj_) {                         \
        long bi_ = ai_ + di_, bj_ = aj_ + dj_;                                 \
        if ((di_ == 0 && dj_ == 0) || bi_ < 0 || bj_ < 0 || bi_ >= (m) || bj_ >= (m)) continue; \
        long b = bi_ * (m) + bj_;                                              \
        if (!((a) < b ? joined((a), b) : joined(b, (a)))) continue;            \
        body;                                                                  \
      }                                                                        \
  } while (0)

static void *checked_malloc(size_t bytes) {
  void *p = malloc(bytes == 0 ? 1 : bytes);
  if (p == NULL) scopedsm_fatal("cgmesh: out of memory (%zu bytes)", bytes);
  return p;
}

/* The shared allocation: arrays at page-aligned offsets. */
struct layout {
  long n, nnz;
  size_t off_start, off_col, off_val, off_b, off_x, off_r, off_p, off_q, off_slots, off_hdr, bytes;
  long per_page; /* doubles per page: process q's slots are slots[q * per_page + 0/1] */
};

static size_t round_up(size_t v, size_t page) { return (v + page - 1) / page * page; }

static void plan(struct layout *l, long n, long nnz, int procs, size_t page) {
  size_t at = 0;
  l->n = n;
  l->nnz = nnz;
  l->per_page = (long)(page / sizeof(double));
#define PLACE(field, bytes) (l->field = at, at = round_up(at + (bytes), page))
  PLACE(off_start, (size_t)(n + 1) * sizeof(long));
  PLACE(off_col, (size_t)nnz * sizeof(int));
  PLACE(off_val, (size_t)nnz * sizeof(double));
  PLACE(off_b, (size_t)n * sizeof(double));
  PLACE(off_x, (size_t)n * sizeof(double));
  PLACE(off_r, (size_t)n * sizeof(double));
  PLACE(off_p, (size_t)n * sizeof(double));
  PLACE(off_q, (size_t)n * sizeof(double));
  PLACE(off_slots, (size_t)procs * page);
  PLACE(off_hdr, sizeof(double));
#undef PLACE
  l->bytes = at;
}

/* Reverse Cuthill-McKee over the graph xadj/adj (n nodes): order[k] is the
 * node at position k. Each component starts from the last node a
 * breadth-first search from its lowest-numbered node reaches (a far node);
 * neighbours join the queue by increasing degree, then number. */
static void rcm(long n, const long *xadj, const long *adj, long *order) {
  char *seen = calloc((size_t)n, 1);
  long *stamp = checked_malloc((size_t)n * sizeof *stamp), *queue = checked_malloc((size_t)n * sizeof *queue);
  long tmp[MAX_ROW];
  if (seen == NULL) scopedsm_fatal("cgmesh: out of memory");
  for (long v = 0; v < n; ++v) stamp[v] = -1;
  long placed = 0;
  for (long s = 0; s < n; ++s) {
    if (seen[s]) continue;
    /* A far node of s's component: the last one a search from s reaches. */
    long head = 0, tail = 0, far = s;
    queue[tail++] = s;
    stamp[s] = s;
    while (head < tail) {
      long u = queue[head++];
      far = u;
      for (long e = xadj[u]; e < xadj[u + 1]; ++e)
        if (stamp[adj[e]] != s) {
          stamp[adj[e]] = s;
          queue[tail++] = adj[e];
        }
    }
    /* Cuthill-McKee from it. */
    long first = placed;
    order[placed++] = far;
    seen[far] = 1;
    for (long k = first; k < placed; ++k) {
      long u = order[k], cnt = 0;
      for (long e = xadj[u]; e < xadj[u + 1]; ++e)
        if (!seen[adj[e]]) {
          seen[adj[e]] = 1;
          tmp[cnt++] = adj[e];
        }
      for (long i = 1; i < cnt; ++i) { /* insertion sort by (degree, number) */
        long v = tmp[i], dv = xadj[v + 1] - xadj[v], j = i - 1;
        while (j >= 0) {
          long w = tmp[j], dw = xadj[w + 1] - xadj[w];
          if (dw < dv || (dw == dv && w < v)) break;
          tmp[j + 1] = w;
          --j;
        }
        tmp[j + 1] = v;
      }
      for (long i = 0; i < cnt; ++i) order[placed++] = tmp[i];
    }
  }
  for (long i = 0, j = n - 1; i < j; ++i, --j) { /* reversed */
    long t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  free(seen);
  free(stamp);
  free(queue);
}

/* Rank 0's serial set-up: the matrix in RCM order, b = A x*, x = 0, r = p = b. */
static void assemble(char *base, const struct layout *l, long m) {
  const long n = l->n;
  long *start = (long *)(base + l->off_start);
  int *col = (int *)(base + l->off_col);
  double *val = (double *)(base + l->off_val), *b = (double *)(base + l->off_b);
  double *x = (double *)(base + l->off_x), *r = (double *)(base + l->off_r), *p = (double *)(base + l->off_p);
  /* The generator's numbering: a random permutation of the grid points. */
  long *label = checked_malloc((size_t)n * sizeof *label), *point = checked_malloc((size_t)n * sizeof *point);
  for (long a = 0; a < n; ++a) label[a] = a;
  for (long a = n - 1; a > 0; --a) {
    long k = (long)(appkit_hash64(appkit_key2(0x5c4aULL, (uint64_t)a)) % (uint64_t)(a + 1));
    long t = label[a];
    label[a] = label[k];
    label[k] = t;
  }
  for (long a = 0; a < n; ++a) point[label[a]] = a;
  /* The graph in that numbering. */
  long *xadj = checked_malloc((size_t)(n + 1) * sizeof *xadj);
  long *adj = checked_malloc((size_t)(l->nnz - n) * sizeof *adj);
  xadj[0] = 0;
  for (long v = 0; v < n; ++v) {
    long a = point[v], e = xadj[v];
    FOR_NEIGHBOURS(m, a, bpt, adj[e++] = label[bpt]);
    xadj[v + 1] = e;
  }
  long *order = checked_malloc((size_t)n * sizeof *order), *pos = checked_malloc((size_t)n * sizeof *pos);
  rcm(n, xadj, adj, order);
  for (long k = 0; k < n; ++k) pos[order[k]] = k;
  /* Rows in the new order, columns sorted. */
  long e = 0;
  for (long i = 0; i < n; ++i) {
    long a = point[order[i]], cnt = 0;
    long cols[MAX_ROW];
    double vals[MAX_ROW], diag = SHIFT;
    FOR_NEIGHBOURS(m, a, bpt, {
      cols[cnt] = pos[label[bpt]];
      vals[cnt] = a < bpt ? weight(a, bpt) : weight(bpt, a);
      diag -= vals[cnt];
      ++cnt;
    });
    cols[cnt] = i;
    vals[cnt++] = diag;
    for (long s = 1; s < cnt; ++s) {
      long c = cols[s], t = s - 1;
      double v = vals[s];
      while (t >= 0 && cols[t] > c) {
        cols[t + 1] = cols[t];
        vals[t + 1] = vals[t];
        --t;
      }
      cols[t + 1] = c;
      vals[t + 1] = v;
    }
    start[i] = e;
    for (long s = 0; s < cnt; ++s, ++e) {
      col[e] = (int)cols[s];
      val[e] = vals[s];
    }
  }
  start[n] = e;
  if (e != l->nnz) scopedsm_fatal("cgmesh: assembled %ld entries where %ld were counted", e, l->nnz);
  for (long i = 0; i < n; ++i) {
    double s = 0.0;
    for (long k = start[i]; k < start[i + 1]; ++k)
      s += val[k] * (appkit_unit(appkit_key2(0x7a5eULL, (uint64_t)col[k])) - 0.5);
    b[i] = r[i] = p[i] = s;
    x[i] = 0.0;
  }
  free(label);
  free(point);
  free(xadj);
  free(adj);
  free(order);
  free(pos);
}

static double elapsed_since(double t0) { return scopedsm_time() - t0; }

int main(int argc, char **argv) {
  const char *opt[3] = {NULL, NULL, NULL};
  appkit_opts(argc, argv, "mir", opt, usage);
  const long m = appkit_long(opt[0], 'm', 48, 3, 4000);
  const long iters = appkit_long(opt[1], 'i', 30, 1, 100000);
  const char *mode = opt[2] == NULL ? "none" : opt[2];
  if (strcmp(mode, "none") != 0 && strcmp(mode, "once") != 0 && strcmp(mode, "auto") != 0) {
    fprintf(stderr, "cgmesh: -r %s: expected none, once or auto\n%s", mode, usage);
    return 2;
  }
  /* Read at start-up: the automatic mode must be in the environment first. */
  if (strcmp(mode, "auto") == 0) setenv("SCOPEDSM_NEXT_TOUCH", "barrier:1", 0);
  scopedsm_init(&argc, &argv);
  const int me = scopedsm_rank(), procs = scopedsm_size();
  const size_t page = scopedsm_page_size();
  const long n = m * m;

  /* Every process counts the entries (cheap), so all allocate alike. */
  long edges = 0;
  for (long a = 0; a < n; ++a) FOR_NEIGHBOURS(m, a, bpt, edges += bpt > a);
  struct layout l;
  plan(&l, n, n + 2 * edges, procs, page);
  if (n + 2 * edges > 2147483647L) scopedsm_fatal("cgmesh: -m %ld is too large for int columns", m);
  char *base = scopedsm_alloc_on(l.bytes, 0);
  if (me == 0) assemble(base, &l, m);
  scopedsm_barrier(); /* the set-up is done (with -r auto: the next-touch point) */

  const long *start = (const long *)(base + l.off_start);
  const int *col = (const int *)(base + l.off_col);
  const double *val = (const double *)(base + l.off_val), *b = (const double *)(base + l.off_b);
  double *x = (double *)(base + l.off_x), *r = (double *)(base + l.off_r), *p = (double *)(base + l.off_p);
  double *q = (double *)(base + l.off_q), *slots = (double *)(base + l.off_slots);
  double *hdr = (double *)(base + l.off_hdr);
  /* My rows: blocks of CHUNK rows, whole pages of every vector. */
  const long chunks = (n + CHUNK - 1) / CHUNK;
  long clo, chi;
  appkit_block(chunks, procs, me, &clo, &chi);
  const long lo = clo * CHUNK, hi = chi * CHUNK < n ? chi * CHUNK : n;
  double *mine = slots + me * l.per_page;

  if (me == 0) { /* r.r of the start, for everyone */
    double rr0 = 0.0;
    for (long i = 0; i < n; ++i) rr0 += b[i] * b[i];
    hdr[0] = rr0;
  }
  scopedsm_barrier();
  double rr = hdr[0];
  const double bnorm = sqrt(rr);
  double *iter_s = checked_malloc((size_t)iters * sizeof *iter_s);

  scopedsm_barrier();
  const double t0 = scopedsm_time();
  if (strcmp(mode, "once") == 0) scopedsm_next_touch(base, l.bytes);
  double last = t0;
  for (long it = 0; it < iters; ++it) {
    double pq = 0.0;
    for (long i = lo; i < hi; ++i) {
      double s = 0.0;
      for (long k = start[i]; k < start[i + 1]; ++k) s += val[k] * p[col[k]];
      q[i] = s;
      pq += p[i] * s;
    }
    mine[0] = pq;
    scopedsm_barrier();
    pq = 0.0;
    for (int o = 0; o < procs; ++o) pq += slots[o * l.per_page];
    const double alpha = rr / pq;
    double rr_part = 0.0;
    for (long i = lo; i < hi; ++i) {
      x[i] += alpha * p[i];
      r[i] -= alpha * q[i];
      rr_part += r[i] * r[i];
    }
    mine[1] = rr_part;
    scopedsm_barrier();
    double rr_new = 0.0;
    for (int o = 0; o < procs; ++o) rr_new += slots[o * l.per_page + 1];
    const double beta = rr_new / rr;
    rr = rr_new;
    for (long i = lo; i < hi; ++i) p[i] = r[i] + beta * p[i];
    scopedsm_barrier();
    const double now = scopedsm_time();
    iter_s[it] = now - last;
    last = now;
  }
  const double time_s = elapsed_since(t0);

  int verified = 1;
  if (me == 0) {
    double res = 0.0;
    for (long i = 0; i < n; ++i) {
      double s = b[i];
      for (long k = start[i]; k < start[i + 1]; ++k) s -= val[k] * x[col[k]];
      res += s * s;
    }
    const double true_rel = sqrt(res) / bnorm, rec_rel = sqrt(rr) / bnorm;
    verified = isfinite(true_rel) && isfinite(rec_rel) && rec_rel < 0.5 &&
               fabs(true_rel - rec_rel) <= 1e-9 + 1e-3 * rec_rel;
    double later = 0.0;
    for (long it = 1; it < iters; ++it) later += iter_s[it];
    printf("cgmesh: n=%ld nnz=%ld (%.1f per row) rehome=%s first_iter_s=%.6f later_iter_s=%.6f "
           "true_residual=%.3e recursive_residual=%.3e\n",
           n, l.nnz, (double)l.nnz / (double)n, mode, iter_s[0], iters > 1 ? later / (double)(iters - 1) : 0.0,
           true_rel, rec_rel);
    if (!verified) printf("cgmesh: verification FAILED: the true and recursive residuals differ\n");
    char size[128];
    snprintf(size, sizeof size, "m=%ld iters=%ld rehome=%s", m, iters, mode);
    appkit_result("cgmesh", SCOPEDSM_VARIANT, procs, size, time_s, verified);
  }
  free(iter_s);
  scopedsm_barrier();
  scopedsm_finalize();
  return verified ? 0 : 1;
}
