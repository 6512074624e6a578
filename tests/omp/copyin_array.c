/* copyin of a threadprivate array: scopedsm-cc -fopenmp refuses it at
 * compile time (the flush plugin's check), naming the variable, rather than
 * build a program that would read another process's thread-local storage. */
int table[64];
#pragma omp threadprivate(table)

int main(void) {
  table[0] = 1;
#pragma omp parallel copyin(table)
  table[1] = table[0];
  return 0;
}
