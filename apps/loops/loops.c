/*
 * loops - the loop-scheduling kernels of the JIAJIA dissertation's chapter 5
 * (its §5.5.2; digest seed-003 §6.6; docs/STUDIES.md §4): SOR, Jacobi
 * iteration (JI), transitive closure (TC), matrix multiply (MAT) and adjoint
 * convolution (AC), each a DOALL loop over the shared space whose iterations
 * are handed out by the loop API (jia_settask / jia_gettask,
 * docs/SCHEDULING.md) under the schedule SCOPEDSM_SCHEDULE names, so one
 * binary serves every scheme:
 *
 *   SCOPEDSM_SCHEDULE=abs mpiexec -n 2 loops -k tc
 *
 * Data placement: each kernel's per-iteration data (row j of a matrix, or
 * element i of AC's result) are laid out with a constant stride and homed
 * in contiguous blocks, one per process (jia_alloc3), and the loop is
 * started with the address of iteration begin's data and that stride, so
 * the affinity schemes (AFS, AAFS, ABS) start each process on the
 * iterations it homes. A row of fewer than a page is padded to a power of
 * two, one of more to whole pages, so no row straddles two homes.
 *
 * Work per iteration: SOR, MAT even; JI heavier in the top fifth of the rows
 * (the only ones with off-diagonal nonzeros); TC O(n) or O(1) by the graph
 * (an upper-triangular random graph, about 8 edges per vertex: low-numbered
 * vertices reach many more, so the first rows carry most of the work); AC
 * triangular (iteration i costs M - i).
 *
 * Verification: rank 0 recomputes the kernel sequentially in private memory
 * with the same arithmetic in the same order and compares bit for bit.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "appkit.h"
#include "jia.h"

static const char usage[] =
    "usage: loops -k sor|jacobi|tc|mm|ac [-n size] [-i iterations] [-p homes]\n"
    "  -k  kernel: sor (red-black SOR), jacobi (Jacobi iteration, JI), tc (transitive\n"
    "      closure), mm (matrix multiply, MAT), ac (adjoint convolution)\n"
    "  -n  problem size: sor, jacobi, tc, mm: n (an n x n matrix; sor: n x n with its\n"
    "      boundary); ac: n (n*n iterations)\n"
    "      defaults sor 2048, jacobi 2048, tc 1536, mm 1024, ac 192\n"
    "  -i  iterations of sor and jacobi (defaults 60 and 100; ignored by the others)\n"
    "  -p  'band' (default): each process's block of rows homed at it; '0': every\n"
    "      row homed at rank 0, which initializes them (a naive first port: the\n"
    "      uneven distribution of the home-migration study, docs/STUDIES.md section 2)\n"
    "The schedule is SCOPEDSM_SCHEDULE's (default static), e.g. SCOPEDSM_SCHEDULE=abs.\n";

enum kernel { K_SOR, K_JACOBI, K_TC, K_MM, K_AC };
static const char *const kernel_names[] = {"sor", "jacobi", "tc", "mm", "ac"};
static const long default_n[] = {2048, 2048, 1536, 1024, 192};
static const long default_iters[] = {60, 100, 1, 1, 1};

/* ---------------------------------------------------------------- layout */

/* `rows` records of `bytes` bytes each, padded to `stride` (a power of two
 * below a page, whole pages above), homed in one contiguous block per
 * process: rows [lo, hi) are homed at this process. */
struct rows {
  char *base;
  long rows, stride, lo, hi;
};

/* -p 0: every row homed at rank 0 (which then initializes them all). */
static int homes_at_rank0 = 0;

static long pad_stride(long bytes) {
  if (bytes >= Pagesize) return (bytes + Pagesize - 1) / Pagesize * Pagesize;
  long s = 1;
  while (s < bytes) s *= 2;
  return s;
}

static struct rows alloc_rows(long rows, long bytes) {
  struct rows r;
  r.rows = rows;
  r.stride = pad_stride(bytes);
  const long per = (rows + jiahosts - 1) / jiahosts;
  const long block = (per * r.stride + Pagesize - 1) / Pagesize * Pagesize;
  const long size = (rows * r.stride + Pagesize - 1) / Pagesize * Pagesize;
  if (size > 0x7fffffffL || block > 0x7fffffffL) jia_error("loops: problem too large for jia_alloc3");
  r.base = (char *)jia_alloc3((int)size, homes_at_rank0 ? (int)size : (int)block, 0);
  if (homes_at_rank0) {
    r.lo = jiapid == 0 ? 0 : rows;
    r.hi = rows;
    return r;
  }
  /* block is a multiple of the stride (both powers of two, or whole pages of
     per rows), so process p homes rows [p * block / stride, ...). */
  const long per_block = block / r.stride;
  r.lo = jiapid * per_block < rows ? jiapid * per_block : rows;
  r.hi = r.lo + per_block < rows ? r.lo + per_block : rows;
  return r;
}

