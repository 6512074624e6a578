/*
 * sor - red-black successive over-relaxation on an n x n grid (DSM version).
 *
 * Computes `iters` red-black SOR iterations (omega = 1.25) of Laplace's
 * equation with fixed boundaries; see sor_kernel.h for the grid layout.
 *
 * Sharing: the red and black arrays are shared. Interior rows are split into
 * contiguous bands, one per process, and each band is padded to whole pages
 * and homed at the process that updates it (jia_alloc3 with block = band
 * size), so every write is a home write. Each half-sweep reads the other
 * colour's boundary rows of the two neighbouring bands; two barriers per
 * iteration (after the red and after the black half-sweep) make them
 * visible.
 *
 * With -p 0 (a naive first port) the whole grid is homed at rank 0, which
 * initializes it; every other process's writes then travel home as diffs
 * and its reads as fetches.
 *
 * Verification: rank 0 recomputes the same iterations sequentially in
 * private memory and compares every point. The arithmetic is identical, so
 * the grids must agree to within 1e-12 (in practice bit for bit).
 */
#include <stdio.h>
#include <stdlib.h>

#include "appkit.h"
#include "jia.h"
#include "sor_kernel.h"

static const char usage[] =
    "usage: sor [-n size] [-i iterations] [-p homes]\n"
    "  -n  interior points per side, even (default 256; benchmark 2048)\n"
    "  -i  iterations (default 10; benchmark 100)\n"
    "  -p  'band' (default): each band homed at its process; '0': the whole grid at rank 0 (a naive first port)\n";

/* First physical row of process p's band (row 0 is in band 0, row n+1 in the last). */
static long band_first(long n, int procs, int p) {
  long lo, hi;
  appkit_block(n, procs, p, &lo, &hi);
  return p == 0 ? 0 : lo + 1;
}

int main(int argc, char **argv) {
  const char *opt[3] = {NULL, NULL, NULL};
  appkit_opts(argc, argv, "nip", opt, usage);
  long n = appkit_long(opt[0], 'n', 256, 2, 32766);
  long iters = appkit_long(opt[1], 'i', 10, 1, 1000000);
  int naive = appkit_homes(opt[2], "sor");
  if (n % 2 != 0) {
    fprintf(stderr, "sor: -n must be even\n");
    return 2;
  }

  jia_init(argc, argv);
  const int me = jiapid, procs = jiahosts;
  const long w = sor_width(n);

  /* Each band holds at most ceil(n/procs) interior rows plus the boundary rows. */
  long band_rows = (n + procs - 1) / procs + 2;
  long band_bytes = (band_rows * w * (long)sizeof(double) + Pagesize - 1) / Pagesize * Pagesize;
  if (band_bytes * procs > 0x7fffffffL) jia_error("sor: grid too large for jia_alloc3");
  const int block = (int)(naive ? band_bytes * procs : band_bytes);
  double *red = (double *)jia_alloc3((int)(band_bytes * procs), block, 0);
  double *black = (double *)jia_alloc3((int)(band_bytes * procs), block, 0);

  double **rrow = malloc((size_t)(n + 2) * sizeof *rrow);
  double **brow = malloc((size_t)(n + 2) * sizeof *brow);
  if (rrow == NULL || brow == NULL) jia_error("sor: out of memory");
  for (int p = 0; p < procs; ++p) {
    long first = band_first(n, procs, p);
    long last = p == procs - 1 ? n + 2 : band_first(n, procs, p + 1);
    for (long i = first; i < last; ++i) {
      long off = p * (band_bytes / (long)sizeof(double)) + (i - first) * w;
      rrow[i] = red + off;
      brow[i] = black + off;
    }
  }

  /* Every process initializes its own band (boundary rows included); in a
     naive first port rank 0 initializes everything. */
  long first = band_first(n, procs, me);
  long last = me == procs - 1 ? n + 2 : band_first(n, procs, me + 1);
  if (!naive) sor_init_rows(rrow, brow, first, last, n);
  else if (me == 0) sor_init_rows(rrow, brow, 0, n + 2, n);
  long lo = first < 1 ? 1 : first, hi = last > n + 1 ? n + 1 : last; /* interior rows I update */

  jia_barrier();
  float t0 = jia_clock();
  jia_startstat();
  for (long it = 0; it < iters; ++it) {
    sor_sweep(rrow, brow, SOR_RED, lo, hi, n, SOR_OMEGA);
    jia_barrier();
    sor_sweep(brow, rrow, SOR_BLACK, lo, hi, n, SOR_OMEGA);
    jia_barrier();
  }
  jia_stopstat();
  float t1 = jia_clock();

  int ok = 1;
  if (me == 0) {
    double *ref_red, *ref_black;
    sor_reference(n, iters, &ref_red, &ref_black);
    ok = sor_check_rows(rrow, brow, ref_red, ref_black, 0, n + 2, n);
    free(ref_red);
    free(ref_black);
    char size[64];
    snprintf(size, sizeof size, naive ? "n=%ld iters=%ld homes=0" : "n=%ld iters=%ld", n, iters);
    appkit_result("sor", SCOPEDSM_VARIANT, procs, size, (double)(t1 - t0), ok);
  }
  free(rrow);
  free(brow);
  jia_exit();
  return ok ? 0 : 1;
}
