/*
 * mm_omp - inner-product matrix multiply with OpenMP threads in one
 * process: what a user with one shared-memory machine would write instead
 * of the DSM version (mm.c).
 *
 * Rows of C are computed in groups of 4 by an `omp for` with a static
 * schedule. Threads: -t, else OMP_NUM_THREADS, else the OpenMP default.
 *
 * Verification: compares every entry exactly with the sequential product.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "appkit.h"
#include "mm_kernel.h"

static const char usage[] =
    "usage: mm_omp [-n size] [-t threads]\n"
    "  -n  matrix order (default 256; benchmark 1024)\n"
    "  -t  threads (default OMP_NUM_THREADS or the number of cores)\n";

int main(int argc, char **argv) {
  const char *opt[2] = {NULL, NULL};
  appkit_opts(argc, argv, "nt", opt, usage);
  long n = appkit_long(opt[0], 'n', 256, 1, 16384);
  int threads = (int)appkit_long(opt[1], 't', omp_get_max_threads(), 1, 1024);
  omp_set_num_threads(threads);

  double *abuf = malloc((size_t)(n * n) * sizeof *abuf);
  double *btbuf = malloc((size_t)(n * n) * sizeof *btbuf);
  double *cbuf = malloc((size_t)(n * n) * sizeof *cbuf);
  double **a = malloc((size_t)n * sizeof *a), **bt = malloc((size_t)n * sizeof *bt), **c = malloc((size_t)n * sizeof *c);
  if (abuf == NULL || btbuf == NULL || cbuf == NULL || a == NULL || bt == NULL || c == NULL) {
    fprintf(stderr, "mm_omp: out of memory\n");
    return 1;
  }
  for (long i = 0; i < n; ++i) {
    a[i] = abuf + i * n;
    bt[i] = btbuf + i * n;
    c[i] = cbuf + i * n;
  }
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i) {
    mm_init_a(a, n, i, i + 1);
    mm_init_bt(bt, n, i, i + 1);
  }

  const long groups = (n + 3) / 4;
  double t0 = omp_get_wtime();
#pragma omp parallel for schedule(static)
  for (long g = 0; g < groups; ++g) mm_multiply(c, a, bt, n, 4 * g, 4 * g + 4 < n ? 4 * g + 4 : n);
  double t1 = omp_get_wtime();

  double *ref = mm_reference(n);
  int ok = mm_check(c, ref, n, 0, n);
  char size[32];
  snprintf(size, sizeof size, "n=%ld", n);
  appkit_result("mm", "omp", threads, size, t1 - t0, ok);
  free(ref);
  free(abuf);
  free(btbuf);
  free(cbuf);
  free(a);
  free(bt);
  free(c);
  return ok ? 0 : 1;
}
