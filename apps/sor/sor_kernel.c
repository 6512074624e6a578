/* sor_kernel.c - see sor_kernel.h. */
#include "sor_kernel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "appkit.h"

long sor_width(long n) { return (n + 2) / 2; }

/* The value of point (i, j) before the first iteration: the top edge is held
 * at 1, the other edges at 0, the interior starts from noise in [0, 1). */
static double initial_value(long i, long j, long n) {
  if (i == 0) return 1.0;
  if (i == n + 1 || j == 0 || j == n + 1) return 0.0;
  return appkit_unit(appkit_key2((uint64_t)i, (uint64_t)j));
}

void sor_init_rows(double *const *red, double *const *black, long lo, long hi, long n) {
  for (long i = lo; i < hi; ++i)
    for (long j = 0; j <= n + 1; ++j) {
      double *row = ((i + j) % 2 == SOR_RED) ? red[i] : black[i];
      row[j / 2] = initial_value(i, j, n);
    }
}

void sor_sweep(double *const *mine, double *const *other, int color, long lo, long hi, long n, double omega) {
  const double keep = 1.0 - omega, mix = 0.25 * omega;
  for (long i = lo; i < hi; ++i) {
    double *m = mine[i];
    const double *o = other[i];
    const double *up = other[i - 1];
    const double *dn = other[i + 1];
    long j0 = ((i + 1) % 2 == color) ? 1 : 2;
    for (long j = j0; j <= n; j += 2) {
      long k = j / 2;
      double s = o[(j - 1) / 2] + o[(j + 1) / 2] + up[k] + dn[k];
      m[k] = keep * m[k] + mix * s;
    }
  }
}

static double **row_table(double *base, long rows, long width) {
  double **t = malloc((size_t)rows * sizeof *t);
  if (t == NULL) {
    fprintf(stderr, "sor: out of memory\n");
    exit(1);
  }
  for (long i = 0; i < rows; ++i) t[i] = base + i * width;
  return t;
}

void sor_reference(long n, long iters, double **red_out, double **black_out) {
  long w = sor_width(n);
  double *red = malloc((size_t)(n + 2) * (size_t)w * sizeof *red);
  double *black = malloc((size_t)(n + 2) * (size_t)w * sizeof *black);
  if (red == NULL || black == NULL) {
    fprintf(stderr, "sor: out of memory for the sequential reference\n");
    exit(1);
  }
  double **r = row_table(red, n + 2, w), **b = row_table(black, n + 2, w);
  sor_init_rows(r, b, 0, n + 2, n);
  for (long it = 0; it < iters; ++it) {
    sor_sweep(r, b, SOR_RED, 1, n + 1, n, SOR_OMEGA);
    sor_sweep(b, r, SOR_BLACK, 1, n + 1, n, SOR_OMEGA);
  }
  free(r);
  free(b);
  *red_out = red;
  *black_out = black;
}

int sor_check_rows(double *const *red, double *const *black, const double *ref_red, const double *ref_black, long lo,
                   long hi, long n) {
  long w = sor_width(n);
  for (long i = lo; i < hi; ++i)
    for (long k = 0; k < w; ++k) {
      double got[2] = {red[i][k], black[i][k]};
      double want[2] = {ref_red[i * w + k], ref_black[i * w + k]};
      for (int c = 0; c < 2; ++c)
        if (!(fabs(got[c] - want[c]) <= 1e-12)) {
          fprintf(stderr, "sor: verification FAILED: %s row %ld element %ld is %.17g, the sequential reference has %.17g\n",
                  c == SOR_RED ? "red" : "black", i, k, got[c], want[c]);
          return 0;
        }
    }
  return 1;
}
