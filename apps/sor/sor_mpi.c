/*
 * sor_mpi - red-black SOR written directly with MPI, no DSM: what a user
 * would write instead of the DSM version (sor.c).
 *
 * Each rank keeps its band of interior rows plus one halo row above and
 * below, both colours, in private memory. After each half-sweep it exchanges
 * the colour it just updated with its neighbours (MPI_Sendrecv of one row
 * each way), so the next half-sweep reads current halos.
 *
 * Verification: every rank sends its band to rank 0, which compares it with
 * the sequential reference (same arithmetic: expected bit-identical, checked
 * to 1e-12).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "appkit.h"
#include "sor_kernel.h"

static const char usage[] =
    "usage: sor_mpi [-n size] [-i iterations]\n"
    "  -n  interior points per side, even (default 256; benchmark 2048)\n"
    "  -i  iterations (default 10; benchmark 100)\n";

/* Sends my first and last interior rows of one colour to my neighbours and
 * receives their boundary rows into my halo rows. */
static void exchange(double *const *rows, long lo, long hi, long w, int me, int procs) {
  int up = me > 0 ? me - 1 : MPI_PROC_NULL, down = me < procs - 1 ? me + 1 : MPI_PROC_NULL;
  MPI_Sendrecv(rows[lo], (int)w, MPI_DOUBLE, up, 1, rows[hi], (int)w, MPI_DOUBLE, down, 1, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  MPI_Sendrecv(rows[hi - 1], (int)w, MPI_DOUBLE, down, 2, rows[lo - 1], (int)w, MPI_DOUBLE, up, 2, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
}

int main(int argc, char **argv) {
  const char *opt[2] = {NULL, NULL};
  appkit_opts(argc, argv, "ni", opt, usage);
  long n = appkit_long(opt[0], 'n', 256, 2, 32766);
  long iters = appkit_long(opt[1], 'i', 10, 1, 1000000);
  if (n % 2 != 0) {
    fprintf(stderr, "sor_mpi: -n must be even\n");
    return 2;
  }

  MPI_Init(&argc, &argv);
  int me, procs;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &procs);
  if (n < procs) {
    if (me == 0) fprintf(stderr, "sor_mpi: need at least one row per rank (-n >= %d)\n", procs);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const long w = sor_width(n);
  long blo, bhi;
  appkit_block(n, procs, me, &blo, &bhi);
  /* Global interior rows [lo, hi); rows lo-1 and hi are halos. */
  const long lo = blo + 1, hi = bhi + 1, local_rows = hi - lo + 2;

  double *red = malloc((size_t)(local_rows * w) * sizeof *red);
  double *black = malloc((size_t)(local_rows * w) * sizeof *black);
  double **rrow = calloc((size_t)(n + 2), sizeof *rrow);
  double **brow = calloc((size_t)(n + 2), sizeof *brow);
  if (red == NULL || black == NULL || rrow == NULL || brow == NULL) MPI_Abort(MPI_COMM_WORLD, 1);
  for (long g = lo - 1; g <= hi; ++g) {
    rrow[g] = red + (g - (lo - 1)) * w;
    brow[g] = black + (g - (lo - 1)) * w;
  }
  /* Initial values are a function of the position, so halos start current. */
  sor_init_rows(rrow, brow, lo - 1, hi + 1, n);

  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (long it = 0; it < iters; ++it) {
    sor_sweep(rrow, brow, SOR_RED, lo, hi, n, SOR_OMEGA);
    exchange(rrow, lo, hi, w, me, procs);
    sor_sweep(brow, rrow, SOR_BLACK, lo, hi, n, SOR_OMEGA);
    exchange(brow, lo, hi, w, me, procs);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double t1 = MPI_Wtime();

  int ok = 1;
  if (me == 0) {
    double *ref_red, *ref_black;
    sor_reference(n, iters, &ref_red, &ref_black);
    ok = sor_check_rows(rrow, brow, ref_red, ref_black, lo, hi, n);
    for (int p = 1; p < procs; ++p) {
      long plo, phi;
      appkit_block(n, procs, p, &plo, &phi);
      long cnt = (phi - plo) * w;
      double *rbuf = malloc((size_t)cnt * sizeof *rbuf), *bbuf = malloc((size_t)cnt * sizeof *bbuf);
      if (rbuf == NULL || bbuf == NULL) MPI_Abort(MPI_COMM_WORLD, 1);
      MPI_Recv(rbuf, (int)cnt, MPI_DOUBLE, p, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Recv(bbuf, (int)cnt, MPI_DOUBLE, p, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      for (long g = plo + 1; g <= phi; ++g) {
        rrow[g] = rbuf + (g - plo - 1) * w;
        brow[g] = bbuf + (g - plo - 1) * w;
      }
      if (ok) ok = sor_check_rows(rrow, brow, ref_red, ref_black, plo + 1, phi + 1, n);
      free(rbuf);
      free(bbuf);
    }
    free(ref_red);
    free(ref_black);
    char size[64];
    snprintf(size, sizeof size, "n=%ld iters=%ld", n, iters);
    appkit_result("sor", "mpi", procs, size, t1 - t0, ok);
  } else {
    MPI_Send(rrow[lo], (int)((hi - lo) * w), MPI_DOUBLE, 0, 3, MPI_COMM_WORLD);
    MPI_Send(brow[lo], (int)((hi - lo) * w), MPI_DOUBLE, 0, 4, MPI_COMM_WORLD);
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  free(red);
  free(black);
  free(rrow);
  free(brow);
  MPI_Finalize();
  return ok ? 0 : 1;
}
