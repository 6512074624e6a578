/*
 * fft - 1-D complex FFT of n = 2^m points by the six-step (transpose)
 * method, after the published description of SPLASH-2's FFT (written from
 * the description; none of its code is used).
 *
 * The n points are a sqrt(n) x sqrt(n) matrix (m even), rows in page-padded
 * bands, one band per process homed at it (jia_alloc3), in two shared arrays
 * x and t. With r = sqrt(n), point j = j1 + r j2 is x[j2][j1], and
 *   1. transpose x into t                      t[j1][j2] = x[j2][j1]
 *   2. r-point FFT of each row of t, then multiply t[j1][k2] by w^(j1 k2),
 *      w = exp(-2 pi i / n) (the twiddle factors)
 *   3. transpose t into x
 *   4. r-point FFT of each row of x
 *   5. transpose x into t: t[k1][k2] = X[k2 + r k1], the transform in
 *      natural order (row-major t is X).
 * Each process transposes into its own rows, reading a column segment of
 * every other process's band (an all-to-all, read-based transpose), and
 * transforms its own rows: every shared page has one writer, its home.
 * One barrier after each of the five steps.
 *
 * Verification (rank 0, after the timed region): Parseval's theorem
 * (sum |X|^2 = n sum |x|^2, relative error below 1e-9) over the whole
 * result, and a direct DFT at eight points (0, 1, n/2, n-1 and four from a
 * hash), each within 1e-9 of sum |x_j|, the largest |X_k| can be. The input
 * is regenerated from its index (appkit_unit), not read back.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "appkit.h"
#include "jia.h"
#include "scopedsm.h"

static const char usage[] =
    "usage: fft [-m log2points]\n"
    "  -m  log2 of the number of complex points, even, 2 to 26 (default 16; benchmark 20)\n";

typedef struct {
  double re, im;
} cplx;

static cplx cmul(cplx a, cplx b) {
  cplx c = {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
  return c;
}

static cplx input_point(long j) {
  cplx c = {appkit_unit(2 * (uint64_t)j) - 0.5, appkit_unit(2 * (uint64_t)j + 1) - 0.5};
  return c;
}

/* exp(-2 pi i k / len) for k in [0, count). */
static cplx *roots(long len, long count) {
  cplx *w = malloc((size_t)count * sizeof *w);
  if (w == NULL) jia_error("fft: out of memory for the roots");
  const double pi = 3.14159265358979323846;
  for (long k = 0; k < count; ++k) {
    w[k].re = cos(2.0 * pi * (double)k / (double)len);
    w[k].im = -sin(2.0 * pi * (double)k / (double)len);
  }
  return w;
}

/* w_n^e for 0 <= e < n = r * r: w_r^(e / r) * w_n^(e % r), from the r
 * roots of unity (coarse) and the first r powers of w_n (fine). */
static cplx power(const cplx *coarse, const cplx *fine, long r, long e) { return cmul(coarse[e / r], fine[e % r]); }

/* In-place iterative radix-2 FFT of `len` points; w[k] = exp(-2 pi i k / len). */
static void fft_row(cplx *a, long len, const cplx *w) {
  for (long i = 1, j = 0; i < len; ++i) {
    long bit = len >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j |= bit;
    if (i < j) {
      cplx tmp = a[i];
      a[i] = a[j];
      a[j] = tmp;
    }
  }
  for (long half = 1; half < len; half <<= 1) {
    const long step = len / (2 * half);
    for (long start = 0; start < len; start += 2 * half)
      for (long k = 0; k < half; ++k) {
        cplx u = a[start + k], v = cmul(a[start + k + half], w[k * step]);
        a[start + k].re = u.re + v.re;
        a[start + k].im = u.im + v.im;
        a[start + k + half].re = u.re - v.re;
        a[start + k + half].im = u.im - v.im;
      }
  }
}

typedef struct {
  char *base;
  long r, row_bytes, page;
  int procs;
} matrix;

static cplx *row_of(const matrix *mx, long row) {
  return (cplx *)(mx->base + appkit_band_offset(row, mx->r, mx->row_bytes, mx->procs, mx->page));
}

/* dst[i][c] = src[c][i] for my rows i of dst, [lo, hi): reads a segment of every row of src. */
static void transpose(const matrix *dst, const matrix *src, long lo, long hi) {
  for (long c = 0; c < src->r; ++c) {
    const cplx *s = row_of(src, c);
    for (long i = lo; i < hi; ++i) row_of(dst, i)[c] = s[i];
  }
}