static void *row_at(const struct rows *r, long i) { return r->base + i * r->stride; }

/* Starts a DOALL loop over rows [begin, end] (inclusive) of `r` under
   SCOPEDSM_SCHEDULE: the affinity schemes see where each row is homed. */
static void start_loop(const struct rows *r, long begin, long end) {
  jia_settask((int)begin, (int)end, NULL, row_at(r, begin), (unsigned long)r->stride);
}

/* The timed region: from a barrier after the set-up to the barrier after
   the last loop, statistics on in between. */
static float timed_start(void) {
  jia_barrier();
  const float t0 = jia_clock();
  jia_startstat();
  return t0;
}

static double timed_end(float t0) {
  jia_barrier();
  jia_stopstat();
  return (double)(jia_clock() - t0);
}

static double init_value(uint64_t what, uint64_t i, uint64_t j) {
  return appkit_unit(appkit_key2(appkit_key2(what, i), j));
}

/* ------------------------------------------------------------------ SOR */
/* Red-black SOR on a size x size grid (rows of exactly size doubles, so a
   power-of-two size fills whole pages), boundary fixed: each half-sweep is a
   DOALL over the n = size - 2 interior rows 1..n updating the points of one
   colour from their neighbours of the other. */

static void sor_row(double *up, double *row, double *down, long n, long j, int colour) {
  for (long k = 1 + ((j + colour) & 1); k <= n; k += 2)
    row[k] = 0.25 * (up[k] + down[k] + row[k - 1] + row[k + 1]);
}

static void sor_init_row(double *row, long n, long j) {
  for (long k = 0; k < n + 2; ++k) row[k] = init_value(1, (uint64_t)j, (uint64_t)k);
}

static int sor(long size, long iters, double *seconds) {
  const long n = size - 2;
  struct rows g = alloc_rows(n + 2, (n + 2) * (long)sizeof(double));
#define SROW(j) ((double *)row_at(&g, (j)))
  for (long j = g.lo; j < g.hi; ++j) sor_init_row(SROW(j), n, j);
  const float t0 = timed_start();
  for (long it = 0; it < iters; ++it)
    for (int colour = 0; colour < 2; ++colour) {
      start_loop(&g, 1, n); /* its barrier orders the previous half-sweep's writes */
      int b, e;
      while (jia_gettask(&b, &e))
        for (long j = b; j <= e; ++j) sor_row(SROW(j - 1), SROW(j), SROW(j + 1), n, j, colour);
    }
  *seconds = timed_end(t0);
  if (jiapid != 0) return 1;
  const size_t row_bytes = (size_t)(n + 2) * sizeof(double);
  double *ref = malloc((size_t)(n + 2) * row_bytes);
  if (ref == NULL) jia_error("loops: out of memory");
  for (long j = 0; j < n + 2; ++j) sor_init_row(ref + j * (n + 2), n, j);
  for (long it = 0; it < iters; ++it)
    for (int colour = 0; colour < 2; ++colour)
      for (long j = 1; j <= n; ++j)
        sor_row(ref + (j - 1) * (n + 2), ref + j * (n + 2), ref + (j + 1) * (n + 2), n, j, colour);
  int ok = 1;
  for (long j = 0; j < n + 2 && ok; ++j)
    if (memcmp(ref + j * (n + 2), SROW(j), row_bytes) != 0) {
      fprintf(stderr, "loops: verification FAILED: sor row %ld differs from the sequential result\n", j);
      ok = 0;
    }
  free(ref);
#undef SROW
  return ok;
}

/* --------------------------------------------------------------- Jacobi */
/* x1[j] = (b[j] - sum_{k != j, a[j][k] != 0} a[j][k] x0[k]) / a[j][j]; only
   the top fifth of the rows of A has off-diagonal nonzeros, so those
   iterations cost more. x0 and x1 swap roles each iteration. */

