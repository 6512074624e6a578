/*
 * cg - conjugate gradient on a sparse symmetric positive definite matrix,
 * in the style of NAS CG: an inverse power iteration whose every step solves
 * A z = x approximately with 25 unpreconditioned CG iterations, then sets
 * zeta = 1 / (x . z) (an estimate of the smallest eigenvalue of A) and
 * x = z / |z|. x starts as all ones.
 *
 * The matrix (n rows) is made from n * nonzer random pairs (i, j), each
 * adding a weight in [-1, -0.1) at (i, j) and at (j, i); the diagonal is the
 * sum of the magnitudes in its row plus a pseudo-random margin in [1, 2), so
 * A is symmetric, strictly diagonally dominant and positive definite. It depends only on n and nonzer.
 *
 * Sharing: rows are divided into bands of whole pages of the vector p, one
 * band per process. Only p is shared (homed band by band at the process that
 * updates it), because the matrix-vector product reads p at arbitrary
 * columns; the matrix rows, x, z, r and q are private to the owner of the
 * rows. A dot product is reduced by writing the partial sum into the
 * process's own page of a shared array, a barrier, and every process adding
 * all partial sums in rank order. Three barriers per CG iteration (two dot
 * products and making the new p visible).
 *
 * Verification: for a named class (-c T, S, W, A or B) zeta and the
 * residual norm of the first CG solve must match the values this program's
 * sequential build computes for that class, stored below; for other sizes
 * rank 0 recomputes both sequentially. Dot products are added in a
 * different order on different process counts, so zeta is compared to a
 * relative 1e-10 and the residual norm (a small difference of large
 * numbers, about 1e-11 of |x|) to a relative 1e-4: rounding alone moved it
 * by 1.6e-6 of itself for class B on 2 processes, while a run that reads
 * stale parts of p (the app.cg.fault test) is off by twelve orders of
 * magnitude. zeta
 * converges to the smallest eigenvalue and alone could hide a solver that
 * converges badly (for instance one that read stale parts of p); the
 * residual of the first solve, where x is far from an eigenvector, would
 * not.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "appkit.h"
#include "jia.h"

#define CG_ITERS 25
#define SLOT_RHO 0
#define SLOT_PQ 1
#define SLOT_XZ 2
#define SLOT_ZZ 3

static const char usage[] =
    "usage: cg [-c class] [-n rows] [-k nonzer] [-i outer-iterations]\n"
    "  -c  size class T (test, default), S, W, A or B (benchmark)\n"
    "  -n, -k, -i  a custom size instead (verified against a sequential run)\n";

static const struct cg_class {
  char name;
  long n, nonzer, niter;
  double zeta, rnorm; /* computed by cg_seq */
} classes[] = {
    {'T', 2000, 5, 1, 7.480323199834510e-06, 3.017821701657609e-07},
    {'S', 1400, 7, 15, 1.496183405846608e-02, 2.166163883952505e-09},
    {'W', 7000, 8, 15, 1.496309507491991e-02, 1.016994424356348e-08},
    {'A', 14000, 11, 15, 1.498489237955531e-02, 1.315127950306490e-09},
    {'B', 75000, 13, 75, 1.498996836321521e-02, 7.880508859162091e-10},
};

/* Rows [lo, hi) of the matrix in compressed sparse row form. */
struct csr {
  long lo, hi;
  long *start; /* row i's entries are [start[i-lo], start[i-lo+1]) */
  int *col;
  double *val;
};

static void pair_of(long i, long t, long n, long *j, double *v) {
  uint64_t h = appkit_hash64(appkit_key2((uint64_t)i, (uint64_t)t));
  *j = (long)(h % (uint64_t)n);
  *v = -0.1 - 0.9 * appkit_unit(h);
}

/* Builds rows [lo, hi). Every process walks all pairs in the same order, so
 * each row's entries come out in the same order whoever builds it. */
