/* A modern C program (prototypes, declarations) with two mistakes that
 * plain gcc -Wall reports: an unused variable and an integer assigned to a
 * pointer without a cast. scopedsm-cc -Wall must report both, as the
 * compiler does: the allowances for legacy C are not for this program. */
#include <stdio.h>

#include <jia.h>

int main(int argc, char **argv) {
  int unused_here;
  double *a;
  jia_init(argc, argv);
  a = jia_alloc(4096);
  a[jiapid] = 1.0;
  jia_barrier();
  printf("modern_warnings: %g\n", a[0]);
  jia_exit();
  return 0;
}
