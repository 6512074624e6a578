/*
 * taskmig - the task-migration experiment (the JIAJIA dissertation's §6.7;
 * docs/SCHEDULING.md, "Task migration"; docs/STUDIES.md).
 *
 * An iterative relaxation over `rows` independent tasks: each iteration
 * smooths every row in place (`sweeps` Gauss-Seidel sweeps of
 * x[j] = (x[j-1] + x[j] + x[j+1]) / 3 along the row, ends fixed). Each row
 * is padded to whole pages, so a row's pages have one writer: whoever owns
 * the task. Tasks start in even contiguous blocks, each homed at its
 * process (jia_alloc3), and every iteration ends with jia_lbarrier, which
 * under SCOPEDSM_TASK_MIGRATION=compute moves rows from slow processes to
 * fast ones, under =data (the default) also their pages' homes, and under
 * =off is a plain barrier (static allocation). Run it under
 * `scopedsm run --load 2,1,3,1` to load alternate processes.
 *
 * Verification: rank 0 recomputes every row sequentially in private memory
 * and compares bit for bit (each row's arithmetic does not depend on who
 * computes it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "appkit.h"
#include "jia.h"

static const char usage[] =
    "usage: taskmig [-r rows] [-c columns] [-s sweeps] [-i iterations]\n"
    "  -r  tasks (rows) (default 256; benchmark 2048)\n"
    "  -c  doubles per row (default 512, one 4 KB page)\n"
    "  -s  sweeps per row per iteration (default 4; benchmark 16)\n"
    "  -i  iterations (default 20; benchmark 100)\n";

static void init_row(double *x, long row, long c) {
  for (long j = 0; j < c; ++j) x[j] = appkit_unit(appkit_key2((uint64_t)row, (uint64_t)j));
}

static void relax_row(double *x, long c, long sweeps) {
  for (long s = 0; s < sweeps; ++s)
    for (long j = 1; j + 1 < c; ++j) x[j] = (x[j - 1] + x[j] + x[j + 1]) / 3.0;
}

int main(int argc, char **argv) {
  const char *opt[4] = {NULL, NULL, NULL, NULL};
  appkit_opts(argc, argv, "rcsi", opt, usage);
  const long rows = appkit_long(opt[0], 'r', 256, 1, 1000000);
  const long c = appkit_long(opt[1], 'c', 512, 3, 1000000);
  const long sweeps = appkit_long(opt[2], 's', 4, 1, 1000000);
  const long iters = appkit_long(opt[3], 'i', 20, 1, 1000000);

  jia_init(argc, argv);
  const int me = jiapid, procs = jiahosts;
  const long stride = ((long)(c * (long)sizeof(double)) + Pagesize - 1) / Pagesize * Pagesize; /* bytes per row */
  const long per = (rows + procs - 1) / procs; /* rows per process at the start */
  if (rows * stride > 0x7fffffffL || per * stride > 0x7fffffffL) jia_error("taskmig: grid too large for jia_alloc3");
  char *grid = (char *)jia_alloc3((int)(rows * stride), (int)(per * stride), 0);
#define ROW(i) ((double *)(grid + (i) * stride))

  /* Inclusive [begin, end], JIAJIA's convention; the last parts may be empty. */
  int begin = (int)(me * per < rows ? me * per : rows);
  int end = (int)((me + 1) * per < rows ? (me + 1) * per : rows) - 1;
  for (long i = begin; i <= end; ++i) init_row(ROW(i), i, c);
  jia_lbarrier_setup((int)iters, 0, -1); /* alpha = iters / 10 unless set */
  jia_barrier();

  float t0 = jia_clock();
  jia_startstat();
  for (long it = 0; it < iters; ++it) {
    for (long i = begin; i <= end; ++i) relax_row(ROW(i), c, sweeps);
    jia_lbarrier(&begin, &end);
  }
  jia_stopstat();
  float t1 = jia_clock();

  int ok = 1;
  if (me == 0) {
    double *ref = malloc((size_t)c * sizeof *ref);
    if (ref == NULL) jia_error("taskmig: out of memory");
    for (long i = 0; i < rows && ok; ++i) {
      init_row(ref, i, c);
      for (long it = 0; it < iters; ++it) relax_row(ref, c, sweeps);
      if (memcmp(ref, ROW(i), (size_t)c * sizeof *ref) != 0) {
        fprintf(stderr, "taskmig: row %ld differs from the sequential result\n", i);
        ok = 0;
      }
    }
    free(ref);
    const char *mode = getenv("SCOPEDSM_TASK_MIGRATION");
    char size[96];
    snprintf(size, sizeof size, "rows=%ld cols=%ld sweeps=%ld iters=%ld migration=%s", rows, c, sweeps, iters,
             mode != NULL ? mode : "data");
    appkit_result("taskmig", SCOPEDSM_VARIANT, procs, size, (double)(t1 - t0), ok);
  }
  jia_exit();
  return ok ? 0 : 1;
}
