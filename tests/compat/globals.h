/* Globals as Water-era programs declared them: tentative definitions
 * (no `extern`, no initializer) in a header that every file includes.
 * Compilers before GCC 10 and Clang 11 made them common symbols, merged at
 * link time; scopedsm-cc links them the same way (-fcommon). */
#include <jia.h>

#define NMOL_PER_PROC 256

double *pos;     /* shared: one value per molecule */
double *energy;  /* shared: one total per process */
int nmol;
int nsteps;
