/* jia_loadcheck and jia_divtask: the division follows the speeds measured
 * at jia_loadcheck, and always covers the range exactly (JIAJIA's inclusive
 * [begin, end]), without gaps or overlaps. The measured seconds are replaced
 * by chosen ones (scopedsm_test_set_compute_time), so every division is
 * known in advance: no timing enters the checks. */
#include <math.h>
#include <stdio.h>

#include <jia.h>

#include "api/test_hooks.h"

static int *parts; /* shared: [2 * rank] first, [2 * rank + 1] last */

/* Every process's part of [begin, end], gathered through shared memory;
 * checks they cover the range exactly, in rank order. Returns the sizes. */
static void divide_all(int begin, int end, int *sizes, const char *step) {
  int first = begin, last = end, r;
  jia_divtask(&first, &last);
  parts[2 * jiapid] = first;
  parts[2 * jiapid + 1] = last;
  jia_barrier();
  for (r = 0; r < jiahosts; r++) {
    int f = parts[2 * r], l = parts[2 * r + 1];
    int want_first = r == 0 ? begin : parts[2 * r - 1] + 1;
    if (f != want_first || l < f - 1 || (r == jiahosts - 1 && l != end))
      jia_error("divtask %s: rank %d's part of [%d, %d] is [%d, %d]: a gap or an overlap", step, r, begin, end, f, l);
    sizes[r] = l - f + 1;
  }
  jia_barrier(); /* nobody rewrites parts before everyone has read them */
}

/* Each size within two items of n * weight[r] / (sum of weights). */
static void expect_shares(const int *sizes, const double *weight, int n, const char *step) {
  double total = 0;
  int r;
  for (r = 0; r < jiahosts; r++) total += weight[r];
  for (r = 0; r < jiahosts; r++) {
    double want = n * weight[r] / total;
    if (fabs(sizes[r] - want) > 2.0) /* floors of both bounds, and shares in whole units */
      jia_error("divtask %s: rank %d got %d of %d items, expected %.1f", step, r, sizes[r], n, want);
  }
}

int main(int argc, char **argv) {
  enum { kBegin = 5, kItems = 100000 };
  const int end = kBegin + kItems - 1;
  int sizes[Maxhosts];
  double weight[Maxhosts];
  int r;
  jia_init(argc, argv);
  parts = (int *)jia_alloc(2 * jiahosts * sizeof(int));

  /* Before any measurement: an even split. */
  for (r = 0; r < jiahosts; r++) weight[r] = 1;
  divide_all(kBegin, end, sizes, "before jia_loadcheck");
  expect_shares(sizes, weight, kItems, "before jia_loadcheck");

  /* The last process reports three times the others' seconds for equal
   * parts: a third of their speed, so a third of their part. */
  scopedsm_test_set_compute_time(jiapid == jiahosts - 1 ? 3.0 : 1.0);
  jia_loadcheck();
  for (r = 0; r < jiahosts; r++) weight[r] = r == jiahosts - 1 ? 1.0 / 3 : 1.0;
  divide_all(kBegin, end, sizes, "after a slow last process");
  expect_shares(sizes, weight, kItems, "after a slow last process");

  /* Every process took the same seconds for its part: balanced, so the
   * parts stay. */
  scopedsm_test_set_compute_time(1.0);
  jia_loadcheck();
  divide_all(kBegin, end, sizes, "when balanced");
  expect_shares(sizes, weight, kItems, "when balanced");

  /* Seconds in proportion to the parts: every process is as fast as the
   * others (speed is part over seconds), so the parts become equal. */
  scopedsm_test_set_compute_time(weight[jiapid]);
  jia_loadcheck();
  for (r = 0; r < jiahosts; r++) weight[r] = 1;
  divide_all(kBegin, end, sizes, "at equal speeds");
  expect_shares(sizes, weight, kItems, "at equal speeds");

  /* The first process three times faster than the others now. */
  scopedsm_test_set_compute_time(jiapid == 0 ? 1.0 : 3.0);
  jia_loadcheck();
  for (r = 0; r < jiahosts; r++) weight[r] = r == 0 ? 3.0 : 1.0;
  divide_all(kBegin, end, sizes, "after a fast first process");
  expect_shares(sizes, weight, kItems, "after a fast first process");

  /* LOADBAL off: an even split, and jia_loadcheck measures nothing. */
  jia_config(LOADBAL, OFF);
  jia_loadcheck();
  for (r = 0; r < jiahosts; r++) weight[r] = 1;
  divide_all(kBegin, end, sizes, "with LOADBAL off");
  expect_shares(sizes, weight, kItems, "with LOADBAL off");
  jia_config(LOADBAL, ON);

  /* Ranges shorter than the process count, and an empty one. */
  divide_all(-3, -3 + jiahosts - 2, sizes, "a range shorter than the processes");
  divide_all(7, 7, sizes, "one item");
  {
    int first = 10, last = 9;
    jia_divtask(&first, &last);
    if (first != 10 || last != 9) jia_error("divtask: the empty range [10, 9] became [%d, %d]", first, last);
  }
  if (jiapid == 0) printf("divtask: ok on %d processes\n", jiahosts);
  jia_exit();
  return 0;
}
