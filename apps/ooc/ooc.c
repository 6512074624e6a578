/*
 * ooc - out-of-core kernels (issue 10's experiments; docs/STUDIES.md §5),
 * in the shape of the applications of the out-of-core prefetching thesis
 * (/work/shared/reference/seed-001-ooc-prefetch.md): sweeps over shared
 * data meant to be larger than the memory allowed (a small page cache,
 * SCOPEDSM_CACHE_PAGES, for pages homed elsewhere; SCOPEDSM_HOME_BACKING=
 * file:DIR under a memory cgroup for the homes themselves).
 *
 *   -k cg       conjugate gradient on a banded SPD matrix stored in shared
 *               memory (2b+1 diagonals): every iteration sweeps the matrix
 *   -k stencil  a 5-point stencil over an n x n periodic grid of integers,
 *               two grids, one sweep of each per iteration
 *   -k bucket   a bucket sort of n keys (the shape of NAS IS): count,
 *               exchange counts, scatter into a shared output
 *   -k fft      a radix-2 FFT of n = 2^m complex numbers in shared memory:
 *               log2 n strided passes of butterflies
 *   -k mm       a blocked matrix multiply C = A B of n x n matrices: every
 *               block of rows sweeps the whole of B (a cyclic sweep)
 *
 * The data a process works on is homed at the next process (each band of
 * rows at rank + 1), so with two or more processes its sweeps are fetches.
 *
 * -H 1 puts explicit hints in the loops, as the thesis's compiler would:
 * the chunk AHEAD chunks ahead is prefetched (scopedsm_prefetch), the chunk
 * just finished released (scopedsm_release_tagged, one tag per stream, so
 * the runtime's lag-by-one filter sees each stream apart). -H 0 (the
 * default) makes none; the runtime's own hints are SCOPEDSM_AUTO_HINTS=on.
 *
 * Verification (printed in the SCOPEDSM_RESULT line, "verified"):
 *   cg       the residual |b - A x| / |b| after the iterations is within
 *            CG's convergence bound for the matrix (4 * 0.27^iterations)
 *   stencil  two invariants of the integer stencil (mod 2^64): the sum of
 *            all cells grows by 5 each iteration, the checkerboard-signed
 *            sum by -3; both against the initial grid regenerated
 *   bucket   the output is sorted, holds exactly the keys (count of every
 *            value, and a checksum of the regenerated keys)
 *   fft      a few outputs against a direct DFT of the regenerated input,
 *            and Parseval's identity over all of them
 *   mm       the sum of C against sum_k colsum(A)_k rowsum(B)_k, and a few
 *            entries against direct dot products, from regenerated inputs
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "appkit.h"
#include "scopedsm.h"

static const char usage[] =
    "usage: ooc [-k kernel] [-n size] [-i iterations] [-H 0|1] [-c pages]\n"
    "  -k  cg, stencil, bucket, fft or mm (default cg)\n"
    "  -n  size: cg matrix rows (default 8192), stencil grid side (default 256, even),\n"
    "      bucket keys (default 2^17), fft points (a power of two, default 2^15),\n"
    "      mm matrix side (default 128)\n"
    "  -i  iterations: cg (default 25), stencil (default 4); the others make one pass\n"
    "  -H  1: explicit prefetch and release hints in the loops; 0: none (default)\n"
    "  -c  pages one hint names (a chunk): a power of two, 1 to 64 (default 8)\n";

#define AHEAD 2 /* prefetched this many chunks ahead */

static int me, procs, hints;
static long chunk_pages = 8; /* a hint names this many pages (-c) */
static size_t pg;

/* ------------------------------------------------------------------ hints */

static void prefetch(const void *p, size_t bytes) {
  if (hints && bytes > 0) scopedsm_prefetch(p, bytes);
}
static void release(unsigned long tag, const void *p, size_t bytes) {
  if (hints && bytes > 0) scopedsm_release_tagged(p, bytes, 0, tag);
}

/* Hints for chunk c of a sweep over [base, base + len): the first chunk
 * prefetches the first AHEAD + 1, each prefetches the chunk AHEAD on and
 * releases the one before. */
