/*
 * tsp - branch-and-bound travelling salesman, after the published
 * description of the Rice TSP program (shared tour pool and best bound,
 * synchronized with locks only).
 *
 * n cities at pseudo-random integer points in a 1000 x 1000 square; the
 * distance is the rounded Euclidean distance. Tours start at city 0. A
 * partial tour is pruned when its length plus the cheapest edge out of its
 * last city and out of every unvisited city is not below the best complete
 * tour known; the search starts from the nearest-neighbour tour as bound.
 *
 * Sharing: the distance matrix is shared and read-only (written by rank 0
 * before the first barrier). The tour pool (a stack of partial tours), its
 * counters and the bound used for pruning are shared under lock 0: a worker
 * pops a partial tour; while it is shorter than `depth` cities the worker
 * expands it inside the same critical section, pushing the children that
 * survive the bound; a longer one it completes by a private depth-first
 * search. The best tour (cost and path) is shared under lock 1 and updated
 * whenever a worker finds a shorter one; workers publish their bound to the
 * pool at their next pop and pick up the others' there.
 *
 * Verification: rank 0 solves the same instance by a sequential depth-first
 * branch and bound; the optimal lengths must be equal, and the best tour
 * recorded in shared memory must visit every city once and have that length.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "appkit.h"
#include "jia.h"

#define MAX_CITIES 32
#define POOL_CAP 65536
#define POOL_LOCK 0
#define BEST_LOCK 1

static const char usage[] =
    "usage: tsp [-n cities] [-d depth] [-s seed]\n"
    "  -n  cities, at most 32 (default 11; benchmark 15)\n"
    "  -d  partial tours of fewer cities are split into tasks (default 3; benchmark 4)\n"
    "  -s  instance seed (default 1)\n";

struct partial {
  int length;              /* length of the path so far */
  int count;               /* cities on the path */
  unsigned visited;        /* bit c set if city c is on the path */
  signed char path[MAX_CITIES];
};

struct pool {
  int bound;     /* best complete tour length known to the pool */
  long count;    /* partial tours on the stack */
  long pending;  /* partial tours pushed and not yet finished */
  long pushes;   /* partial tours ever pushed */
  struct partial items[POOL_CAP];
};

struct best {
  int length;
  signed char path[MAX_CITIES];
};

/* Per-process search state. */
struct search {
  const int *dist;  /* n x n */
  int n;
  int minout[MAX_CITIES]; /* cheapest edge out of each city */
  int bound;              /* best complete tour length this process knows */
  struct best found;      /* best tour this process found (length INT_MAX if none) */
  long nodes;             /* search nodes visited */
};

static int lower_bound(const struct search *s, const struct partial *p) {
  int lb = p->length + s->minout[p->path[p->count - 1]];
  for (int c = 0; c < s->n; ++c)
    if (!(p->visited & (1u << c))) lb += s->minout[c];
  return lb;
}

/* Depth-first completion of p, updating s->bound and s->found. */
static void dfs(struct search *s, struct partial *p) {
  ++s->nodes;
  const int n = s->n, last = p->path[p->count - 1];
  if (p->count == n) {
    int total = p->length + s->dist[last * n + 0];
    if (total < s->bound) {
      s->bound = total;
      s->found.length = total;
      memcpy(s->found.path, p->path, (size_t)n);
    }
    return;
  }
  if (lower_bound(s, p) >= s->bound) return;
  for (int c = 1; c < n; ++c) {
    if (p->visited & (1u << c)) continue;
    p->path[p->count++] = (signed char)c;
    p->visited |= 1u << c;
    p->length += s->dist[last * n + c];
    dfs(s, p);
    p->length -= s->dist[last * n + c];
    p->visited &= ~(1u << c);
    --p->count;
  }
}

static void make_instance(int *dist, int n, long seed) {
  int x[MAX_CITIES], y[MAX_CITIES];
  for (int c = 0; c < n; ++c) {
    x[c] = (int)(appkit_hash64(appkit_key2((uint64_t)seed, (uint64_t)(2 * c))) % 1000);
    y[c] = (int)(appkit_hash64(appkit_key2((uint64_t)seed, (uint64_t)(2 * c + 1))) % 1000);
  }
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      double dx = x[a] - x[b], dy = y[a] - y[b];
      dist[a * n + b] = (int)(sqrt(dx * dx + dy * dy) + 0.5);
    }
}

static void init_search(struct search *s, const int *dist, int n) {
  s->dist = dist;
  s->n = n;
  s->nodes = 0;
  s->bound = INT_MAX;
  s->found.length = INT_MAX;
  for (int a = 0; a < n; ++a) {
    int m = INT_MAX;
    for (int b = 0; b < n; ++b)
      if (b != a && dist[a * n + b] < m) m = dist[a * n + b];
    s->minout[a] = n > 1 ? m : 0;
  }
}