static void build(struct csr *m, long lo, long hi, long n, long nonzer) {
  long rows = hi - lo;
  m->lo = lo;
  m->hi = hi;
  m->start = calloc((size_t)rows + 2, sizeof *m->start);
  if (m->start == NULL) jia_error("cg: out of memory");
  for (long i = 0; i < n; ++i)
    for (long t = 0; t < nonzer; ++t) {
      long j;
      double v;
      pair_of(i, t, n, &j, &v);
      if (j == i) continue;
      if (i >= lo && i < hi) m->start[i - lo + 2]++;
      if (j >= lo && j < hi) m->start[j - lo + 2]++;
    }
  for (long r = 0; r < rows; ++r) m->start[r + 2] += 1; /* the diagonal */
  for (long r = 0; r < rows; ++r) m->start[r + 2] += m->start[r + 1];
  long nnz = m->start[rows + 1];
  m->col = malloc((size_t)(nnz + 1) * sizeof *m->col);
  m->val = malloc((size_t)(nnz + 1) * sizeof *m->val);
  if (m->col == NULL || m->val == NULL) jia_error("cg: out of memory");
  /* start[r + 1] is now the fill position of row r. The diagonal goes first. */
  for (long r = 0; r < rows; ++r) {
    long e = m->start[r + 1]++;
    m->col[e] = (int)(lo + r);
    m->val[e] = 1.0;
  }
  for (long i = 0; i < n; ++i)
    for (long t = 0; t < nonzer; ++t) {
      long j;
      double v;
      pair_of(i, t, n, &j, &v);
      if (j == i) continue;
      if (i >= lo && i < hi) {
        long e = m->start[i - lo + 1]++;
        m->col[e] = (int)j;
        m->val[e] = v;
      }
      if (j >= lo && j < hi) {
        long e = m->start[j - lo + 1]++;
        m->col[e] = (int)i;
        m->val[e] = v;
      }
    }
  /* start[r + 1] now ends row r, start[0] = 0: the usual form. The diagonal
   * is the first entry of each row: the magnitudes of the others plus a
   * row-dependent margin in [1, 2). */
  for (long r = 0; r < rows; ++r) {
    double d = 0.01 * (1.0 + appkit_unit(appkit_key2(0xd1a6ULL, (uint64_t)(lo + r))));
    for (long e = m->start[r] + 1; e < m->start[r + 1]; ++e) d -= m->val[e];
    m->val[m->start[r]] = d;
  }
}

static void release(struct csr *m) {
  free(m->start);
  free(m->col);
  free(m->val);
}

/* How the solver combines partial dot products and publishes p. */
struct comm {
  double *slots; /* DSM: process q's slot s is slots[q * per_page + s]; NULL: sequential */
  long per_page;
  int me, procs;
};

static void reduce(const struct comm *c, int count, const int *slot, double *v) {
  if (c->slots == NULL) return;
  for (int k = 0; k < count; ++k) c->slots[c->me * c->per_page + slot[k]] = v[k];
  jia_barrier();
  for (int k = 0; k < count; ++k) {
    double s = 0.0;
    for (int q = 0; q < c->procs; ++q) s += c->slots[q * c->per_page + slot[k]];
    v[k] = s;
  }
}

static double dot(const double *a, const double *b, long len) {
  double s = 0.0;
  for (long i = 0; i < len; ++i) s += a[i] * b[i];
  return s;
}

/* Runs the power iteration on rows [m->lo, m->hi); p is the full-length
 * vector (shared in the DSM run). Returns the last zeta and, in *rnorm, the
 * residual norm |x - A z| at the end of the first CG solve (x = ones). */
static double solve(const struct csr *m, double *p, long niter, const struct comm *c, double *rnorm) {
  const long lo = m->lo, len = m->hi - m->lo;
  double *x = malloc((size_t)(len + 1) * sizeof *x), *z = malloc((size_t)(len + 1) * sizeof *z);
  double *r = malloc((size_t)(len + 1) * sizeof *r), *q = malloc((size_t)(len + 1) * sizeof *q);
  if (x == NULL || z == NULL || r == NULL || q == NULL) jia_error("cg: out of memory");
  double *pm = p + lo; /* my rows of p */
  for (long i = 0; i < len; ++i) x[i] = 1.0;
  double zeta = 0.0;
  for (long outer = 0; outer < niter; ++outer) {
    for (long i = 0; i < len; ++i) {
      z[i] = 0.0;
      r[i] = x[i];
      pm[i] = x[i];
    }
    int s_rho = SLOT_RHO, s_pq = SLOT_PQ, s_xz[2] = {SLOT_XZ, SLOT_ZZ};
    double rho = dot(r, r, len);
    reduce(c, 1, &s_rho, &rho); /* its barrier also publishes p */
    for (int it = 0; it < CG_ITERS; ++it) {
      for (long i = 0; i < len; ++i) {
        double s = 0.0;
        for (long e = m->start[i]; e < m->start[i + 1]; ++e) s += m->val[e] * p[m->col[e]];
        q[i] = s;
      }
      double pq = dot(pm, q, len);
      reduce(c, 1, &s_pq, &pq);
      double alpha = rho / pq;
      for (long i = 0; i < len; ++i) {
        z[i] += alpha * pm[i];
        r[i] -= alpha * q[i];
      }
      double rho0 = rho;
      rho = dot(r, r, len);
      reduce(c, 1, &s_rho, &rho);
      double beta = rho / rho0;
      for (long i = 0; i < len; ++i) pm[i] = r[i] + beta * pm[i];
      if (c->slots != NULL) jia_barrier(); /* publish p */
    }
    if (outer == 0) *rnorm = sqrt(rho);
    double xz[2] = {dot(x, z, len), dot(z, z, len)};
    reduce(c, 2, s_xz, xz);
    zeta = 1.0 / xz[0];
    double scale = 1.0 / sqrt(xz[1]);
    for (long i = 0; i < len; ++i) x[i] = z[i] * scale;
  }
  free(x);
  free(z);
  free(r);
  free(q);
  return zeta;
}