static void sweep_hints(unsigned long tag, const char *base, size_t len, size_t c) {
  const size_t chunk = chunk_pages * pg;
  if (!hints) return;
  size_t from = c == 0 ? 0 : (c + AHEAD) * chunk, to = (c + AHEAD + 1) * chunk;
  if (to > len) to = len;
  if (from < to) prefetch(base + from, to - from);
  if (c > 0) release(tag, base + (c - 1) * chunk, chunk);
}

/* A band layout: `rows` rows of `row_bytes`, one band of whole pages per
 * process, band p homed at rank p + 1 (mod procs). */
typedef struct {
  char *base;
  long rows, row_bytes, band_rows, band_bytes;
} bands;

static bands band_alloc(long rows, long row_bytes) {
  bands b;
  b.rows = rows;
  b.row_bytes = row_bytes;
  b.band_rows = appkit_band_rows(rows, procs);
  b.band_bytes = appkit_band_bytes(rows, row_bytes, procs, (long)pg);
  b.base = scopedsm_alloc_cyclic((size_t)b.band_bytes * (size_t)procs, (size_t)b.band_bytes, 1 % procs);
  return b;
}
static void *row_at(const bands *b, long row) {
  return b->base + appkit_band_offset(row, b->rows, b->row_bytes, procs, (long)pg);
}
/* My rows [lo, hi). */
static void my_rows(const bands *b, long *lo, long *hi) {
  *lo = me * b->band_rows < b->rows ? me * b->band_rows : b->rows;
  *hi = *lo + b->band_rows < b->rows ? *lo + b->band_rows : b->rows;
}
/* Hints over rows [r0, r1) of a band layout, a band at a time: a prefetch,
 * or (release) a release under `tag`. */
static void rows_hint(const bands *b, long r0, long r1, int release_tag) {
  while (hints && r0 < r1) {
    long end = (r0 / b->band_rows + 1) * b->band_rows;
    if (end > r1) end = r1;
    const size_t bytes = (size_t)((end - r0) * b->row_bytes);
    if (release_tag != 0) release((unsigned long)release_tag, row_at(b, r0), bytes);
    else prefetch(row_at(b, r0), bytes);
    r0 = end;
  }
}
static void rows_prefetch(const bands *b, long r0, long r1) { rows_hint(b, r0, r1, 0); }
static void rows_release(int tag, const bands *b, long r0, long r1) { rows_hint(b, r0, r1, tag); }
/* Rows per hint chunk for rows of `row_bytes`. */
static long chunk_rows(long row_bytes) {
  long r = (long)(chunk_pages * pg) / row_bytes;
  return r > 0 ? r : 1;
}

/* ------------------------------------------------- reductions across ranks */

static uint64_t *slots;   /* one per process, a cache line apart */
static uint64_t *gathered; /* private: every process's value of the last gather */

/* Every process's `mine`, in gathered[0..procs). */
static void gather(uint64_t mine) {
  slots[me * 8] = mine;
  scopedsm_barrier();
  for (int r = 0; r < procs; ++r) gathered[r] = slots[r * 8];
  scopedsm_barrier();
}
static double global_dsum(double v) {
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  gather(bits);
  double s = 0.0;
  for (int r = 0; r < procs; ++r) {
    memcpy(&v, &gathered[r], sizeof v);
    s += v;
  }
  return s;
}
static uint64_t global_usum(uint64_t v) {
  gather(v);
  uint64_t s = 0;
  for (int r = 0; r < procs; ++r) s += gathered[r];
  return s;
}

/* --------------------------------------------------------------------- cg */

#define CG_B 8 /* half bandwidth */
#define CG_W (2 * CG_B + 1)

static double cg_entry(long i, long j) {
  if (i == j) return 4.0 * CG_B + 1.0;
  long a = i < j ? i : j, b = i < j ? j : i;
  return -(0.5 + 0.5 * appkit_unit(appkit_key2((uint64_t)a, (uint64_t)b)));
}
static double cg_rhs(long i) { return 1.0 + appkit_unit(appkit_key2(7, (uint64_t)i)); }

