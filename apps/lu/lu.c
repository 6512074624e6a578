/*
 * lu - blocked dense LU factorization without pivoting (DSM version), with
 * the contiguous-block layout of SPLASH-2 LU (see lu_kernel.h).
 *
 * Sharing: blocks are owned 2-D cyclically over a pr x pc grid of processes
 * (owner of block (I, J) = (I mod pr) * pc + J mod pc). Every block is padded
 * to whole pages and all blocks of one owner are stored together in that
 * owner's segment, homed at the owner (jia_alloc3 with block = segment
 * size), so each process writes only pages it is home for. Each step has two
 * barriers: after the diagonal block is factored (the perimeter blocks read
 * it) and after the perimeter (the interior blocks read the perimeter).
 *
 * Verification: rank 0 factors the same matrix sequentially in private
 * memory with the same block operations in the same order and compares every
 * entry (relative 1e-12; in practice bit-identical).
 */
#include <stdio.h>
#include <stdlib.h>

#include "appkit.h"
#include "jia.h"
#include "lu_kernel.h"

static const char usage[] =
    "usage: lu [-n size] [-b block]\n"
    "  -n  matrix order, a multiple of the block size (default 256; benchmark 2048)\n"
    "  -b  block size (default 32)\n";

static void barrier(void) { jia_barrier(); }

int main(int argc, char **argv) {
  const char *opt[2] = {NULL, NULL};
  appkit_opts(argc, argv, "nb", opt, usage);
  long n = appkit_long(opt[0], 'n', 256, 1, 16384);
  long bs = appkit_long(opt[1], 'b', 32, 1, 1024);
  if (n % bs != 0) {
    fprintf(stderr, "lu: -n %ld is not a multiple of the block size %ld\n", n, bs);
    return 2;
  }

  jia_init(argc, argv);
  const int me = jiapid, procs = jiahosts;
  const long nb = n / bs;

  /* The process grid: pr is the largest divisor of procs not above its square root. */
  int pr = 1;
  for (int d = 1; d * d <= procs; ++d)
    if (procs % d == 0) pr = d;
  const int pc = procs / pr;

  int *owner = malloc((size_t)(nb * nb) * sizeof *owner);
  long *slot = malloc((size_t)(nb * nb) * sizeof *slot);
  long *count = calloc((size_t)procs, sizeof *count);
  double **blk = malloc((size_t)(nb * nb) * sizeof *blk);
  if (owner == NULL || slot == NULL || count == NULL || blk == NULL) jia_error("lu: out of memory");
  long seg_blocks = 0;
  for (long I = 0; I < nb; ++I)
    for (long J = 0; J < nb; ++J) {
      int p = (int)((I % pr) * pc + J % pc);
      owner[I * nb + J] = p;
      slot[I * nb + J] = count[p]++;
      if (count[p] > seg_blocks) seg_blocks = count[p];
    }
  const long block_bytes = (bs * bs * (long)sizeof(double) + Pagesize - 1) / Pagesize * Pagesize;
  const long seg_bytes = seg_blocks * block_bytes;
  if (seg_bytes * procs > 0x7fffffffL) jia_error("lu: matrix too large for jia_alloc3");
  char *base = (char *)jia_alloc3((int)(seg_bytes * procs), (int)seg_bytes, 0);
  for (long b = 0; b < nb * nb; ++b) blk[b] = (double *)(base + owner[b] * seg_bytes + slot[b] * block_bytes);

  for (long b = 0; b < nb * nb; ++b)
    if (owner[b] == me) lu_init_block(blk[b], b / nb, b % nb, bs, n);

  jia_barrier();
  float t0 = jia_clock();
  jia_startstat();
  lu_factor(blk, owner, nb, bs, me, barrier);
  jia_barrier();
  jia_stopstat();
  float t1 = jia_clock();

  int ok = 1;
  if (me == 0) {
    double *ref = lu_reference(n, bs);
    ok = lu_check(blk, ref, n, bs);
    free(ref);
    char size[48];
    snprintf(size, sizeof size, "n=%ld block=%ld", n, bs);
    appkit_result("lu", SCOPEDSM_VARIANT, procs, size, (double)(t1 - t0), ok);
  }
  free(owner);
  free(slot);
  free(count);
  free(blk);
  jia_exit();
  return ok ? 0 : 1;
}
