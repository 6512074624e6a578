/*
 * pi - computes pi by numerical integration of 4 / (1 + x^2) over [0, 1]
 * with the midpoint rule on n intervals.
 *
 * The intervals are grouped in fixed blocks of 65536 (independent of the
 * process count) and the blocks are divided evenly among the processes.
 * Each process sums its blocks privately, then adds its partial sum and its
 * block count to a shared accumulator inside one critical section (lock 0).
 * A barrier then makes the total visible to rank 0.
 *
 * Sharing: one shared page (homed at rank 0) written only under lock 0; one
 * acquire per process.
 *
 * Verification: rank 0 recomputes the sum sequentially from the same blocks.
 * Only the grouping of the block sums differs, so the results agree to a
 * relative 1e-12; the block count must match exactly, and the result must
 * be within 1e-9 of pi (the midpoint-rule error is below 1e-10 for n >= 1e5).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "appkit.h"
#include "jia.h"

#define PI_BLOCK 65536L
#define PI_LOCK 0

static const char usage[] =
    "usage: pi [-n intervals]\n"
    "  -n  intervals (default 2^22; benchmark 2^29)\n";

struct accumulator {
  double sum;
  long blocks;
};

/* Sum of f at the midpoints of intervals [first, last) of width h. */
static double block_sum(long first, long last, double h) {
  double s = 0.0;
  for (long i = first; i < last; ++i) {
    double x = h * ((double)i + 0.5);
    s += 4.0 / (1.0 + x * x);
  }
  return s;
}

/* Sum over blocks [b0, b1) of the n intervals, block sums added in order. */
static double blocks_sum(long b0, long b1, long n) {
  double h = 1.0 / (double)n, s = 0.0;
  for (long b = b0; b < b1; ++b) {
    long first = b * PI_BLOCK, last = first + PI_BLOCK < n ? first + PI_BLOCK : n;
    s += block_sum(first, last, h);
  }
  return s;
}

int main(int argc, char **argv) {
  const char *opt[1] = {NULL};
  appkit_opts(argc, argv, "n", opt, usage);
  long n = appkit_long(opt[0], 'n', 1L << 22, 1, 1L << 40);

  jia_init(argc, argv);
  const int me = jiapid, procs = jiahosts;
  struct accumulator *acc = (struct accumulator *)jia_alloc1((int)sizeof *acc);
  /* jia_alloc memory is zero-filled: acc starts at {0, 0}. */

  const long blocks = (n + PI_BLOCK - 1) / PI_BLOCK;
  long b0, b1;
  appkit_block(blocks, procs, me, &b0, &b1);

  jia_barrier();
  float t0 = jia_clock();
  jia_startstat();
  double mine = blocks_sum(b0, b1, n);
  jia_lock(PI_LOCK);
  acc->sum += mine;
  acc->blocks += b1 - b0;
  jia_unlock(PI_LOCK);
  jia_barrier();
  jia_stopstat();
  float t1 = jia_clock();

  int ok = 1;
  if (me == 0) {
    double pi = acc->sum / (double)n;
    double ref = blocks_sum(0, blocks, n) / (double)n;
    if (acc->blocks != blocks) {
      fprintf(stderr, "pi: verification FAILED: %ld blocks were added, expected %ld\n", acc->blocks, blocks);
      ok = 0;
    } else if (!(fabs(pi - ref) <= 1e-12 * ref)) {
      fprintf(stderr, "pi: verification FAILED: got %.17g, the sequential sum gives %.17g\n", pi, ref);
      ok = 0;
    } else if (n >= 100000 && !(fabs(pi - M_PI) <= 1e-9)) {
      fprintf(stderr, "pi: verification FAILED: got %.17g, which is not within 1e-9 of pi\n", pi);
      ok = 0;
    }
    printf("pi = %.15f (error %.3g)\n", pi, pi - M_PI);
    char size[32];
    snprintf(size, sizeof size, "n=%ld", n);
    appkit_result("pi", SCOPEDSM_VARIANT, procs, size, (double)(t1 - t0), ok);
  }
  jia_exit();
  return ok ? 0 : 1;
}