/* y = A v over my rows [lo, hi), sweeping the matrix with hints (tag 1). */
static void cg_matvec(const bands *A, const double *v, long n, long lo, long hi, double *y) {
  const long cr = chunk_rows(A->row_bytes);
  for (long i = lo; i < hi; ++i) {
    if ((i - lo) % cr == 0) {
      const long c = (i - lo) / cr;
      if (c == 0) rows_prefetch(A, lo, lo + (AHEAD + 1) * cr < hi ? lo + (AHEAD + 1) * cr : hi);
      else {
        const long r0 = lo + (c + AHEAD) * cr;
        if (r0 < hi) rows_prefetch(A, r0, r0 + cr < hi ? r0 + cr : hi);
        rows_release(1, A, lo + (c - 1) * cr, lo + c * cr);
      }
    }
    const double *a = row_at(A, i);
    double s = 0.0;
    for (long k = 0; k < CG_W; ++k) {
      const long j = i + k - CG_B;
      if (j >= 0 && j < n) s += a[k] * v[j];
    }
    y[i - lo] = s;
  }
}

static int kernel_cg(long n, long iters) {
  bands A = band_alloc(n, CG_W * (long)sizeof(double));
  double *p = scopedsm_alloc((size_t)n * sizeof(double));
  double *xs = scopedsm_alloc((size_t)n * sizeof(double));
  long lo, hi;
  my_rows(&A, &lo, &hi);
  const long m = hi - lo;
  double *x = calloc((size_t)(m > 0 ? m : 1), sizeof *x), *r = malloc((size_t)(m > 0 ? m : 1) * sizeof *r),
         *q = malloc((size_t)(m > 0 ? m : 1) * sizeof *q);
  if (x == NULL || r == NULL || q == NULL) scopedsm_fatal("ooc: out of memory");
  for (long i = lo; i < hi; ++i) {
    double *a = row_at(&A, i);
    for (long k = 0; k < CG_W; ++k) {
      const long j = i + k - CG_B;
      a[k] = j >= 0 && j < n ? cg_entry(i, j) : 0.0;
    }
    r[i - lo] = cg_rhs(i);
    p[i] = r[i - lo];
  }
  double rr = 0.0, bb;
  for (long i = 0; i < m; ++i) rr += r[i] * r[i];
  rr = global_dsum(rr); /* its barrier publishes A and p */
  bb = rr;
  for (long it = 0; it < iters && rr > 0.0; ++it) {
    cg_matvec(&A, p, n, lo, hi, q);
    double pq = 0.0;
    for (long i = 0; i < m; ++i) pq += p[lo + i] * q[i];
    pq = global_dsum(pq); /* every matvec has read p */
    const double alpha = rr / pq;
    double rr1 = 0.0;
    for (long i = 0; i < m; ++i) {
      x[i] += alpha * p[lo + i];
      r[i] -= alpha * q[i];
      rr1 += r[i] * r[i];
    }
    rr1 = global_dsum(rr1);
    const double beta = rr1 / rr;
    rr = rr1;
    for (long i = 0; i < m; ++i) p[lo + i] = r[i] + beta * p[lo + i];
    scopedsm_barrier();
  }
  /* The residual of the solution, from the shared matrix. */
  for (long i = 0; i < m; ++i) xs[lo + i] = x[i];
  scopedsm_barrier();
  cg_matvec(&A, xs, n, lo, hi, q);
  double res = 0.0;
  for (long i = 0; i < m; ++i) {
    const double d = cg_rhs(lo + i) - q[i];
    res += d * d;
  }
  res = global_dsum(res);
  free(x);
  free(r);
  free(q);
  /* CG's bound for this matrix (eigenvalues in [2b+1, 6b+1], condition
   * number kappa < 3): |r_k| / |b| <= 2 sqrt(kappa) ((sqrt(kappa) - 1) /
   * (sqrt(kappa) + 1))^k < 4 * 0.27^k; rounding stops it near 1e-12. */
  const double rel = sqrt(res / bb), bound = fmax(1e-10, 4.0 * pow(0.27, (double)iters));
  if (me == 0 && !(rel <= bound)) fprintf(stderr, "ooc cg: relative residual %g above CG's bound %g\n", rel, bound);
  return rel <= bound;
}

/* ---------------------------------------------------------------- stencil */

static uint64_t st_init(long i, long j) { return appkit_hash64(appkit_key2((uint64_t)i, (uint64_t)j)); }

static uint64_t pow_mod64(uint64_t base, long e) {
  uint64_t r = 1;
  for (long k = 0; k < e; ++k) r *= base;
  return r;
}

