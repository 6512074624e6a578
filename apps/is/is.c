/*
 * is - integer sort, after the published description of NAS IS and of its
 * JIAJIA port (private buckets summed into shared buckets under a lock).
 *
 * n keys in [0, maxkey), each the mean of four uniform numbers (so they
 * cluster in the middle), are ranked `iters` times; before iteration it
 * (1-based), key it becomes it and key it + iters becomes maxkey - it, as in
 * NAS IS. Each iteration:
 *   1. rank 0 clears the shared histogram (maxkey counters); barrier;
 *   2. every process counts its keys privately and adds its counts into the
 *      shared histogram inside one critical section (lock 0); barrier;
 *   3. every process reads the histogram, forms the prefix sums (the rank of
 *      a key is the number of smaller keys) and ranks its keys, adding the
 *      ranks to a checksum; barrier.
 * After the last iteration the keys are sorted for real: every process
 * publishes its own counts (one page-padded row per process, homed at it);
 * barrier; from the histogram and the rows of the processes before it each
 * process knows where its keys go, and writes them into the shared output
 * array (any process may write any page of it); barrier.
 *
 * With -f 0 the full sort is skipped (ranking only, as the JIAJIA runs of IS
 * with 4 KB of shared memory did); the rank sums are still verified.
 *
 * Keys are private to the process that generated them (a contiguous part
 * of the key sequence, which depends only on n and maxkey).
 *
 * Verification (rank 0): the output must be non-decreasing, must hold
 * exactly the keys (the same count of every value as a sequential count of
 * the regenerated keys), and the sum of all ranks over all iterations must
 * equal the sequential sum (all exact integer comparisons).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "appkit.h"
#include "jia.h"

#define HIST_LOCK 0

static const char usage[] =
    "usage: is [-n keys] [-k maxkey] [-i iterations]\n"
    "  -n  keys (default 2^16; benchmark 2^25)\n"
    "  -k  keys are in [0, maxkey) (default 2^11; benchmark 2^10)\n"
    "  -i  ranking iterations (default 10)\n"
    "  -f  1: rank, then sort the keys into a shared array (default); 0: rank only\n";

static int initial_key(long i, long maxkey) {
  double s = 0.0;
  for (uint64_t r = 0; r < 4; ++r) s += appkit_unit(appkit_key2((uint64_t)i, r));
  return (int)((double)maxkey * s / 4.0);
}

/* Applies the key changes made before iteration it to the keys [lo, hi) in key[] (key[0] is key lo). */
static void modify_keys(int *key, long lo, long hi, long it, long iters, long maxkey) {
  if (it >= lo && it < hi) key[it - lo] = (int)it;
  if (it + iters >= lo && it + iters < hi) key[it + iters - lo] = (int)(maxkey - it);
}

/* Sum of the ranks of keys[0..count) given the histogram; fills less[] with the prefix sums. */
static uint64_t rank_sum(const int *key, long count, const int *hist, long maxkey, long *less) {
  long run = 0;
  for (long v = 0; v < maxkey; ++v) {
    less[v] = run;
    run += hist[v];
  }
  uint64_t s = 0;
  for (long i = 0; i < count; ++i) s += (uint64_t)less[key[i]];
  return s;
}

/* Writes my keys to their sorted positions, given in less[] the number of
 * keys that precede each value (all processes' smaller keys and the equal
 * keys of lower ranks); the output is in bands of `band` keys. Returns the
 * number of positions outside [0, n), which only a wrong histogram makes. */
static long sort_into(int *sorted, long band, const int *key, long count, long *less, long n) {
  long bad = 0;
  for (long i = 0; i < count; ++i) {
    long pos = less[key[i]]++;
    if (pos < 0 || pos >= n)
      ++bad;
    else
      sorted[(pos / band) * band + pos % band] = key[i];
  }
  return bad;
}

/* Rank 0: the output must be non-decreasing and hold exactly the keys that
 * ref_hist counts. Returns 1 if so, 0 (after saying why) if not. */
static int check_sorted(const int *sorted, long band, long n, const int *ref_hist, long maxkey) {
  int *out_hist = calloc((size_t)maxkey, sizeof *out_hist);
  if (out_hist == NULL) jia_error("is: out of memory for the check");
  int ok = 1, prev = 0;
  for (long pos = 0; pos < n && ok; ++pos) {
    int v = sorted[(pos / band) * band + pos % band];
    if (v < prev || v >= maxkey) {
      fprintf(stderr, "is: verification FAILED: output position %ld holds %d after %d\n", pos, v, prev);
      ok = 0;
    } else {
      ++out_hist[v];
      prev = v;
    }
  }
  for (long v = 0; v < maxkey && ok; ++v)
    if (out_hist[v] != ref_hist[v]) {
      fprintf(stderr, "is: verification FAILED: the output holds %d keys of value %ld, there are %d\n", out_hist[v], v,
              ref_hist[v]);
      ok = 0;
    }
  free(out_hist);
  return ok;
}

