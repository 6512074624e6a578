#include "globals.h"

/* Step s: every process moves its molecules and sums its energy. */
void step(int s) {
  int i;
  double e = 0;
  for (i = jiapid; i < nmol; i += jiahosts) {
    pos[i] = i + s;
    e += pos[i];
  }
  energy[jiapid] = e;
  jia_barrier();
}

/* The energies of the last step, checked against the formula on every
 * process; returns their sum. */
double check(void) {
  int p, i;
  double total = 0;
  for (p = 0; p < jiahosts; p++) {
    double want = 0;
    for (i = p; i < nmol; i += jiahosts) want += i + nsteps - 1;
    if (energy[p] != want) jia_error("common_symbols: process %d's energy is %g, expected %g", p, energy[p], want);
    total += energy[p];
  }
  return total;
}