static int kernel_stencil(long n, long iters) {
  if (n % 2 != 0 || n < 4) scopedsm_fatal("ooc stencil: -n %ld: the grid side must be even and at least 4", n);
  bands g[2] = {band_alloc(n, n * (long)sizeof(uint64_t)), band_alloc(n, n * (long)sizeof(uint64_t))};
  long lo, hi;
  my_rows(&g[0], &lo, &hi);
  for (long i = lo; i < hi; ++i) {
    uint64_t *row = row_at(&g[0], i);
    for (long j = 0; j < n; ++j) row[j] = st_init(i, j);
  }
  scopedsm_barrier();
  const long cr = chunk_rows(n * (long)sizeof(uint64_t));
  for (long it = 0; it < iters; ++it) {
    const bands *u = &g[it % 2], *v = &g[(it + 1) % 2];
    for (long i = lo; i < hi; ++i) {
      if ((i - lo) % cr == 0) {
        const long c = (i - lo) / cr;
        const long r0 = c == 0 ? lo : lo + (c + AHEAD) * cr, r1 = lo + (c + AHEAD + 1) * cr;
        if (r0 < hi) rows_prefetch(u, r0, r1 < hi ? r1 : hi);
        if (c == 0) rows_prefetch(u, (lo - 1 + n) % n, (lo - 1 + n) % n + 1);
        if (c > 0) {
          rows_release(1, u, lo + (c - 1) * cr, lo + c * cr);
          rows_release(2, v, lo + (c - 1) * cr, lo + c * cr);
        }
      }
      const uint64_t *up = row_at(u, (i - 1 + n) % n), *uc = row_at(u, i), *dn = row_at(u, (i + 1) % n);
      uint64_t *out = row_at(v, i);
      for (long j = 0; j < n; ++j)
        out[j] = uc[j] + up[j] + dn[j] + uc[(j - 1 + n) % n] + uc[(j + 1) % n];
    }
    scopedsm_barrier();
  }
  /* The invariants over my rows of the result. */
  const bands *res = &g[iters % 2];
  uint64_t sum = 0, alt = 0;
  for (long i = lo; i < hi; ++i) {
    if ((i - lo) % cr == 0) {
      const long c = (i - lo) / cr, r0 = c == 0 ? lo : lo + (c + AHEAD) * cr, r1 = lo + (c + AHEAD + 1) * cr;
      if (r0 < hi) rows_prefetch(res, r0, r1 < hi ? r1 : hi);
      if (c > 0) rows_release(3, res, lo + (c - 1) * cr, lo + c * cr);
    }
    const uint64_t *row = row_at(res, i);
    for (long j = 0; j < n; ++j) {
      sum += row[j];
      alt += (i + j) % 2 == 0 ? row[j] : (uint64_t)0 - row[j];
    }
  }
  sum = global_usum(sum);
  alt = global_usum(alt);
  int ok = 1;
  if (me == 0) {
    uint64_t sum0 = 0, alt0 = 0;
    for (long i = 0; i < n; ++i)
      for (long j = 0; j < n; ++j) {
        const uint64_t x = st_init(i, j);
        sum0 += x;
        alt0 += (i + j) % 2 == 0 ? x : (uint64_t)0 - x;
      }
    ok = sum == sum0 * pow_mod64(5, iters) && alt == alt0 * pow_mod64((uint64_t)0 - 3, iters);
    if (!ok) fprintf(stderr, "ooc stencil: the grid's invariants do not hold\n");
  }
  return ok;
}

/* ----------------------------------------------------------------- bucket */

#define BK_KEYS 4096 /* keys are in [0, BK_KEYS) */

static uint32_t bk_key(long i) {
  /* The mean of two uniform values: keys cluster in the middle, as in IS. */
  const uint64_t h = appkit_hash64(appkit_key2(11, (uint64_t)i));
  return (uint32_t)(((h & 0xffffffffu) % BK_KEYS + (h >> 32) % BK_KEYS) / 2);
}

/* Keys of value v over all processes, from the counts rows. */
static long bk_total(const char *counts, size_t crow, long v) {
  long c = 0;
  for (int r = 0; r < procs; ++r) c += ((const uint32_t *)(counts + (size_t)r * crow))[v];
  return c;
}