int main(int argc, char **argv) {
  const char *opt[4] = {NULL, NULL, NULL, NULL};
  appkit_opts(argc, argv, "nkif", opt, usage);
  long n = appkit_long(opt[0], 'n', 1L << 16, 1, 1L << 28);
  long maxkey = appkit_long(opt[1], 'k', 1L << 11, 2, 1L << 24);
  long iters = appkit_long(opt[2], 'i', 10, 1, 1000);
  const int full_sort = (int)appkit_long(opt[3], 'f', 1, 0, 1);
  if (n <= 2 * iters || maxkey <= iters) {
    fprintf(stderr, "is: need more than 2 * iterations keys and more than `iterations` key values\n");
    return 2;
  }

  jia_init(argc, argv);
  const int me = jiapid, procs = jiahosts;
  const long row_bytes = appkit_band_bytes(1, maxkey * (long)sizeof(int), 1, Pagesize);
  const long out_band = appkit_band_bytes(n, (long)sizeof(int), procs, Pagesize);
  if (out_band * procs > 0x7fffffffL || row_bytes * procs > 0x7fffffffL) jia_error("is: problem too large");
  int *hist = (int *)jia_alloc1((int)(maxkey * (long)sizeof(int)));
  char *rows = (char *)jia_alloc3((int)(row_bytes * procs), (int)row_bytes, 0);
  int *sorted = full_sort ? (int *)jia_alloc3((int)(out_band * procs), (int)out_band, 0) : NULL;
  uint64_t *checks = (uint64_t *)jia_alloc1((int)(procs * (long)sizeof(uint64_t)));
  long *misplaced = (long *)jia_alloc1((int)(procs * (long)sizeof(long)));

  long lo, hi;
  appkit_block(n, procs, me, &lo, &hi);
  const long mine = hi - lo;
  int *key = malloc((size_t)(mine + 1) * sizeof *key);
  int *count = malloc((size_t)maxkey * sizeof *count);
  long *less = malloc((size_t)maxkey * sizeof *less);
  if (key == NULL || count == NULL || less == NULL) jia_error("is: out of memory");
  for (long i = lo; i < hi; ++i) key[i - lo] = initial_key(i, maxkey);

  jia_barrier();
  float t0 = jia_clock();
  jia_startstat();
  uint64_t check = 0;
  for (long it = 1; it <= iters; ++it) {
    modify_keys(key, lo, hi, it, iters, maxkey);
    if (me == 0) memset(hist, 0, (size_t)maxkey * sizeof *hist);
    jia_barrier();
    memset(count, 0, (size_t)maxkey * sizeof *count);
    for (long i = 0; i < mine; ++i) ++count[key[i]];
    jia_lock(HIST_LOCK);
    for (long v = 0; v < maxkey; ++v) hist[v] += count[v];
    jia_unlock(HIST_LOCK);
    jia_barrier();
    check += rank_sum(key, mine, hist, maxkey, less);
    jia_barrier();
  }
  /* The full sort. count[] holds my counts of the last iteration, less[] its prefix sums. */
  int *my_row = (int *)(rows + me * row_bytes);
  if (full_sort) memcpy(my_row, count, (size_t)maxkey * sizeof *count);
  checks[me] = check;
  jia_barrier();
  const long band = out_band / (long)sizeof(int);
  long bad = 0;
  if (full_sort) {
    for (int q = 0; q < me; ++q) {
      const int *row = (const int *)(rows + q * row_bytes);
      for (long v = 0; v < maxkey; ++v) less[v] += row[v];
    }
    bad = sort_into(sorted, band, key, mine, less, n);
  }
  misplaced[me] = bad;
  jia_barrier();
  jia_stopstat();
  float t1 = jia_clock();

  int ok = 1;
  if (me == 0) {
    /* Regenerate every key with every modification, count them, and redo the rank sums. */
    int *all = malloc((size_t)n * sizeof *all);
    int *ref_hist = calloc((size_t)maxkey, sizeof *ref_hist);
    if (all == NULL || ref_hist == NULL) jia_error("is: out of memory for the reference");
    for (long i = 0; i < n; ++i) all[i] = initial_key(i, maxkey);
    uint64_t ref_check = 0, got_check = 0;
    for (long it = 1; it <= iters; ++it) {
      modify_keys(all, 0, n, it, iters, maxkey);
      memset(ref_hist, 0, (size_t)maxkey * sizeof *ref_hist);
      for (long i = 0; i < n; ++i) ++ref_hist[all[i]];
      ref_check += rank_sum(all, n, ref_hist, maxkey, less);
    }
    for (int p = 0; p < procs; ++p) {
      got_check += checks[p];
      if (misplaced[p] != 0) {
        fprintf(stderr, "is: verification FAILED: process %d computed %ld output positions outside the output\n", p,
                misplaced[p]);
        ok = 0;
      }
    }
    if (ok && full_sort) ok = check_sorted(sorted, band, n, ref_hist, maxkey);
    if (ok && got_check != ref_check) {
      fprintf(stderr, "is: verification FAILED: sum of ranks %llu, the sequential ranking gives %llu\n",
              (unsigned long long)got_check, (unsigned long long)ref_check);
      ok = 0;
    }
    free(all);
    free(ref_hist);
    char size[96];
    snprintf(size, sizeof size, "n=%ld maxkey=%ld iters=%ld%s", n, maxkey, iters, full_sort ? "" : " rank-only");
    appkit_result("is", SCOPEDSM_VARIANT, procs, size, (double)(t1 - t0), ok);
  }
  free(key);
  free(count);
  free(less);
  jia_exit();
  return ok ? 0 : 1;
}
