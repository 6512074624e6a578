/*
 * em3d - electromagnetic wave propagation on a bipartite graph, after the
 * Split-C Em3d benchmark's published description.
 *
 * There are n E nodes and n H nodes. Each E node depends on `degree` H
 * nodes and each H node on `degree` E nodes, with fixed weights. An
 * iteration first updates every E node from its H neighbours,
 *     e[i] = 0.9 e[i] + sum_k w_ik h[nbr_ik],
 * then every H node from its E neighbours the same way (|w| < 0.1/degree, so
 * values stay bounded). Most edges join nodes at most 32 apart; `remote`
 * percent of them reach up to `span` nodes away, which crosses into other
 * processes' nodes. The graph depends only on n, degree, remote and span.
 *
 * Sharing: the E and H value arrays are shared, divided into equal runs of
 * whole pages, each run homed at the process that updates it. The graph
 * (neighbours and weights) is read-only and each process builds its own part
 * privately. Two barriers per iteration, after the E half and after the H
 * half; after each, a process re-reads the pages of its neighbours' nodes
 * that its edges reach.
 *
 * Verification: rank 0 builds the whole graph, runs the same iterations
 * sequentially and compares every value (the per-node arithmetic is the
 * same, so they must agree to 1e-12, in practice bit for bit).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "appkit.h"
#include "jia.h"

static const char usage[] =
    "usage: em3d [-n nodes] [-d degree] [-r remote%] [-s span] [-i iterations]\n"
    "  -n  nodes of each kind (default 2^14; benchmark 2^19)\n"
    "  -d  edges per node (default 8; benchmark 10)\n"
    "  -r  percent of edges that reach up to `span` nodes away (default 20)\n"
    "  -s  span of those edges in nodes (default 2048)\n"
    "  -i  iterations (default 5; benchmark 100)\n";

struct graph {
  long lo, hi, degree; /* nodes [lo, hi) of one kind, degree edges each */
  int *nbr;            /* nbr[(i - lo) * degree + k] */
  double *w;
};

/* Builds the edges of nodes [lo, hi) of one kind (kind 0: E nodes, 1: H nodes). */
static void build(struct graph *g, int kind, long lo, long hi, long n, long degree, long remote, long span) {
  g->lo = lo;
  g->hi = hi;
  g->degree = degree;
  size_t edges = (size_t)((hi - lo) * degree);
  g->nbr = malloc((edges ? edges : 1) * sizeof *g->nbr);
  g->w = malloc((edges ? edges : 1) * sizeof *g->w);
  if (g->nbr == NULL || g->w == NULL) {
    fprintf(stderr, "em3d: out of memory for the graph\n");
    exit(1);
  }
  for (long i = lo; i < hi; ++i)
    for (long k = 0; k < degree; ++k) {
      uint64_t key = appkit_key2((uint64_t)(kind * n + i), (uint64_t)k);
      uint64_t h1 = appkit_hash64(key), h2 = appkit_hash64(key ^ 0x5bd1e995ULL);
      long reach = (long)(h1 % 100) < remote ? span : 32;
      long off = (long)(h2 % (uint64_t)(2 * reach + 1)) - reach;
      long j = ((i + off) % n + n) % n;
      size_t e = (size_t)((i - lo) * degree + k);
      g->nbr[e] = (int)j;
      g->w[e] = (appkit_unit(key ^ 0xc2b2ae35ULL) - 0.5) * 0.2 / (double)degree;
    }
}

static void release(struct graph *g) {
  free(g->nbr);
  free(g->w);
}

/* One half-iteration: x[i] = 0.9 x[i] + sum w y[nbr] for the graph's nodes. */
static void relax(double *x, const double *y, const struct graph *g) {
  for (long i = g->lo; i < g->hi; ++i) {
    const int *nb = g->nbr + (i - g->lo) * g->degree;
    const double *w = g->w + (i - g->lo) * g->degree;
    double s = 0.9 * x[i];
    for (long k = 0; k < g->degree; ++k) s += w[k] * y[nb[k]];
    x[i] = s;
  }
}

