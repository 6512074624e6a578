/* The job's exit status is the program's, and the serial part prints once:
 *   exit_status N    returns N from main
 *   exit_status xN   calls exit(N) from main
 * (tests/omp/CMakeLists.txt checks the launcher's status and the output). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char** argv) {
  int n = 0;
#pragma omp parallel
  {
#pragma omp atomic
    n++;
  }
  printf("exit_status: %d threads ran\n", n);
  if (argc > 1 && argv[1][0] == 'x') exit(atoi(argv[1] + 1));
  return argc > 1 ? atoi(argv[1]) : 0;
}