int main(int argc, char **argv) {
  const char *opt[1] = {NULL};
  appkit_opts(argc, argv, "m", opt, usage);
  const long m = appkit_long(opt[0], 'm', 16, 2, 26);
  if (m % 2 != 0) {
    fprintf(stderr, "fft: -m must be even (the points form a square matrix), not %ld\n", m);
    return 2;
  }
  const long n = 1L << m, r = 1L << (m / 2);

  jia_init(argc, argv);
  const int me = jiapid, procs = jiahosts;
  const long page = (long)scopedsm_page_size();
  const long row_bytes = r * (long)sizeof(cplx);
  const long band_bytes = appkit_band_bytes(r, row_bytes, procs, page);
  if (band_bytes * procs > 0x7fffffffL) jia_error("fft: problem too large for jia_alloc3");
  matrix x = {(char *)jia_alloc3((int)(band_bytes * procs), (int)band_bytes, 0), r, row_bytes, page, procs};
  matrix t = {(char *)jia_alloc3((int)(band_bytes * procs), (int)band_bytes, 0), r, row_bytes, page, procs};

  const long band = appkit_band_rows(r, procs);
  const long lo = me * band < r ? me * band : r;
  const long hi = lo + band < r ? lo + band : r;
  cplx *w_row = roots(r, r);     /* w_r^k: the row FFTs (first r/2) and the coarse twiddles */
  cplx *w_fine = roots(n, r);    /* w_n^k, k < r: the fine twiddles */
  for (long j2 = lo; j2 < hi; ++j2) {
    cplx *row = row_of(&x, j2);
    for (long j1 = 0; j1 < r; ++j1) row[j1] = input_point(j1 + r * j2);
  }

  jia_barrier();
  float t0 = jia_clock();
  jia_startstat();
  transpose(&t, &x, lo, hi);
  jia_barrier();
  for (long j1 = lo; j1 < hi; ++j1) {
    cplx *row = row_of(&t, j1);
    fft_row(row, r, w_row);
    for (long k2 = 0; k2 < r; ++k2) row[k2] = cmul(row[k2], power(w_row, w_fine, r, j1 * k2));
  }
  jia_barrier();
  transpose(&x, &t, lo, hi);
  jia_barrier();
  for (long k2 = lo; k2 < hi; ++k2) fft_row(row_of(&x, k2), r, w_row);
  jia_barrier();
  transpose(&t, &x, lo, hi);
  jia_barrier();
  jia_stopstat();
  float t1 = jia_clock();

  int ok = 1;
  if (me == 0) {
    double in_energy = 0.0, in_abs = 0.0, out_energy = 0.0;
    for (long j = 0; j < n; ++j) {
      cplx v = input_point(j);
      in_energy += v.re * v.re + v.im * v.im;
      in_abs += sqrt(v.re * v.re + v.im * v.im);
    }
    for (long k1 = 0; k1 < r; ++k1) {
      const cplx *row = row_of(&t, k1);
      for (long k2 = 0; k2 < r; ++k2) out_energy += row[k2].re * row[k2].re + row[k2].im * row[k2].im;
    }
    const double parseval = fabs(out_energy - (double)n * in_energy) / ((double)n * in_energy);
    if (!(parseval < 1e-9)) {
      fprintf(stderr, "fft: verification FAILED: sum |X|^2 = %.17g, n sum |x|^2 = %.17g (relative error %.3g)\n",
              out_energy, (double)n * in_energy, parseval);
      ok = 0;
    }
    long points[8] = {0, 1, n / 2, n - 1};
    for (int i = 4; i < 8; ++i) points[i] = (long)(appkit_hash64((uint64_t)i) % (uint64_t)n);
    for (int i = 0; i < 8 && ok; ++i) {
      const long k = points[i];
      cplx ref = {0.0, 0.0};
      for (long j = 0; j < n; ++j) {
        cplx v = cmul(input_point(j), power(w_row, w_fine, r, (long)(((uint64_t)j * (uint64_t)k) % (uint64_t)n)));
        ref.re += v.re;
        ref.im += v.im;
      }
      const cplx got = row_of(&t, k / r)[k % r];
      const double err = hypot(got.re - ref.re, got.im - ref.im);
      if (!(err <= 1e-9 * in_abs)) {
        fprintf(stderr, "fft: verification FAILED: X[%ld] = %.12g%+.12gi, a direct DFT gives %.12g%+.12gi\n", k,
                got.re, got.im, ref.re, ref.im);
        ok = 0;
      }
    }
    char size[64];
    snprintf(size, sizeof size, "m=%ld n=%ld", m, n);
    appkit_result("fft", SCOPEDSM_VARIANT, procs, size, (double)(t1 - t0), ok);
  }
  free(w_row);
  free(w_fine);
  jia_exit();
  return ok ? 0 : 1;
}
