/* A red-black SOR over a shared grid that checkpoints every K iterations
 * and can be killed at a chosen point, for tests/checkpoint/ckpt_test.py.
 *
 *   ckpt_sor N ITERS K [KILL_RANK KILL_ITER]
 *
 * The grid (N x N doubles, each process a block of rows) and a table of
 * weights that only the start writes (every process reads all of it each
 * iteration, so its pages stay unchanged and trapped: an incremental
 * checkpoint references them) are shared; the iteration count and a sum
 * of what this process read are private, registered with every
 * checkpoint. KILL_RANK raises SIGKILL in the middle of iteration
 * KILL_ITER (between its red and black half-sweeps). Prints the
 * checkpoint it restarted from, the iteration it resumed at, and at the
 * end the bits of the grid's weighted sum and of every process's private
 * sum, which an uninterrupted run must print alike. */
#include <scopedsm.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double bits_of(double d, unsigned long long *out) {
  memcpy(out, &d, sizeof d);
  return d;
}

int main(int argc, char **argv) {
  scopedsm_init(&argc, &argv);
  if (argc < 4) scopedsm_fatal("usage: ckpt_sor N ITERS K [KILL_RANK KILL_ITER]");
  const long n = atol(argv[1]), iters = atol(argv[2]), k = atol(argv[3]);
  const int kill_rank = argc > 5 ? atoi(argv[4]) : -1;
  const long kill_iter = argc > 5 ? atol(argv[5]) : -1;
  const int rank = scopedsm_rank(), size = scopedsm_size();
  const long rows = (n + size - 1) / size;
  double *grid = scopedsm_alloc_cyclic((size_t)(n * n) * sizeof(double), (size_t)(rows * n) * sizeof(double), 0);
  double *weight = scopedsm_alloc_cyclic((size_t)(n * n) * sizeof(double), (size_t)(rows * n) * sizeof(double), 0);
  double *sums = scopedsm_alloc((size_t)size * sizeof(double));
  const long lo = rank * rows, hi = lo + rows < n ? lo + rows : n;

  const long long restarted = scopedsm_restarted();
  if (restarted == 0) {
    for (long i = lo; i < hi; i++)
      for (long j = 0; j < n; j++) {
        grid[i * n + j] = (i == 0 || j == 0 || i == n - 1 || j == n - 1) ? (double)(i + 2 * j) : 0.0;
        weight[i * n + j] = 1.0 + (double)((i * 7 + j * 3) % 11) / 16.0;
      }
    scopedsm_barrier();
  }
  long iter = 0;
  double mine = 0;
  scopedsm_checkpoint_register(&iter, sizeof iter); /* restored here on a restart */
  scopedsm_checkpoint_register(&mine, sizeof mine);
  printf("rank %d: restarted from checkpoint %lld, resuming at iteration %ld\n", rank, restarted, iter);
  fflush(stdout);

  while (iter < iters) {
    iter++;
    double wsum = 0;
    for (long i = 0; i < n * n; i += 61) wsum += weight[i];
    for (int color = 0; color < 2; color++) {
      for (long i = lo > 1 ? lo : 1; i < hi && i < n - 1; i++)
        for (long j = 1 + (i + color) % 2; j < n - 1; j += 2) {
          const double avg = (grid[(i - 1) * n + j] + grid[(i + 1) * n + j] + grid[i * n + j - 1] + grid[i * n + j + 1]) / 4;
          grid[i * n + j] += 1.5 * (avg - grid[i * n + j]) * (weight[i * n + j] / 2.0);
        }
      if (color == 0 && rank == kill_rank && iter == kill_iter) raise(SIGKILL);
      scopedsm_barrier();
    }
    mine += wsum * (double)iter + grid[(lo + hi) / 2 * n + n / 2];
    if (iter % k == 0) scopedsm_checkpoint();
  }

  sums[rank] = mine;
  scopedsm_barrier();
  if (rank == 0) {
    double total = 0, privs = 0;
    for (long i = 0; i < n * n; i++) total += grid[i] * weight[i] * (double)(i % 13 + 1);
    for (int r = 0; r < size; r++) privs = privs * 3 + sums[r];
    unsigned long long t, p;
    bits_of(total, &t);
    bits_of(privs, &p);
    printf("result %016llx private %016llx (%.10g)\n", t, p, total);
  }
  scopedsm_finalize();
  return 0;
}
