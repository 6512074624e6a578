/*
 * mm_mpi - inner-product matrix multiply written directly with MPI, no DSM:
 * what a user would write instead of the DSM version (mm.c).
 *
 * Rows of A and C are block-distributed; each rank generates its rows of A.
 * Rank 0 generates all of B (stored transposed, as in mm_kernel.h) and
 * broadcasts it; the timed region is the broadcast plus the local multiply.
 *
 * Verification: rank 0 gathers C and compares it exactly with the
 * sequential product.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "appkit.h"
#include "mm_kernel.h"

static const char usage[] =
    "usage: mm_mpi [-n size]\n"
    "  -n  matrix order (default 256; benchmark 1024)\n";

static double **row_table(double *base, long rows, long width) {
  double **t = malloc((size_t)(rows > 0 ? rows : 1) * sizeof *t);
  if (t == NULL) MPI_Abort(MPI_COMM_WORLD, 1);
  for (long i = 0; i < rows; ++i) t[i] = base + i * width;
  return t;
}

int main(int argc, char **argv) {
  const char *opt[1] = {NULL};
  appkit_opts(argc, argv, "n", opt, usage);
  long n = appkit_long(opt[0], 'n', 256, 1, 16384);

  MPI_Init(&argc, &argv);
  int me, procs;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &procs);
  long lo, hi;
  appkit_block(n, procs, me, &lo, &hi);
  long mine = hi - lo;

  /* Local rows of A and C are indexed from lo: the tables are offset by -lo. */
  double *abuf = malloc((size_t)((mine > 0 ? mine : 1) * n) * sizeof *abuf);
  double *cbuf = malloc((size_t)((mine > 0 ? mine : 1) * n) * sizeof *cbuf);
  double *btbuf = malloc((size_t)(n * n) * sizeof *btbuf);
  if (abuf == NULL || cbuf == NULL || btbuf == NULL) MPI_Abort(MPI_COMM_WORLD, 1);
  double **a = malloc((size_t)n * sizeof *a), **c = malloc((size_t)n * sizeof *c);
  double **bt = row_table(btbuf, n, n);
  if (a == NULL || c == NULL) MPI_Abort(MPI_COMM_WORLD, 1);
  for (long i = lo; i < hi; ++i) {
    a[i] = abuf + (i - lo) * n;
    c[i] = cbuf + (i - lo) * n;
  }
  mm_init_a(a, n, lo, hi);
  if (me == 0) mm_init_bt(bt, n, 0, n);

  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  /* Broadcast B in pieces of at most 2^27 doubles (MPI counts are ints). */
  for (long off = 0; off < n * n; off += 1L << 27) {
    long cnt = n * n - off < (1L << 27) ? n * n - off : 1L << 27;
    MPI_Bcast(btbuf + off, (int)cnt, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  }
  mm_multiply(c, a, bt, n, lo, hi);
  MPI_Barrier(MPI_COMM_WORLD);
  double t1 = MPI_Wtime();

  int ok = 1;
  if (me == 0) {
    double *ref = mm_reference(n);
    ok = mm_check(c, ref, n, lo, hi);
    double *buf = malloc((size_t)((n / procs + 1) * n) * sizeof *buf);
    if (buf == NULL) MPI_Abort(MPI_COMM_WORLD, 1);
    for (int p = 1; p < procs; ++p) {
      long plo, phi;
      appkit_block(n, procs, p, &plo, &phi);
      if (phi == plo) continue;
      MPI_Recv(buf, (int)((phi - plo) * n), MPI_DOUBLE, p, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      for (long i = plo; i < phi; ++i) c[i] = buf + (i - plo) * n;
      if (ok) ok = mm_check(c, ref, n, plo, phi);
    }
    free(buf);
    free(ref);
    char size[32];
    snprintf(size, sizeof size, "n=%ld", n);
    appkit_result("mm", "mpi", procs, size, t1 - t0, ok);
  } else if (mine > 0) {
    MPI_Send(cbuf, (int)(mine * n), MPI_DOUBLE, 0, 7, MPI_COMM_WORLD);
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  free(abuf);
  free(cbuf);
  free(btbuf);
  free(a);
  free(c);
  free(bt);
  MPI_Finalize();
  return ok ? 0 : 1;
}