static int kernel_bucket(long n) {
  bands keys = band_alloc(n, sizeof(uint32_t)), out = band_alloc(n, sizeof(uint32_t));
  /* counts[r][v]: process r's keys of value v, one page-padded row each. */
  const size_t crow = (BK_KEYS * sizeof(uint32_t) + pg - 1) / pg * pg;
  char *counts = scopedsm_alloc_cyclic(crow * (size_t)procs, crow, 0);
  long lo, hi;
  my_rows(&keys, &lo, &hi);
  for (long i = lo; i < hi; ++i) *(uint32_t *)row_at(&keys, i) = bk_key(i);
  scopedsm_barrier();
  uint32_t *cnt = calloc(BK_KEYS, sizeof *cnt);
  long *start = malloc(BK_KEYS * sizeof *start);
  if (cnt == NULL || start == NULL) scopedsm_fatal("ooc: out of memory");
  /* My keys are contiguous: one sweep, chunk hints on it (tag 1). */
  const char *mine = row_at(&keys, lo);
  const size_t chunk = chunk_pages * pg, len = (size_t)(hi - lo) * sizeof(uint32_t);
  for (long i = lo; i < hi; ++i) {
    const size_t at = (size_t)(i - lo) * sizeof(uint32_t);
    if (at % chunk == 0) sweep_hints(1, mine, len, at / chunk);
    ++cnt[*(uint32_t *)row_at(&keys, i)];
  }
  memcpy(counts + (size_t)me * crow, cnt, BK_KEYS * sizeof *cnt);
  scopedsm_barrier();
  /* Where my keys of each value start: every smaller key, and the equal
   * keys of lower ranks. */
  long run = 0;
  for (long v = 0; v < BK_KEYS; ++v) {
    for (int r = 0; r < procs; ++r) {
      if (r == me) start[v] = run;
      run += ((const uint32_t *)(counts + (size_t)r * crow))[v];
    }
  }
  for (long i = lo; i < hi; ++i) {
    const size_t at = (size_t)(i - lo) * sizeof(uint32_t);
    if (at % chunk == 0) sweep_hints(2, mine, len, at / chunk);
    const uint32_t k = *(uint32_t *)row_at(&keys, i);
    *(uint32_t *)row_at(&out, start[k]++) = k;
  }
  scopedsm_barrier();
  int ok = 1;
  if (me == 0) {
    /* Sorted, the count of every value as the counts say, and the keys'
     * checksum as the regenerated keys'. */
    uint64_t sum = 0, sum0 = 0;
    long v = 0, seen = 0;
    uint32_t prev = 0;
    const long cr = chunk_rows(sizeof(uint32_t));
    for (long i = 0; i < n && ok; ++i) {
      if (i % cr == 0) {
        const long r0 = i == 0 ? 0 : i + AHEAD * cr, r1 = i + (AHEAD + 1) * cr;
        if (r0 < n) rows_prefetch(&out, r0, r1 < n ? r1 : n);
        if (i > 0) rows_release(3, &out, i - cr, i);
      }
      const uint32_t k = *(uint32_t *)row_at(&out, i);
      if (k >= BK_KEYS || (i > 0 && k < prev)) ok = 0;
      prev = k;
      sum += (uint64_t)k * k + k;
      while (ok && v < k) {
        if (bk_total(counts, crow, v) != seen) ok = 0;
        seen = 0;
        ++v;
      }
      ++seen;
    }
    while (ok && v < BK_KEYS) { /* the last value, and none above it */
      if (bk_total(counts, crow, v) != seen) ok = 0;
      seen = 0;
      ++v;
    }
    for (long i = 0; i < n; ++i) sum0 += (uint64_t)bk_key(i) * bk_key(i) + bk_key(i);
    ok = ok && sum == sum0;
    if (!ok) fprintf(stderr, "ooc bucket: the output is not the sorted keys\n");
  }
  free(cnt);
  free(start);
  return ok;
}

/* -------------------------------------------------------------------- fft */

static void fft_input(long j, long n, double *re, double *im) {
  *re = appkit_unit(appkit_key2(13, (uint64_t)j)) - 0.5;
  *im = appkit_unit(appkit_key2(13, (uint64_t)(j + n))) - 0.5;
}
static long bit_reverse(long i, int bits) {
  long r = 0;
  for (int b = 0; b < bits; ++b) r |= ((i >> b) & 1) << (bits - 1 - b);
  return r;
}