static double initial(int kind, long i) { return appkit_unit(appkit_key2((uint64_t)(3 + kind), (uint64_t)i)) - 0.5; }

int main(int argc, char **argv) {
  const char *opt[5] = {NULL, NULL, NULL, NULL, NULL};
  appkit_opts(argc, argv, "ndrsi", opt, usage);
  long n = appkit_long(opt[0], 'n', 1L << 14, 1, 1L << 28);
  long degree = appkit_long(opt[1], 'd', 8, 1, 1000);
  long remote = appkit_long(opt[2], 'r', 20, 0, 100);
  long span = appkit_long(opt[3], 's', 2048, 1, 1L << 28);
  long iters = appkit_long(opt[4], 'i', 5, 1, 1000000);

  jia_init(argc, argv);
  const int me = jiapid, procs = jiahosts;
  const long per_page = Pagesize / (long)sizeof(double);
  const long pages = (n + per_page - 1) / per_page;
  const long my_nodes = appkit_band_rows(pages, procs) * per_page; /* nodes per process, whole pages */
  const long bytes = pages * Pagesize;
  if (bytes > 0x7fffffffL) jia_error("em3d: too many nodes for jia_alloc3");
  double *e = (double *)jia_alloc3((int)bytes, (int)(my_nodes * (long)sizeof(double)), 0);
  double *h = (double *)jia_alloc3((int)bytes, (int)(my_nodes * (long)sizeof(double)), 0);

  long lo = me * my_nodes < n ? me * my_nodes : n, hi = lo + my_nodes < n ? lo + my_nodes : n;
  struct graph ge, gh;
  build(&ge, 0, lo, hi, n, degree, remote, span);
  build(&gh, 1, lo, hi, n, degree, remote, span);
  for (long i = lo; i < hi; ++i) {
    e[i] = initial(0, i);
    h[i] = initial(1, i);
  }

  jia_barrier();
  float t0 = jia_clock();
  jia_startstat();
  for (long it = 0; it < iters; ++it) {
    relax(e, h, &ge);
    jia_barrier();
    relax(h, e, &gh);
    jia_barrier();
  }
  jia_stopstat();
  float t1 = jia_clock();
  release(&ge);
  release(&gh);

  int ok = 1;
  if (me == 0) {
    double *re = malloc((size_t)n * sizeof *re), *rh = malloc((size_t)n * sizeof *rh);
    if (re == NULL || rh == NULL) jia_error("em3d: out of memory for the reference");
    struct graph fe, fh;
    build(&fe, 0, 0, n, n, degree, remote, span);
    build(&fh, 1, 0, n, n, degree, remote, span);
    for (long i = 0; i < n; ++i) {
      re[i] = initial(0, i);
      rh[i] = initial(1, i);
    }
    for (long it = 0; it < iters; ++it) {
      relax(re, rh, &fe);
      relax(rh, re, &fh);
    }
    for (long i = 0; i < n && ok; ++i)
      if (!(fabs(e[i] - re[i]) <= 1e-12) || !(fabs(h[i] - rh[i]) <= 1e-12)) {
        fprintf(stderr, "em3d: verification FAILED: node %ld has e=%.17g h=%.17g, the sequential run has e=%.17g h=%.17g\n",
                i, e[i], h[i], re[i], rh[i]);
        ok = 0;
      }
    release(&fe);
    release(&fh);
    free(re);
    free(rh);
    char size[96];
    snprintf(size, sizeof size, "n=%ld degree=%ld remote=%ld span=%ld iters=%ld", n, degree, remote, span, iters);
    appkit_result("em3d", SCOPEDSM_VARIANT, procs, size, (double)(t1 - t0), ok);
  }
  jia_exit();
  return ok ? 0 : 1;
}