/* The nearest-neighbour tour from city 0: the starting bound. */
static struct best greedy_tour(const int *dist, int n) {
  struct best b;
  unsigned visited = 1;
  b.path[0] = 0;
  b.length = 0;
  for (int k = 1; k < n; ++k) {
    int last = b.path[k - 1], next = -1;
    for (int c = 1; c < n; ++c)
      if (!(visited & (1u << c)) && (next < 0 || dist[last * n + c] < dist[last * n + next])) next = c;
    b.path[k] = (signed char)next;
    visited |= 1u << next;
    b.length += dist[last * n + next];
  }
  b.length += dist[b.path[n - 1] * n + 0];
  return b;
}

static struct partial start_tour(void) {
  struct partial p;
  memset(&p, 0, sizeof p);
  p.count = 1;
  p.visited = 1;
  return p;
}

/* Checks that t visits every city once and has length `want`. */
static int valid_tour(const struct best *t, const int *dist, int n, int want) {
  unsigned seen = 0;
  int len = 0;
  for (int k = 0; k < n; ++k) {
    int c = t->path[k];
    if (c < 0 || c >= n || (seen & (1u << c))) return 0;
    seen |= 1u << c;
    len += dist[c * n + t->path[(k + 1) % n]];
  }
  return t->path[0] == 0 && len == want && t->length == want;
}

int main(int argc, char **argv) {
  const char *opt[3] = {NULL, NULL, NULL};
  appkit_opts(argc, argv, "nds", opt, usage);
  int n = (int)appkit_long(opt[0], 'n', 11, 3, MAX_CITIES);
  int depth = (int)appkit_long(opt[1], 'd', 3, 1, MAX_CITIES);
  long seed = appkit_long(opt[2], 's', 1, 0, 1L << 40);

  jia_init(argc, argv);
  const int me = jiapid, procs = jiahosts;
  int *dist = (int *)jia_alloc1((int)(n * n * (long)sizeof(int)));
  struct pool *pool = (struct pool *)jia_alloc1((int)sizeof *pool);
  struct best *best = (struct best *)jia_alloc1((int)sizeof *best);
  if (me == 0) {
    make_instance(dist, n, seed);
    *best = greedy_tour(dist, n);
    pool->bound = best->length;
    pool->items[0] = start_tour();
    pool->count = pool->pending = pool->pushes = 1;
  }
  jia_barrier();

  struct search s;
  init_search(&s, dist, n);

  float t0 = jia_clock();
  jia_startstat();
  long finished = 0, tasks = 0;
  for (;;) {
    jia_lock(POOL_LOCK);
    pool->pending -= finished;
    finished = 0;
    if (s.bound < pool->bound) pool->bound = s.bound;
    s.bound = pool->bound;
    if (pool->count == 0) {
      long pending = pool->pending;
      jia_unlock(POOL_LOCK);
      if (pending == 0) break;
      usleep(100); /* others are still expanding: look again shortly */
      continue;
    }
    struct partial p = pool->items[--pool->count];
    if (p.count < depth && p.count < n) {
      const int last = p.path[p.count - 1];
      for (int c = n - 1; c >= 1; --c) {
        if (p.visited & (1u << c)) continue;
        struct partial child = p;
        child.path[child.count++] = (signed char)c;
        child.visited |= 1u << c;
        child.length += dist[last * n + c];
        if (child.count < n && lower_bound(&s, &child) >= s.bound) continue;
        if (pool->count == POOL_CAP) jia_error("tsp: tour pool overflow (capacity %d)", POOL_CAP);
        pool->items[pool->count++] = child;
        pool->pending += 1;
        pool->pushes += 1;
      }
      jia_unlock(POOL_LOCK);
      finished = 1;
      continue;
    }
    jia_unlock(POOL_LOCK);

    int before = s.bound;
    dfs(&s, &p);
    ++tasks;
    finished = 1;
    if (s.bound < before) {
      jia_lock(BEST_LOCK);
      if (s.found.length < best->length) *best = s.found;
      jia_unlock(BEST_LOCK);
    }
  }
  jia_barrier();
  jia_stopstat();
  float t1 = jia_clock();

  int ok = 1;
  if (me == 0) {
    struct search r;
    init_search(&r, dist, n);
    struct best g = greedy_tour(dist, n);
    r.bound = g.length;
    r.found = g;
    struct partial p = start_tour();
    dfs(&r, &p);
    if (best->length != r.found.length) {
      fprintf(stderr, "tsp: verification FAILED: best tour found has length %d, the sequential search finds %d\n",
              best->length, r.found.length);
      ok = 0;
    } else if (!valid_tour(best, dist, n, r.found.length)) {
      fprintf(stderr, "tsp: verification FAILED: the recorded best tour is not a tour of length %d\n", r.found.length);
      ok = 0;
    }
    printf("tsp: optimal tour length %d (nearest-neighbour tour %d), %ld partial tours pushed\n", best->length,
           g.length, pool->pushes);
    char size[48];
    snprintf(size, sizeof size, "n=%d depth=%d seed=%ld", n, depth, seed);
    appkit_result("tsp", SCOPEDSM_VARIANT, procs, size, (double)(t1 - t0), ok);
  }
  (void)tasks;
  jia_exit();
  return ok ? 0 : 1;
}
