/* lu_kernel.c - see lu_kernel.h. */
#include "lu_kernel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "appkit.h"

void lu_init_block(double *b, long I, long J, long bs, long n) {
  for (long r = 0; r < bs; ++r)
    for (long c = 0; c < bs; ++c) {
      long i = I * bs + r, j = J * bs + c;
      double v = appkit_unit(appkit_key2((uint64_t)i, (uint64_t)j)) - 0.5;
      b[r * bs + c] = i == j ? v + (double)n : v;
    }
}

/* In-place LU of a diagonal block: unit lower L below the diagonal, U on and above. */
static void factor_diag(double *d, long bs) {
  for (long k = 0; k < bs; ++k) {
    const double *dk = d + k * bs;
    for (long i = k + 1; i < bs; ++i) {
      double *di = d + i * bs;
      double l = di[k] /= dk[k];
      for (long j = k + 1; j < bs; ++j) di[j] -= l * dk[j];
    }
  }
}

/* Block below the diagonal: X := X U^-1, U the upper triangle of d. */
static void solve_below(double *x, const double *d, long bs) {
  for (long r = 0; r < bs; ++r) {
    double *xr = x + r * bs;
    for (long k = 0; k < bs; ++k) {
      const double *dk = d + k * bs;
      double v = xr[k] /= dk[k];
      for (long j = k + 1; j < bs; ++j) xr[j] -= v * dk[j];
    }
  }
}

/* Block right of the diagonal: X := L^-1 X, L the unit lower triangle of d. */
static void solve_right(double *x, const double *d, long bs) {
  for (long k = 0; k < bs; ++k) {
    const double *xk = x + k * bs;
    for (long i = k + 1; i < bs; ++i) {
      double l = d[i * bs + k];
      double *xi = x + i * bs;
      for (long j = 0; j < bs; ++j) xi[j] -= l * xk[j];
    }
  }
}

/* Interior block: C -= A B. */
static void update(double *c, const double *a, const double *b, long bs) {
  for (long i = 0; i < bs; ++i) {
    double *ci = c + i * bs;
    const double *ai = a + i * bs;
    for (long k = 0; k < bs; ++k) {
      double v = ai[k];
      const double *bk = b + k * bs;
      for (long j = 0; j < bs; ++j) ci[j] -= v * bk[j];
    }
  }
}

void lu_factor(double *const *blk, const int *owner, long nb, long bs, int me, void (*sync)(void)) {
  if (nb <= 0) return;
  if (owner[0] == me) factor_diag(blk[0], bs);
  for (long K = 0; K < nb; ++K) {
    const double *diag = blk[K * nb + K];
    sync();
    for (long I = K + 1; I < nb; ++I)
      if (owner[I * nb + K] == me) solve_below(blk[I * nb + K], diag, bs);
    for (long J = K + 1; J < nb; ++J)
      if (owner[K * nb + J] == me) solve_right(blk[K * nb + J], diag, bs);
    sync();
    for (long I = K + 1; I < nb; ++I)
      for (long J = K + 1; J < nb; ++J)
        if (owner[I * nb + J] == me) update(blk[I * nb + J], blk[I * nb + K], blk[K * nb + J], bs);
    if (K + 1 < nb && owner[(K + 1) * nb + K + 1] == me) factor_diag(blk[(K + 1) * nb + K + 1], bs);
  }
}

static void no_sync(void) {}

double *lu_reference(long n, long bs) {
  long nb = n / bs, per = bs * bs;
  double *m = malloc((size_t)(n * n) * sizeof *m);
  double **blk = malloc((size_t)(nb * nb) * sizeof *blk);
  int *owner = calloc((size_t)(nb * nb), sizeof *owner);
  if (m == NULL || blk == NULL || owner == NULL) {
    fprintf(stderr, "lu: out of memory for the sequential reference\n");
    exit(1);
  }
  for (long I = 0; I < nb; ++I)
    for (long J = 0; J < nb; ++J) {
      blk[I * nb + J] = m + (I * nb + J) * per;
      lu_init_block(blk[I * nb + J], I, J, bs, n);
    }
  lu_factor(blk, owner, nb, bs, 0, no_sync);
  free(blk);
  free(owner);
  return m;
}

int lu_check(double *const *blk, const double *ref, long n, long bs) {
  long nb = n / bs, per = bs * bs;
  for (long b = 0; b < nb * nb; ++b)
    for (long e = 0; e < per; ++e) {
      double got = blk[b][e], want = ref[b * per + e];
      if (!(fabs(got - want) <= 1e-12 * (fabs(want) + 1.0))) {
        long i = (b / nb) * bs + e / bs, j = (b % nb) * bs + e % bs;
        fprintf(stderr, "lu: verification FAILED: entry (%ld, %ld) of the factors is %.17g, the sequential "
                        "factorization has %.17g\n", i, j, got, want);
        return 0;
      }
    }
  return 1;
}
