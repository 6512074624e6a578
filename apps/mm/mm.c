/*
 * mm - inner-product matrix multiply C = A * B (DSM version).
 *
 * Computes the n x n product with the kernel in mm_kernel.h (B is stored
 * transposed, so every entry of C is the dot product of a row of A and a
 * row of BT).
 *
 * Sharing: A, BT and C are shared, each laid out in bands of rows padded to
 * whole pages, one band per process, homed at that process. Process p
 * initializes band p of A and of BT and computes band p of C, so all writes
 * are home writes. Every process reads the whole of BT: after the first
 * barrier it fetches each remote page of BT once. Two barriers: after the
 * initialization and after the multiply.
 *
 * With -p 0 (a naive first port) A and BT are homed at rank 0, which
 * initializes all of them; C keeps its bands. Every other process then
 * fetches the whole of A's band and BT from rank 0 while rank 0 computes.
 *
 * Verification: rank 0 computes the product sequentially in private memory
 * (plain i-k-j loop) and compares every entry exactly (the entries are small
 * integers, so the product is exact in any summation order).
 */
#include <stdio.h>
#include <stdlib.h>

#include "appkit.h"
#include "jia.h"
#include "mm_kernel.h"

static const char usage[] =
    "usage: mm [-n size] [-p homes]\n"
    "  -n  matrix order (default 256; benchmark 1024)\n"
    "  -p  'band' (default): each band homed at its process; '0': A and BT homed at rank 0 (a naive first port)\n";

/* Allocates an n x n banded shared matrix and fills its row table. */
static double *alloc_banded(long n, int procs, double **rows, int on_rank0) {
  long row_bytes = n * (long)sizeof(double);
  long band = appkit_band_bytes(n, row_bytes, procs, Pagesize);
  if (band * procs > 0x7fffffffL) jia_error("mm: matrix too large for jia_alloc3");
  char *base = (char *)jia_alloc3((int)(band * procs), (int)(on_rank0 ? band * procs : band), 0);
  for (long i = 0; i < n; ++i) rows[i] = (double *)(base + appkit_band_offset(i, n, row_bytes, procs, Pagesize));
  return (double *)base;
}

int main(int argc, char **argv) {
  const char *opt[2] = {NULL, NULL};
  appkit_opts(argc, argv, "np", opt, usage);
  long n = appkit_long(opt[0], 'n', 256, 1, 16384);
  int naive = appkit_homes(opt[1], "mm");

  jia_init(argc, argv);
  const int me = jiapid, procs = jiahosts;
  double **a = malloc((size_t)n * sizeof *a), **bt = malloc((size_t)n * sizeof *bt), **c = malloc((size_t)n * sizeof *c);
  if (a == NULL || bt == NULL || c == NULL) jia_error("mm: out of memory");
  alloc_banded(n, procs, a, naive);
  alloc_banded(n, procs, bt, naive);
  alloc_banded(n, procs, c, 0);

  long rows = appkit_band_rows(n, procs);
  long lo = me * rows < n ? me * rows : n, hi = lo + rows < n ? lo + rows : n;
  if (!naive) {
    mm_init_a(a, n, lo, hi);
    mm_init_bt(bt, n, lo, hi);
  } else if (me == 0) {
    mm_init_a(a, n, 0, n);
    mm_init_bt(bt, n, 0, n);
  }

  jia_barrier();
  float t0 = jia_clock();
  jia_startstat();
  mm_multiply(c, a, bt, n, lo, hi);
  jia_barrier();
  jia_stopstat();
  float t1 = jia_clock();

  int ok = 1;
  if (me == 0) {
    double *ref = mm_reference(n);
    ok = mm_check(c, ref, n, 0, n);
    free(ref);
    char size[32];
    snprintf(size, sizeof size, naive ? "n=%ld homes=0" : "n=%ld", n);
    appkit_result("mm", SCOPEDSM_VARIANT, procs, size, (double)(t1 - t0), ok);
  }
  free(a);
  free(bt);
  free(c);
  jia_exit();
  return ok ? 0 : 1;
}
