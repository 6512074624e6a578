/*
 * kr_jia.c - a JIAJIA-era program, kept in the style of 1999: K&R function
 * definitions, implicit int, functions called before they are declared, and
 * jia_alloc's integer assigned straight to pointers. scopedsm-cc must
 * compile it as it is; `scopedsm run -n 2` must run it.
 *
 * Each process fills its block of a shared array, then every process sums
 * the whole array and bumps a shared counter under a lock `rounds` times.
 * Every process checks both results after the last barrier.
 */
#include <stdio.h>
#include <jia.h>

#define N 4096

double *data;
int *counter;

fill(a, from, to)
double *a;
int from, to;
{
  int i;
  for (i = from; i < to; i++)
    a[i] = i;
  return to - from;
}

double
sum(a, n)
double *a;
int n;
{
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += a[i];
  return s;
}

main(argc, argv)
int argc;
char **argv;
{
  int i, chunk, begin, end, rounds;
  double total, expected;

  jia_init(argc, argv);
  rounds = argc > 1 ? atoi(argv[1]) : 5;
  data = jia_alloc(N * sizeof(double));
  counter = jia_alloc(Pagesize);
  jia_barrier();

  chunk = (N + jiahosts - 1) / jiahosts;
  begin = jiapid * chunk;
  end = begin + chunk > N ? N : begin + chunk;
  if (begin < end)
    fill(data, begin, end);
  for (i = 0; i < rounds; i++) {
    jia_lock(0);
    counter[0] = counter[0] + 1;
    jia_unlock(0);
  }
  jia_barrier();

  total = sum(data, N);
  expected = (double)N * (N - 1) / 2;
  check(total == expected, "sum of the shared array");
  check(counter[0] == rounds * jiahosts, "lock-protected counter");
  if (jiapid == 0)
    printf("kr_jia: ok on %d processes (counter %d)\n", jiahosts, counter[0]);
  jia_exit();
  return 0;
}

check(ok, what)
char *what;
{
  if (!ok)
    jia_error("kr_jia: wrong %s on process %d", what, jiapid);
  return ok;
}