/* Hints for the butterflies [t0, t1) of a stage with half size h, all in
 * one aligned chunk of C butterflies: one span if a chunk covers whole
 * groups, else the two streams i and i + h. `tag` is 2 tags. */
static void fft_hint(double *x, long t0, long t1, long h, int s, int pre, unsigned long tag) {
  const long i0 = ((t0 >> s) << (s + 1)) + (t0 & (h - 1));
  const long i1 = (((t1 - 1) >> s) << (s + 1)) + ((t1 - 1) & (h - 1));
  const size_t cb = 2 * sizeof(double);
  if (i1 + h - i0 < 4 * (t1 - t0)) {
    /* whole groups: [i0, i1 + h] */
    if (pre) prefetch(x + 2 * i0, (size_t)(i1 + h - i0 + 1) * cb);
    else release(tag, x + 2 * i0, (size_t)(i1 + h - i0 + 1) * cb);
  } else if (pre) {
    prefetch(x + 2 * i0, (size_t)(i1 - i0 + 1) * cb);
    prefetch(x + 2 * (i0 + h), (size_t)(i1 - i0 + 1) * cb);
  } else {
    release(tag, x + 2 * i0, (size_t)(i1 - i0 + 1) * cb);
    release(tag + 1, x + 2 * (i0 + h), (size_t)(i1 - i0 + 1) * cb);
  }
}

static int kernel_fft(long n) {
  int bits = 0;
  while ((1L << bits) < n) ++bits;
  if ((1L << bits) != n || n < 4) scopedsm_fatal("ooc fft: -n %ld: the size must be a power of two, at least 4", n);
  const size_t bytes = (size_t)n * 2 * sizeof(double);
  size_t block = (bytes / (size_t)procs + pg - 1) / pg * pg;
  double *x = scopedsm_alloc_cyclic(bytes, block, 1 % procs);
  long lo, hi;
  appkit_block(n, procs, me, &lo, &hi);
  /* The input in bit-reversed order, so that the output is in order. */
  for (long i = lo; i < hi; ++i) fft_input(bit_reverse(i, bits), n, &x[2 * i], &x[2 * i + 1]);
  scopedsm_barrier();
  long tlo, thi;
  appkit_block(n / 2, procs, me, &tlo, &thi);
  const long C = (long)(chunk_pages * pg / (4 * sizeof(double))); /* butterflies per chunk: a power of two */
  const double pi = acos(-1.0);
  for (int s = 0; s < bits; ++s) {
    const long h = 1L << s;
    for (long t = tlo; t < thi;) {
      const long cend = (t / C + 1) * C < thi ? (t / C + 1) * C : thi;
      if (hints) {
        /* The first chunk prefetches itself and the next AHEAD; each after
         * it the chunk AHEAD on. */
        const long c = t / C;
        for (long a = t == tlo ? c : c + AHEAD; a <= c + AHEAD; ++a) {
          const long a0 = a == c ? t : a * C;
          if (a0 < thi) fft_hint(x, a0, (a + 1) * C < thi ? (a + 1) * C : thi, h, s, 1, 0);
        }
      }
      for (long u = t; u < cend; ++u) {
        const long i = ((u >> s) << (s + 1)) + (u & (h - 1)), j = i + h;
        const double ang = -pi * (double)(u & (h - 1)) / (double)h;
        const double wr = cos(ang), wi = sin(ang);
        const double tr = wr * x[2 * j] - wi * x[2 * j + 1], ti = wr * x[2 * j + 1] + wi * x[2 * j];
        const double ar = x[2 * i], ai = x[2 * i + 1];
        x[2 * i] = ar + tr;
        x[2 * i + 1] = ai + ti;
        x[2 * j] = ar - tr;
        x[2 * j + 1] = ai - ti;
      }
      if (hints) fft_hint(x, t, cend, h, s, 0, 10 + 2 * (unsigned long)s);
      t = cend;
    }
    scopedsm_barrier();
  }
  int ok = 1;
  if (me == 0) {
    /* Parseval: sum |X|^2 = n sum |x|^2; and a few outputs by a direct DFT. */
    double ex = 0.0, eX = 0.0;
    for (long j = 0; j < n; ++j) {
      double re, im;
      fft_input(j, n, &re, &im);
      ex += re * re + im * im;
    }
    for (long k = 0; k < n; ++k) {
      const size_t at = (size_t)k * 2 * sizeof(double);
      if (at % (chunk_pages * pg) == 0) sweep_hints(3, (const char *)x, bytes, at / (chunk_pages * pg));
      eX += x[2 * k] * x[2 * k] + x[2 * k + 1] * x[2 * k + 1];
    }
    if (fabs(eX - (double)n * ex) > 1e-9 * (double)n * ex) ok = 0;
    const long probe[4] = {0, 1, n / 3, n - 1};
    for (int p = 0; p < 4 && ok; ++p) {
      const long k = probe[p];
      double sr = 0.0, si = 0.0;
      for (long j = 0; j < n; ++j) {
        double re, im;
        fft_input(j, n, &re, &im);
        const double ang = -2.0 * pi * (double)((j * k) % n) / (double)n;
        sr += re * cos(ang) - im * sin(ang);
        si += re * sin(ang) + im * cos(ang);
      }
      if (fabs(sr - x[2 * k]) + fabs(si - x[2 * k + 1]) > 1e-9 * (double)n) ok = 0;
    }
    if (!ok) fprintf(stderr, "ooc fft: the transform does not match a direct DFT\n");
  }
  return ok;
}