static void jacobi_init_row(double *a, double *b, long n, long j) {
  for (long k = 0; k < n; ++k) a[k] = (j < n / 5 && k != j) ? init_value(2, (uint64_t)j, (uint64_t)k) : 0.0;
  a[j] = (double)n; /* diagonally dominant: the iteration converges */
  *b = init_value(3, (uint64_t)j, 0);
}

static double jacobi_row(const double *a, double b, const double *x0, long n, long j) {
  double s = 0.0;
  for (long k = 0; k < n; ++k)
    if (a[k] != 0.0 && k != j) s += a[k] * x0[k];
  return (b - s) / a[j];
}

static int jacobi(long n, long iters, double *seconds) {
  struct rows a = alloc_rows(n, n * (long)sizeof(double));
  struct rows b = alloc_rows(n, (long)sizeof(double));
  struct rows x[2] = {alloc_rows(n, (long)sizeof(double)), alloc_rows(n, (long)sizeof(double))};
#define JA(j) ((double *)row_at(&a, (j)))
#define JV(v, j) (*(double *)row_at(&(v), (j)))
  for (long j = a.lo; j < a.hi; ++j) jacobi_init_row(JA(j), &JV(b, j), n, j);
  for (long j = x[0].lo; j < x[0].hi; ++j) JV(x[0], j) = 0.0;
  const float t0 = timed_start();
  for (long it = 0; it < iters; ++it) {
    const double *x0 = (const double *)x[it & 1].base;
    struct rows *x1 = &x[(it + 1) & 1];
    start_loop(&a, 0, n - 1);
    int lo, hi;
    while (jia_gettask(&lo, &hi))
      for (long j = lo; j <= hi; ++j) JV(*x1, j) = jacobi_row(JA(j), JV(b, j), x0, n, j);
  }
  *seconds = timed_end(t0);
  if (jiapid != 0) return 1;
  double *ra = malloc((size_t)(n * n) * sizeof *ra), *rb = malloc((size_t)n * sizeof *rb);
  double *rx = calloc((size_t)(2 * n), sizeof *rx);
  if (ra == NULL || rb == NULL || rx == NULL) jia_error("loops: out of memory");
  for (long j = 0; j < n; ++j) jacobi_init_row(ra + j * n, &rb[j], n, j);
  for (long it = 0; it < iters; ++it) {
    const double *x0 = rx + (it & 1) * n;
    double *x1 = rx + ((it + 1) & 1) * n;
    for (long j = 0; j < n; ++j) x1[j] = jacobi_row(ra + j * n, rb[j], x0, n, j);
  }
  int ok = 1;
  const double *xr = rx + (iters & 1) * n;
  for (long j = 0; j < n && ok; ++j)
    if (memcmp(&xr[j], &JV(x[iters & 1], j), sizeof(double)) != 0) {
      fprintf(stderr, "loops: verification FAILED: jacobi x[%ld] is %.17g, the sequential result %.17g\n", j,
              JV(x[iters & 1], j), xr[j]);
      ok = 0;
    }
  free(ra);
  free(rb);
  free(rx);
#undef JA
#undef JV
  return ok;
}

/* ------------------------------------------------------------------- TC */
/* Warshall's transitive closure of a random upper-triangular graph (edge
   j -> k with k > j with probability 16/n: about 8 per vertex on average, more
   for the low-numbered ones): for each i, a DOALL
   over j ORs row i into every row j that reaches i. Low-numbered vertices
   reach many more, so their rows do most of the work. */

static void tc_init_row(unsigned char *row, long n, long j) {
  const double density = 16.0 / (double)n;
  for (long k = 0; k < n; ++k) row[k] = (k > j && init_value(4, (uint64_t)j, (uint64_t)k) < density) ? 1 : 0;
}

static void tc_row(unsigned char *row_j, const unsigned char *row_i, long n, long i) {
  if (!row_j[i]) return;
  for (long k = 0; k < n; ++k)
    if (row_i[k]) row_j[k] = 1; /* as the dissertation's IF A[I][K] THEN A[J][K] = TRUE */
}

