/* jia_clock before jia_init, as LU-style programs start their clock first:
 * seconds since the first call (JIAJIA's definition), so the first call
 * reads (about) zero, and later calls never read less. */
#include <stdio.h>

#include <jia.h>

int main(int argc, char **argv) {
  float t0 = jia_clock(), t1, t2;
  jia_init(argc, argv);
  t1 = jia_clock();
  jia_barrier();
  t2 = jia_clock();
  if (!(t0 >= 0 && t0 < 1 && t1 >= t0 && t2 >= t1))
    jia_error("clock: jia_clock read %g before jia_init, then %g and %g", t0, t1, t2);
  if (jiapid == 0) printf("clock: ok on %d processes\n", jiahosts);
  jia_exit();
  return 0;
}
