/* An `omp atomic` counter that every thread increments: with ScopeDSM's
 * atomics at the home it loses nothing. Built a second time with
 * -finline-atomics (tests/omp/CMakeLists.txt), the increments become CPU
 * instructions on each process's own copy, and updates are lost: the
 * negative control that shows the check can fail. */
#include <omp.h>
#include <stdio.h>

long counter;

int main(void) {
  const int per_thread = 2000;
  int threads = 1;
  long seen = 0;
#pragma omp parallel reduction(+ : seen)
  {
#pragma omp master
    threads = omp_get_num_threads();
#pragma omp barrier
    /* Every thread holds the counter's page, with the same value, before
     * anyone increments it (no write between the two barriers drops it). */
    seen += counter;
#pragma omp barrier
    for (int i = 0; i < per_thread; i++) {
#pragma omp atomic
      counter++;
    }
  }
  const long want = (long)per_thread * threads;
  (void)seen;
  if (counter != want) {
    printf("atomic_counter: lost %ld of %ld updates\n", want - counter, want);
    return 1;
  }
  printf("atomic_counter: %ld of %ld updates on %d threads\n", counter, want, threads);
  return 0;
}