static int tc(long n, double *seconds) {
  struct rows g = alloc_rows(n, n);
#define TROW(j) ((unsigned char *)row_at(&g, (j)))
  for (long j = g.lo; j < g.hi; ++j) tc_init_row(TROW(j), n, j);
  const float t0 = timed_start();
  for (long i = 0; i < n; ++i) {
    start_loop(&g, 0, n - 1); /* its barrier makes row i as of step i - 1 visible */
    int b, e;
    while (jia_gettask(&b, &e))
      for (long j = b; j <= e; ++j)
        if (j != i) tc_row(TROW(j), TROW(i), n, i); /* row i itself would not change */
  }
  *seconds = timed_end(t0);
  if (jiapid != 0) return 1;
  unsigned char *ref = malloc((size_t)(n * n));
  if (ref == NULL) jia_error("loops: out of memory");
  for (long j = 0; j < n; ++j) tc_init_row(ref + j * n, n, j);
  for (long i = 0; i < n; ++i)
    for (long j = 0; j < n; ++j)
      if (j != i) tc_row(ref + j * n, ref + i * n, n, i);
  int ok = 1;
  for (long j = 0; j < n && ok; ++j)
    if (memcmp(ref + j * n, TROW(j), (size_t)n) != 0) {
      fprintf(stderr, "loops: verification FAILED: tc row %ld differs from the sequential closure\n", j);
      ok = 0;
    }
  free(ref);
#undef TROW
  return ok;
}

/* ------------------------------------------------------------------- MM */
/* C = A B, a DOALL over the rows of C; each row accumulates
   c[i][j] += a[i][k] b[k][j] in order of k (i-k-j order: the same sums, in
   the same order, as the inner product). */

static void mm_init_row(double *row, long n, uint64_t what, long i) {
  for (long k = 0; k < n; ++k) row[k] = init_value(what, (uint64_t)i, (uint64_t)k) - 0.5;
}

static void mm_row(double *c, const double *a, const char *b, long b_stride, long n) {
  for (long j = 0; j < n; ++j) c[j] = 0.0;
  for (long k = 0; k < n; ++k) {
    const double aik = a[k];
    const double *bk = (const double *)(b + k * b_stride);
    for (long j = 0; j < n; ++j) c[j] += aik * bk[j];
  }
}

static int mm(long n, double *seconds) {
  struct rows a = alloc_rows(n, n * (long)sizeof(double));
  struct rows b = alloc_rows(n, n * (long)sizeof(double));
  struct rows c = alloc_rows(n, n * (long)sizeof(double));
  for (long i = a.lo; i < a.hi; ++i) {
    mm_init_row(row_at(&a, i), n, 5, i);
    mm_init_row(row_at(&b, i), n, 6, i);
  }
  double *tmp = malloc((size_t)n * sizeof *tmp);
  if (tmp == NULL) jia_error("loops: out of memory");
  const float t0 = timed_start();
  start_loop(&c, 0, n - 1);
  int lo, hi;
  while (jia_gettask(&lo, &hi))
    for (long i = lo; i <= hi; ++i) {
      mm_row(tmp, row_at(&a, i), b.base, b.stride, n);
      memcpy(row_at(&c, i), tmp, (size_t)n * sizeof *tmp);
    }
  *seconds = timed_end(t0);
  int ok = 1;
  if (jiapid == 0) {
    const long s = n * (long)sizeof(double);
    char *ra = malloc((size_t)(n * s)), *rb = malloc((size_t)(n * s));
    if (ra == NULL || rb == NULL) jia_error("loops: out of memory");
    for (long i = 0; i < n; ++i) {
      mm_init_row((double *)(ra + i * s), n, 5, i);
      mm_init_row((double *)(rb + i * s), n, 6, i);
    }
    for (long i = 0; i < n && ok; ++i) {
      mm_row(tmp, (const double *)(ra + i * s), rb, s, n);
      if (memcmp(tmp, row_at(&c, i), (size_t)s) != 0) {
        fprintf(stderr, "loops: verification FAILED: mm row %ld of C differs from the sequential product\n", i);
        ok = 0;
      }
    }
    free(ra);
    free(rb);
  }
  free(tmp);
  return ok;
}

/* ------------------------------------------------------------------- AC */
/* Adjoint convolution over M = n*n points: a[i] += x b[k] c[k - i] for
   k = i .. M-1, a DOALL over i run once. Iteration i costs M - i: a
   triangular load. */

static const double ac_x = 0.5;

static double ac_point(double a, const double *b, const double *c, long m, long i) {
  for (long k = i; k < m; ++k) a += ac_x * b[k] * c[k - i];
  return a;
}

