// jia.h's allocation macros from C++: compiled with -Wall -Wextra
// -Wold-style-cast -Wuseless-cast -Werror (compat.alloc_args.cxx), the
// check adds no cast the program did not write. Compiled only.
#include <cstddef>

#include "jia.h"

unsigned long alloc_args(std::size_t n, long l, int i, short s, unsigned u) {
  unsigned long (*plain)(int) = jia_alloc;
  unsigned long sum = 0;
  sum += jia_alloc(n);
  sum += jia_alloc1(l);
  sum += jia_alloc2(i, s);
  sum += jia_alloc2p(u, 0);
  sum += jia_alloc3(n * sizeof(double), l, i);
  sum += (jia_alloc)(i);
  sum += plain(i);
  return sum;
}
