/* A small OpenMP program built by CMake's own OpenMP support. */
#include <omp.h>
#include <stdio.h>

int counter;
double data[1000];

int main(void) {
  int threads = 0;
#pragma omp parallel
  {
#pragma omp master
    threads = omp_get_num_threads();
#pragma omp for
    for (int i = 0; i < 1000; i++) data[i] = i;
#pragma omp atomic
    counter++;
  }
  double sum = 0;
  for (int i = 0; i < 1000; i++) sum += data[i];
  printf("omp_cmake_hello: %d threads, counter %d, sum %.0f\n", threads, counter, sum);
  return counter == threads && sum == 499500 ? 0 : 1;
}