/* --------------------------------------------------------------------- mm */

#define MM_BS 16 /* rows per block */

static double mm_a(long i, long k) { return appkit_unit(appkit_key2((uint64_t)i, (uint64_t)k)) - 0.5; }
static double mm_b(long k, long j) { return appkit_unit(appkit_key2((uint64_t)k + 0x100000000ull, (uint64_t)j)) - 0.5; }

static int kernel_mm(long n) {
  const long rb = n * (long)sizeof(double);
  bands A = band_alloc(n, rb), B = band_alloc(n, rb), C = band_alloc(n, rb);
  long lo, hi;
  my_rows(&A, &lo, &hi);
  for (long i = lo; i < hi; ++i) {
    double *a = row_at(&A, i), *b = row_at(&B, i);
    for (long j = 0; j < n; ++j) {
      a[j] = mm_a(i, j);
      b[j] = mm_b(i, j);
    }
  }
  scopedsm_barrier();
  double *acc = malloc((size_t)MM_BS * (size_t)n * sizeof *acc);
  if (acc == NULL) scopedsm_fatal("ooc: out of memory");
  for (long ii = lo; ii < hi; ii += MM_BS) {
    const long iend = ii + MM_BS < hi ? ii + MM_BS : hi;
    memset(acc, 0, (size_t)MM_BS * (size_t)n * sizeof *acc);
    /* Every block of rows sweeps all of B, a block of MM_BS rows at a time. */
    rows_prefetch(&B, 0, (AHEAD + 1) * MM_BS < n ? (AHEAD + 1) * MM_BS : n);
    for (long kk = 0; kk < n; kk += MM_BS) {
      const long kend = kk + MM_BS < n ? kk + MM_BS : n;
      const long a0 = kk + (AHEAD + 1) * MM_BS;
      if (a0 < n) rows_prefetch(&B, a0, a0 + MM_BS < n ? a0 + MM_BS : n);
      for (long i = ii; i < iend; ++i) {
        const double *a = row_at(&A, i);
        double *c = acc + (i - ii) * n;
        for (long k = kk; k < kend; ++k) {
          const double aik = a[k];
          const double *b = row_at(&B, k);
          for (long j = 0; j < n; ++j) c[j] += aik * b[j];
        }
      }
      rows_release(1, &B, kk, kend);
    }
    for (long i = ii; i < iend; ++i) memcpy(row_at(&C, i), acc + (i - ii) * n, (size_t)rb);
  }
  free(acc);
  scopedsm_barrier();
  int ok = 1;
  if (me == 0) {
    double total = 0.0, want = 0.0, scale = 0.0;
    for (long i = 0; i < n; ++i) {
      if (i % MM_BS == 0) {
        if (i + MM_BS < n) rows_prefetch(&C, i + MM_BS, i + 2 * MM_BS < n ? i + 2 * MM_BS : n);
        if (i > 0) rows_release(2, &C, i - MM_BS, i);
      }
      const double *c = row_at(&C, i);
      for (long j = 0; j < n; ++j) total += c[j];
    }
    for (long k = 0; k < n; ++k) {
      double ca = 0.0, rbk = 0.0;
      for (long i = 0; i < n; ++i) ca += mm_a(i, k);
      for (long j = 0; j < n; ++j) rbk += mm_b(k, j);
      want += ca * rbk;
      scale += fabs(ca * rbk);
    }
    if (fabs(total - want) > 1e-9 * (scale + 1.0)) ok = 0;
    for (int p = 0; p < 8 && ok; ++p) {
      const long i = (long)(appkit_hash64((uint64_t)p) % (uint64_t)n), j = (long)(appkit_hash64((uint64_t)p + 99) % (uint64_t)n);
      double s = 0.0;
      for (long k = 0; k < n; ++k) s += mm_a(i, k) * mm_b(k, j);
      if (fabs(s - ((const double *)row_at(&C, i))[j]) > 1e-9 * (double)n) ok = 0;
    }
    if (!ok) fprintf(stderr, "ooc mm: C is not A B\n");
  }
  return ok;
}