static int ac(long n, double *seconds) {
  const long m = n * n;
  struct rows a = alloc_rows(m, (long)sizeof(double));
  struct rows b = alloc_rows(m, (long)sizeof(double));
  struct rows c = alloc_rows(m, (long)sizeof(double));
  double *pa = (double *)a.base, *pb = (double *)b.base, *pc = (double *)c.base;
  for (long i = a.lo; i < a.hi; ++i) {
    pa[i] = init_value(7, (uint64_t)i, 0);
    pb[i] = init_value(8, (uint64_t)i, 0);
    pc[i] = init_value(9, (uint64_t)i, 0);
  }
  const float t0 = timed_start();
  start_loop(&a, 0, m - 1);
  int lo, hi;
  while (jia_gettask(&lo, &hi))
    for (long i = lo; i <= hi; ++i) pa[i] = ac_point(pa[i], pb, pc, m, i);
  *seconds = timed_end(t0);
  if (jiapid != 0) return 1;
  double *ra = malloc((size_t)m * sizeof *ra), *rb = malloc((size_t)m * sizeof *rb),
         *rc = malloc((size_t)m * sizeof *rc);
  if (ra == NULL || rb == NULL || rc == NULL) jia_error("loops: out of memory");
  for (long i = 0; i < m; ++i) {
    ra[i] = init_value(7, (uint64_t)i, 0);
    rb[i] = init_value(8, (uint64_t)i, 0);
    rc[i] = init_value(9, (uint64_t)i, 0);
  }
  int ok = 1;
  for (long i = 0; i < m && ok; ++i) {
    const double want = ac_point(ra[i], rb, rc, m, i);
    if (memcmp(&want, &pa[i], sizeof want) != 0) {
      fprintf(stderr, "loops: verification FAILED: ac a[%ld] is %.17g, the sequential result %.17g\n", i, pa[i],
              want);
      ok = 0;
    }
  }
  free(ra);
  free(rb);
  free(rc);
  return ok;
}

/* ----------------------------------------------------------------- main */

int main(int argc, char **argv) {
  const char *opt[4] = {NULL, NULL, NULL, NULL};
  appkit_opts(argc, argv, "knip", opt, usage);
  int k = -1;
  for (int i = 0; i < 5 && opt[0] != NULL; ++i)
    if (strcmp(opt[0], kernel_names[i]) == 0) k = i;
  if (k < 0) {
    fprintf(stderr, "loops: -k takes sor, jacobi, tc, mm or ac%s%s%s\n", opt[0] ? " (not '" : "",
            opt[0] ? opt[0] : "", opt[0] ? "')" : "");
    fputs(usage, stderr);
    return 2;
  }
  const long n = appkit_long(opt[1], 'n', default_n[k], 3, k == K_AC ? 4096 : 65536);
  const long iters = appkit_long(opt[2], 'i', default_iters[k], 1, 1000000);
  if (opt[3] != NULL && strcmp(opt[3], "0") == 0) {
    homes_at_rank0 = 1;
  } else if (opt[3] != NULL && strcmp(opt[3], "band") != 0) {
    fprintf(stderr, "loops: -p takes band or 0, not '%s'\n", opt[3]);
    fputs(usage, stderr);
    return 2;
  }

  jia_init(argc, argv);
  double seconds = 0.0;
  int ok = 0;
  switch ((enum kernel)k) {
    case K_SOR: ok = sor(n, iters, &seconds); break;
    case K_JACOBI: ok = jacobi(n, iters, &seconds); break;
    case K_TC: ok = tc(n, &seconds); break;
    case K_MM: ok = mm(n, &seconds); break;
    case K_AC: ok = ac(n, &seconds); break;
  }
  if (jiapid == 0) {
    const char *schedule = getenv("SCOPEDSM_SCHEDULE");
    char app[32], size[128];
    snprintf(app, sizeof app, "loops-%s", kernel_names[k]);
    if (k == K_SOR || k == K_JACOBI)
      snprintf(size, sizeof size, "n=%ld iters=%ld schedule=%s%s", n, iters, schedule ? schedule : "static",
               homes_at_rank0 ? " homes=0" : "");
    else
      snprintf(size, sizeof size, "n=%ld schedule=%s%s", n, schedule ? schedule : "static",
               homes_at_rank0 ? " homes=0" : "");
    appkit_result(app, SCOPEDSM_VARIANT, jiahosts, size, seconds, ok);
  }
  jia_exit();
  return ok ? 0 : 1;
}
