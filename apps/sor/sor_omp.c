/*
 * sor_omp - red-black SOR with OpenMP threads in one process: what a user
 * with one shared-memory machine would write instead of the DSM version.
 *
 * Both colours are ordinary arrays; each half-sweep is an `omp for` over
 * rows with a static schedule (the implicit barrier at its end separates the
 * red and black half-sweeps). Threads: -t, else OMP_NUM_THREADS, else the
 * OpenMP default.
 *
 * Verification: compares every point with the sequential reference (same
 * arithmetic: expected bit-identical, checked to 1e-12).
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "appkit.h"
#include "sor_kernel.h"

static const char usage[] =
    "usage: sor_omp [-n size] [-i iterations] [-t threads]\n"
    "  -n  interior points per side, even (default 256; benchmark 2048)\n"
    "  -i  iterations (default 10; benchmark 100)\n"
    "  -t  threads (default OMP_NUM_THREADS or the number of cores)\n";

int main(int argc, char **argv) {
  const char *opt[3] = {NULL, NULL, NULL};
  appkit_opts(argc, argv, "nit", opt, usage);
  long n = appkit_long(opt[0], 'n', 256, 2, 32766);
  long iters = appkit_long(opt[1], 'i', 10, 1, 1000000);
  int threads = (int)appkit_long(opt[2], 't', omp_get_max_threads(), 1, 1024);
  if (n % 2 != 0) {
    fprintf(stderr, "sor_omp: -n must be even\n");
    return 2;
  }
  omp_set_num_threads(threads);

  const long w = sor_width(n);
  double *red = malloc((size_t)((n + 2) * w) * sizeof *red);
  double *black = malloc((size_t)((n + 2) * w) * sizeof *black);
  double **rrow = malloc((size_t)(n + 2) * sizeof *rrow);
  double **brow = malloc((size_t)(n + 2) * sizeof *brow);
  if (red == NULL || black == NULL || rrow == NULL || brow == NULL) {
    fprintf(stderr, "sor_omp: out of memory\n");
    return 1;
  }
  for (long i = 0; i < n + 2; ++i) {
    rrow[i] = red + i * w;
    brow[i] = black + i * w;
  }
  /* First touch by the thread that will update each row. */
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n + 2; ++i) sor_init_rows(rrow, brow, i, i + 1, n);

  double t0 = omp_get_wtime();
#pragma omp parallel
  for (long it = 0; it < iters; ++it) {
#pragma omp for schedule(static)
    for (long i = 1; i <= n; ++i) sor_sweep(rrow, brow, SOR_RED, i, i + 1, n, SOR_OMEGA);
#pragma omp for schedule(static)
    for (long i = 1; i <= n; ++i) sor_sweep(brow, rrow, SOR_BLACK, i, i + 1, n, SOR_OMEGA);
  }
  double t1 = omp_get_wtime();

  double *ref_red, *ref_black;
  sor_reference(n, iters, &ref_red, &ref_black);
  int ok = sor_check_rows(rrow, brow, ref_red, ref_black, 0, n + 2, n);
  char size[64];
  snprintf(size, sizeof size, "n=%ld iters=%ld", n, iters);
  appkit_result("sor", "omp", threads, size, t1 - t0, ok);
  free(ref_red);
  free(ref_black);
  free(red);
  free(black);
  free(rrow);
  free(brow);
  return ok ? 0 : 1;
}