int main(int argc, char **argv) {
  const char *opt[4] = {NULL, NULL, NULL, NULL};
  appkit_opts(argc, argv, "cnki", opt, usage);
  const struct cg_class *cls = NULL;
  long n, nonzer, niter;
  if (opt[1] != NULL || opt[2] != NULL || opt[3] != NULL) {
    if (opt[0] != NULL) {
      fprintf(stderr, "cg: give either -c or -n/-k/-i\n");
      return 2;
    }
    n = appkit_long(opt[1], 'n', 1400, 2, 1L << 26);
    nonzer = appkit_long(opt[2], 'k', 7, 1, 1000);
    niter = appkit_long(opt[3], 'i', 15, 1, 100000);
  } else {
    char name = opt[0] != NULL ? opt[0][0] : 'T';
    for (size_t k = 0; k < sizeof classes / sizeof classes[0]; ++k)
      if (classes[k].name == name && (opt[0] == NULL || opt[0][1] == '\0')) cls = &classes[k];
    if (cls == NULL) {
      fprintf(stderr, "cg: unknown class '%s'\n%s", opt[0], usage);
      return 2;
    }
    n = cls->n;
    nonzer = cls->nonzer;
    niter = cls->niter;
  }

  jia_init(argc, argv);
  const int me = jiapid, procs = jiahosts;
  const long per_page = Pagesize / (long)sizeof(double);
  const long pages = (n + per_page - 1) / per_page;
  const long band = appkit_band_rows(pages, procs) * per_page; /* rows per process */
  if (pages * Pagesize > 0x7fffffffL) jia_error("cg: too many rows for jia_alloc3");
  double *p = (double *)jia_alloc3((int)(pages * Pagesize), (int)(band * (long)sizeof(double)), 0);
  struct comm c = {(double *)jia_alloc3(procs * Pagesize, Pagesize, 0), per_page, me, procs};

  long lo = me * band < n ? me * band : n, hi = lo + band < n ? lo + band : n;
  struct csr m;
  build(&m, lo, hi, n, nonzer);

  jia_barrier();
  float t0 = jia_clock();
  jia_startstat();
  double rnorm = 0.0;
  double zeta = solve(&m, p, niter, &c, &rnorm);
  jia_barrier();
  jia_stopstat();
  float t1 = jia_clock();
  release(&m);

  int ok = 1;
  if (me == 0) {
    double want, want_rnorm;
    if (cls != NULL && cls->zeta != 0.0) {
      want = cls->zeta;
      want_rnorm = cls->rnorm;
    } else {
      struct csr all;
      build(&all, 0, n, n, nonzer);
      double *pp = malloc((size_t)n * sizeof *pp);
      if (pp == NULL) jia_error("cg: out of memory for the reference");
      struct comm none = {NULL, 0, 0, 1};
      want = solve(&all, pp, niter, &none, &want_rnorm);
      free(pp);
      release(&all);
    }
    if (!(fabs(zeta - want) <= 1e-10 * fabs(want))) {
      fprintf(stderr, "cg: verification FAILED: zeta = %.15e, the sequential run gives %.15e\n", zeta, want);
      ok = 0;
    }
    if (!(fabs(rnorm - want_rnorm) <= 1e-4 * want_rnorm)) {
      fprintf(stderr, "cg: verification FAILED: residual norm of the first solve %.15e, the sequential run gives %.15e\n", rnorm,
              want_rnorm);
      ok = 0;
    }
    printf("cg: zeta = %.15e, residual norm of the first solve %.15e\n", zeta, rnorm);
    char size[80];
    if (cls != NULL)
      snprintf(size, sizeof size, "class=%c n=%ld nonzer=%ld niter=%ld", cls->name, n, nonzer, niter);
    else
      snprintf(size, sizeof size, "n=%ld nonzer=%ld niter=%ld", n, nonzer, niter);
    appkit_result("cg", SCOPEDSM_VARIANT, procs, size, (double)(t1 - t0), ok);
  }
  jia_exit();
  return ok ? 0 : 1;
}
