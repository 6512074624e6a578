/*
 * taskq - a lock-heavy dynamic task queue.
 *
 * The problem: for every x in [1, n], count the steps the Collatz map takes
 * to reach 1, and sum the counts in 16 result bins. The range is cut into 64
 * root tasks, pushed onto a shared stack of tasks. Workers pop a task; a
 * task longer than the grain is split in halves, the upper halves pushed
 * back, until a leaf of at most `grain` numbers remains, which the worker
 * computes privately. Each leaf's sum goes into bin (leaf start / grain) % 16
 * under that bin's lock. A worker stops when the stack is empty and no task
 * is pending anywhere (`pending` counts tasks pushed and not yet finished).
 *
 * Sharing: the stack and its counters are shared and touched only under
 * lock 0 (one acquire per pop, which also reports the leaves finished since
 * the last pop); the 16 bins share one page, each bin under its own lock
 * (1..16), so concurrent critical sections of different locks write the same
 * page; each process writes its count of leaves into its own slot of a
 * shared array outside any lock, made visible by the final barrier.
 *
 * Verification: the leaves depend only on n and the grain, not on who runs
 * them, so rank 0 recomputes every bin sequentially and compares exactly
 * (integers), checks that the leaf counts add up, and that the stack ended
 * empty with nothing pending.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "appkit.h"
#include "jia.h"

#define ROOTS 64
#define BINS 16
#define STACK_CAP 4096
#define QUEUE_LOCK 0
#define BIN_LOCK(b) (1 + (b))

static const char usage[] =
    "usage: taskq [-n numbers] [-g grain]\n"
    "  -n  numbers to process, 1..n (default 2^18; benchmark 2^23)\n"
    "  -g  largest leaf task (default 2048)\n";

struct task {
  long lo, hi; /* numbers [lo, hi) */
};

struct queue {
  long count;   /* tasks on the stack */
  long pending; /* tasks pushed and not yet finished */
  long pushes;  /* tasks ever pushed */
  struct task items[STACK_CAP];
};

struct bin {
  long sum;   /* sum of Collatz step counts */
  long tasks; /* leaves added */
};

static long collatz_steps(uint64_t x) {
  long steps = 0;
  while (x != 1) {
    x = (x & 1) ? 3 * x + 1 : x / 2;
    ++steps;
  }
  return steps;
}

static long leaf_sum(struct task t) {
  long s = 0;
  for (long x = t.lo; x < t.hi; ++x) s += collatz_steps((uint64_t)x);
  return s;
}

static struct task root_task(long n, int r) {
  long lo, hi;
  appkit_block(n, ROOTS, r, &lo, &hi);
  struct task t = {lo + 1, hi + 1};
  return t;
}

static int bin_of(struct task t, long grain) { return (int)((t.lo / grain) % BINS); }

/* The sequential reference: the same leaves, computed in order. */
static void reference(struct task t, long grain, struct bin *bins) {
  if (t.hi - t.lo > grain) {
    long mid = t.lo + (t.hi - t.lo) / 2;
    struct task a = {t.lo, mid}, b = {mid, t.hi};
    reference(a, grain, bins);
    reference(b, grain, bins);
    return;
  }
  if (t.hi <= t.lo) return;
  struct bin *b = &bins[bin_of(t, grain)];
  b->sum += leaf_sum(t);
  b->tasks += 1;
}

int main(int argc, char **argv) {
  const char *opt[2] = {NULL, NULL};
  appkit_opts(argc, argv, "ng", opt, usage);
  long n = appkit_long(opt[0], 'n', 1L << 18, ROOTS, 1L << 32);
  long grain = appkit_long(opt[1], 'g', 2048, 1, 1L << 32);

  jia_init(argc, argv);
  const int me = jiapid, procs = jiahosts;
  struct queue *q = (struct queue *)jia_alloc1((int)sizeof *q);
  struct bin *bins = (struct bin *)jia_alloc1((int)(BINS * sizeof *bins));
  long *leaves_by = (long *)jia_alloc1((int)(procs * sizeof *leaves_by));

  if (me == 0) {
    for (int r = 0; r < ROOTS; ++r) q->items[r] = root_task(n, ROOTS - 1 - r);
    q->count = q->pending = q->pushes = ROOTS;
  }

  jia_barrier();
  float t0 = jia_clock();
  jia_startstat();
  long finished = 0, my_leaves = 0, idle_polls = 0;
  for (;;) {
    jia_lock(QUEUE_LOCK);
    q->pending -= finished;
    finished = 0;
    if (q->count == 0) {
      long pending = q->pending;
      jia_unlock(QUEUE_LOCK);
      if (pending == 0) break;
      ++idle_polls;
      usleep(100); /* others are still splitting: look again shortly */
      continue;
    }
    struct task t = q->items[--q->count];
    while (t.hi - t.lo > grain) {
      if (q->count == STACK_CAP) jia_error("taskq: task stack overflow (capacity %d)", STACK_CAP);
      long mid = t.lo + (t.hi - t.lo) / 2;
      struct task upper = {mid, t.hi};
      q->items[q->count++] = upper;
      q->pending += 1;
      q->pushes += 1;
      t.hi = mid;
    }
    jia_unlock(QUEUE_LOCK);

    finished = 1;
    if (t.hi <= t.lo) continue;
    long s = leaf_sum(t);
    int b = bin_of(t, grain);
    jia_lock(BIN_LOCK(b));
    bins[b].sum += s;
    bins[b].tasks += 1;
    jia_unlock(BIN_LOCK(b));
    ++my_leaves;
  }
  leaves_by[me] = my_leaves;
  jia_barrier();
  jia_stopstat();
  float t1 = jia_clock();

  int ok = 1;
  if (me == 0) {
    struct bin ref[BINS] = {{0, 0}};
    for (int r = 0; r < ROOTS; ++r) reference(root_task(n, r), grain, ref);
    long total = 0, leaves = 0, ref_leaves = 0;
    for (int b = 0; b < BINS; ++b) {
      if (bins[b].sum != ref[b].sum || bins[b].tasks != ref[b].tasks) {
        fprintf(stderr, "taskq: verification FAILED: bin %d has sum %ld from %ld leaves, expected %ld from %ld\n", b,
                bins[b].sum, bins[b].tasks, ref[b].sum, ref[b].tasks);
        ok = 0;
      }
      total += bins[b].sum;
      ref_leaves += ref[b].tasks;
    }
    for (int p = 0; p < procs; ++p) leaves += leaves_by[p];
    if (leaves != ref_leaves) {
      fprintf(stderr, "taskq: verification FAILED: processes report %ld leaves, expected %ld\n", leaves, ref_leaves);
      ok = 0;
    }
    if (q->count != 0 || q->pending != 0) {
      fprintf(stderr, "taskq: verification FAILED: the stack ended with %ld tasks and %ld pending\n", q->count,
              q->pending);
      ok = 0;
    }
    printf("taskq: %ld leaves from %ld pushed tasks, total steps %ld; leaves per process:", leaves, q->pushes, total);
    for (int p = 0; p < procs; ++p) printf(" %ld", leaves_by[p]);
    printf("\n");
    char size[64];
    snprintf(size, sizeof size, "n=%ld grain=%ld", n, grain);
    appkit_result("taskq", SCOPEDSM_VARIANT, procs, size, (double)(t1 - t0), ok);
  }
  (void)idle_polls;
  jia_exit();
  return ok ? 0 : 1;
}
