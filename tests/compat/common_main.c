/* A program in two files sharing globals through globals.h (common
 * symbols): common_main.c sets them up, common_step.c uses them. */
#include <stdio.h>

#include "globals.h"

void step(int s);
double check(void);

int main(int argc, char **argv) {
  int s;
  double total;
  jia_init(argc, argv);
  nmol = NMOL_PER_PROC * jiahosts;
  nsteps = 4;
  pos = (double *)jia_alloc(nmol * sizeof(double));
  energy = (double *)jia_alloc(jiahosts * sizeof(double));
  for (s = 0; s < nsteps; s++) step(s);
  total = check();
  if (jiapid == 0) printf("common_symbols: ok on %d processes (energy %.0f)\n", jiahosts, total);
  jia_exit();
  return 0;
}