/* ------------------------------------------------------------------- main */

int main(int argc, char **argv) {
  const char *opt[5] = {NULL, NULL, NULL, NULL, NULL};
  appkit_opts(argc, argv, "kniHc", opt, usage);
  const char *kernel = opt[0] != NULL ? opt[0] : "cg";
  long n, iters = 1;
  if (strcmp(kernel, "cg") == 0) {
    n = appkit_long(opt[1], 'n', 8192, 1, 1L << 28);
    iters = appkit_long(opt[2], 'i', 25, 1, 1000000);
  } else if (strcmp(kernel, "stencil") == 0) {
    n = appkit_long(opt[1], 'n', 256, 4, 1L << 16);
    iters = appkit_long(opt[2], 'i', 4, 1, 1000000);
  } else if (strcmp(kernel, "bucket") == 0) {
    n = appkit_long(opt[1], 'n', 1L << 17, 1, 1L << 31);
  } else if (strcmp(kernel, "fft") == 0) {
    n = appkit_long(opt[1], 'n', 1L << 15, 4, 1L << 28);
  } else if (strcmp(kernel, "mm") == 0) {
    n = appkit_long(opt[1], 'n', 128, 1, 1L << 15);
  } else {
    fprintf(stderr, "ooc: -k %s: the kernel must be cg, stencil, bucket, fft or mm\n%s", kernel, usage);
    return 2;
  }
  hints = (int)appkit_long(opt[3], 'H', 0, 0, 1);
  chunk_pages = appkit_long(opt[4], 'c', 8, 1, 64);
  if ((chunk_pages & (chunk_pages - 1)) != 0) {
    fprintf(stderr, "ooc: -c %ld: the chunk must be a power of two pages (1, 2, 4, ..., 64)\n%s", chunk_pages, usage);
    return 2;
  }

  scopedsm_init(&argc, &argv);
  me = scopedsm_rank();
  procs = scopedsm_size();
  pg = scopedsm_page_size();
  slots = scopedsm_alloc((size_t)procs * 8 * sizeof(uint64_t));
  gathered = malloc((size_t)procs * sizeof *gathered);
  if (gathered == NULL) scopedsm_fatal("ooc: out of memory");
  scopedsm_barrier();

  const double t0 = scopedsm_time();
  scopedsm_stats_start();
  int ok;
  if (strcmp(kernel, "cg") == 0) ok = kernel_cg(n, iters);
  else if (strcmp(kernel, "stencil") == 0) ok = kernel_stencil(n, iters);
  else if (strcmp(kernel, "bucket") == 0) ok = kernel_bucket(n);
  else if (strcmp(kernel, "fft") == 0) ok = kernel_fft(n);
  else ok = kernel_mm(n);
  scopedsm_stats_stop();
  const double t1 = scopedsm_time();

  if (me == 0) {
    char size[112];
    if (hints)
      snprintf(size, sizeof size, "kernel=%s n=%ld iters=%ld hints=1 chunk=%ld", kernel, n, iters, chunk_pages);
    else
      snprintf(size, sizeof size, "kernel=%s n=%ld iters=%ld hints=0", kernel, n, iters);
    if (!ok) fprintf(stderr, "ooc -k %s: verification FAILED\n", kernel);
    appkit_result("ooc", SCOPEDSM_VARIANT, procs, size, t1 - t0, ok);
  }
  scopedsm_finalize();
  return ok ? 0 : 1;
}
