/* mm_kernel.c - see mm_kernel.h. */
#include "mm_kernel.h"

#include <stdio.h>
#include <stdlib.h>

#include "appkit.h"

static double small_int(uint64_t seed, long r, long c) {
  return (double)(int)(appkit_hash64(appkit_key2(seed, ((uint64_t)r << 32) | (uint64_t)c)) % 7) - 3.0;
}

double mm_a(long i, long k) { return small_int(1, i, k); }
double mm_b(long k, long j) { return small_int(2, k, j); }

void mm_init_a(double *const *a, long n, long lo, long hi) {
  for (long i = lo; i < hi; ++i)
    for (long k = 0; k < n; ++k) a[i][k] = mm_a(i, k);
}

void mm_init_bt(double *const *bt, long n, long lo, long hi) {
  for (long j = lo; j < hi; ++j)
    for (long k = 0; k < n; ++k) bt[j][k] = mm_b(k, j);
}

/* One entry as a plain dot product (for the edges of the matrix). */
static double dot(const double *x, const double *y, long n) {
  double s = 0.0;
  for (long k = 0; k < n; ++k) s += x[k] * y[k];
  return s;
}

void mm_multiply(double *const *c, double *const *a, double *const *bt, long n, long lo, long hi) {
  long i = lo;
  for (; i + 4 <= hi; i += 4) {
    const double *a0 = a[i], *a1 = a[i + 1], *a2 = a[i + 2], *a3 = a[i + 3];
    long j = 0;
    for (; j + 4 <= n; j += 4) {
      const double *b0 = bt[j], *b1 = bt[j + 1], *b2 = bt[j + 2], *b3 = bt[j + 3];
      double s[4][4] = {{0}};
      for (long k = 0; k < n; ++k) {
        double x[4] = {a0[k], a1[k], a2[k], a3[k]};
        double y[4] = {b0[k], b1[k], b2[k], b3[k]};
        for (int r = 0; r < 4; ++r)
          for (int q = 0; q < 4; ++q) s[r][q] += x[r] * y[q];
      }
      for (int r = 0; r < 4; ++r)
        for (int q = 0; q < 4; ++q) c[i + r][j + q] = s[r][q];
    }
    for (; j < n; ++j)
      for (int r = 0; r < 4; ++r) c[i + r][j] = dot(a[i + r], bt[j], n);
  }
  for (; i < hi; ++i)
    for (long j = 0; j < n; ++j) c[i][j] = dot(a[i], bt[j], n);
}

double *mm_reference(long n) {
  double *a = malloc((size_t)(n * n) * sizeof *a);
  double *b = malloc((size_t)(n * n) * sizeof *b);
  double *c = calloc((size_t)(n * n), sizeof *c);
  if (a == NULL || b == NULL || c == NULL) {
    fprintf(stderr, "mm: out of memory for the sequential reference\n");
    exit(1);
  }
  for (long i = 0; i < n; ++i)
    for (long k = 0; k < n; ++k) {
      a[i * n + k] = mm_a(i, k);
      b[i * n + k] = mm_b(i, k);
    }
  for (long i = 0; i < n; ++i)
    for (long k = 0; k < n; ++k) {
      double x = a[i * n + k];
      for (long j = 0; j < n; ++j) c[i * n + j] += x * b[k * n + j];
    }
  free(a);
  free(b);
  return c;
}

int mm_check(double *const *c, const double *ref, long n, long lo, long hi) {
  for (long i = lo; i < hi; ++i)
    for (long j = 0; j < n; ++j)
      if (c[i][j] != ref[i * n + j]) {
        fprintf(stderr, "mm: verification FAILED: C[%ld][%ld] is %.17g, the sequential product has %.17g\n", i, j,
                c[i][j], ref[i * n + j]);
        return 0;
      }
  return 1;
}
