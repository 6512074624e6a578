/* Every process writes its slot of a shared array; after a barrier, every
 * process checks all slots. Also calls MPI, whose header and library reach
 * this program only through ScopeDSM's package (its MPI dependency). */
#include <mpi.h>
#include <stdio.h>

#include "scopedsm.h"

int main(int argc, char **argv) {
  scopedsm_init(&argc, &argv);
  const int me = scopedsm_rank(), n = scopedsm_size();
  int mpi_size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &mpi_size);
  long *slots = (long *)scopedsm_alloc((size_t)n * sizeof(long));
  slots[me] = 100 + me;
  scopedsm_barrier();
  int ok = mpi_size == n;
  for (int r = 0; r < n; ++r) ok = ok && slots[r] == 100 + r;
  scopedsm_barrier();
  if (!ok) scopedsm_fatal("hello_c: wrong contents on rank %d", me);
  if (me == 0) printf("hello_c: ok on %d processes (ScopeDSM %s)\n", n, scopedsm_version());
  scopedsm_finalize();
  return 0;
}
