/* An `omp atomic` counter that every thread but the master increments:
 * with ScopeDSM's atomics at the word's home it loses nothing. Built a
 * second time with -finline-atomics (tests/omp/CMakeLists.txt), the
 * increments become CPU instructions on each process's own copy of the
 * page, and the copies' diffs overwrite each other at the barrier: the
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
    /* Every incrementing thread holds the counter's page with the same
     * value before any increment. A copy taken while the home (the master)
     * does not trap the page is dropped at the next barrier, where the home
     * notes the page; one taken after that survives the barriers where
     * nobody writes. */
    for (int k = 0; k < 3; k++) {
      seen += counter;
#pragma omp barrier
    }
    if (omp_get_thread_num() != 0)
      for (int i = 0; i < per_thread; i++) {
#pragma omp atomic
        counter++;
      }
  }
  (void)seen;
  const long want = (long)per_thread * (threads - 1);
  if (counter != want) {
    printf("atomic_counter: lost %ld of %ld updates\n", want - counter, want);
    return 1;
  }
  printf("atomic_counter: %ld of %ld updates on %d threads\n", counter, want, threads);
  return 0;
}
