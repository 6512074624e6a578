/* Out-of-core homes (SCOPEDSM_HOME_BACKING=file:DIR): a shared space of
 * SIZE bytes (argument 1, e.g. 2G), each process the home of one block of
 * it. Each process fills its block in 64 MiB chunks, releasing each chunk
 * behind it (scopedsm_release), then every process checks its own block
 * (read ahead with scopedsm_prefetch) and a part of the next process's
 * (through the cache). Prints "ooc ok" on rank 0 when every value checked.
 *
 * With "hold" as argument 2, each process instead writes its pid to the
 * file named by argument 3 once its block is written and then waits to be
 * killed (the tests that the files go at any exit). */
#include <scopedsm.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t value(uint64_t i) { return i * 0x9e3779b97f4a7c15ull ^ (i >> 7); }

static uint64_t parse_size(const char *s) {
  char *end = NULL;
  uint64_t n = strtoull(s, &end, 10);
  switch (*end) {
    case 'G': return n << 30;
    case 'M': return n << 20;
    case 'K': return n << 10;
    default: return n;
  }
}

int main(int argc, char **argv) {
  scopedsm_init(&argc, &argv);
  if (argc < 2) scopedsm_fatal("usage: ooc_sweep SIZE [hold PIDFILE]");
  const int me = scopedsm_rank(), n = scopedsm_size();
  const uint64_t chunk = 64ull << 20;
  uint64_t block = parse_size(argv[1]) / (uint64_t)n;
  block -= block % chunk;
  if (block == 0) block = chunk;
  const uint64_t words = block / 8;
  uint64_t *space = (uint64_t *)scopedsm_alloc_cyclic(block * (uint64_t)n, block, 0);
  uint64_t *mine = space + (uint64_t)me * words;

  for (uint64_t c = 0; c < block; c += chunk) {
    uint64_t *at = mine + c / 8;
    for (uint64_t w = 0; w < chunk / 8; w += 8) at[w] = value((uint64_t)me * words + c / 8 + w);
    scopedsm_release(at, chunk, 0);
  }
  if (argc >= 4 && strcmp(argv[2], "hold") == 0) {
    FILE *f = fopen(argv[3], "a");
    if (f == NULL) scopedsm_fatal("cannot open %s", argv[3]);
    fprintf(f, "%d\n", (int)getpid());
    fclose(f);
    for (;;) pause();
  }
  scopedsm_barrier();

  uint64_t bad = 0;
  const uint64_t ahead = 8ull << 20;
  for (uint64_t c = 0; c < block; c += chunk) {
    if (c + chunk < block) scopedsm_prefetch(mine + (c + chunk) / 8, ahead);
    for (uint64_t w = c / 8; w < (c + chunk) / 8; w += 8) bad += mine[w] != value((uint64_t)me * words + w);
  }
  const int next = (me + 1) % n;
  const uint64_t *theirs = space + (uint64_t)next * words;
  const uint64_t sample = block < (32ull << 20) ? block : (32ull << 20);
  scopedsm_prefetch(theirs, sample);
  for (uint64_t w = 0; w < sample / 8; w += 8) bad += theirs[w] != value((uint64_t)next * words + w);
  if (bad != 0) scopedsm_fatal("ooc_sweep: %llu wrong values", (unsigned long long)bad);
  scopedsm_barrier();
  if (me == 0) printf("ooc ok: %llu bytes of homes on %d processes\n", (unsigned long long)(block * (uint64_t)n), n);
  scopedsm_finalize();
  return 0;
}
