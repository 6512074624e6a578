/* jia.h's allocation macros under strict C89: compiled with -std=c89
 * -pedantic -Wall -Wextra -Wbad-function-cast -Werror (compat.alloc_args.c89),
 * arguments of every integer type go through the int check without a
 * warning, and (jia_alloc)(n) and the functions' addresses still reach the
 * plain functions. Compiled only. */
#include <stddef.h>

#include "jia.h"

unsigned long alloc_args(size_t n, long l, int i, short s, unsigned u, unsigned char b) {
  unsigned long (*plain)(int) = jia_alloc;
  unsigned long (*plain3)(int, int, int) = jia_alloc3;
  unsigned long sum = 0;
  sum += jia_alloc(n);
  sum += jia_alloc1(l);
  sum += jia_alloc2(i, s);
  sum += jia_alloc2p(u, b);
  sum += jia_alloc3(n * sizeof(double), l, i);
  sum += G_MALLOC(n)
  sum += (jia_alloc)(i);
  sum += (jia_alloc3)(i, i, 0);
  sum += plain(i);
  sum += plain3(i, i, 0);
  return sum;
}
