/* The OpenMP validation suite (label omp): one check per construct, in the
 * manner of the OpenMP validation suites. Each check computes a result that
 * is wrong when the construct is broken (a cross-check: a count, a sum, an
 * order, an identity), on a team of whatever size the job gives.
 *
 *   validate NAME     runs one check; prints "validate NAME: ok (T threads)"
 *                     or "validate NAME: FAILED: why", and exits 0 or 1
 *   validate list     prints the names
 *
 * Built with scopedsm-cc -fopenmp (tests/omp/CMakeLists.txt) and run under
 * the MPI launcher at 1, 2 and 4 processes: every process is one thread of
 * the team, and only the master runs main, so every line comes once. */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAXT 64
#define N 1000

static char why[256];
#define CHECK(cond, ...)                          \
  do {                                            \
    if (!(cond)) {                                \
      snprintf(why, sizeof why, __VA_ARGS__);     \
      return 0;                                   \
    }                                             \
  } while (0)

static int team_size(void) {
  int n = 0;
#pragma omp parallel
  {
#pragma omp master
    n = omp_get_num_threads();
  }
  return n;
}

/* ---- parallel ------------------------------------------------------------ */

static int seen[MAXT];

static int check_parallel(void) {
  int nthreads = 0, in_parallel = 0;
  memset(seen, 0, sizeof seen);
  CHECK(!omp_in_parallel(), "omp_in_parallel() is true outside a region");
#pragma omp parallel
  {
    int me = omp_get_thread_num();
#pragma omp atomic
    seen[me] += 1;
    if (me == 0) {
      nthreads = omp_get_num_threads();
      in_parallel = omp_in_parallel();
    }
  }
  CHECK(nthreads == omp_get_max_threads(), "team of %d, but omp_get_max_threads() says %d", nthreads,
        omp_get_max_threads());
  CHECK(nthreads == omp_get_num_procs() || getenv("OMP_NUM_THREADS") != NULL, "team of %d on %d processes", nthreads,
        omp_get_num_procs());
  CHECK(in_parallel || nthreads == 1, "omp_in_parallel() is false in a team of %d", nthreads);
  for (int t = 0; t < MAXT; t++) CHECK(seen[t] == (t < nthreads), "thread %d ran the region %d times", t, seen[t]);
  return 1;
}

static int check_parallel_if(void) {
  int n = -1, zero = 0;
#pragma omp parallel if (zero)
  n = omp_get_num_threads();
  CHECK(n == 1, "parallel if(0) ran a team of %d", n);
  return 1;
}

static int check_num_threads(void) {
  const int p = omp_get_num_procs();
  const int want = p > 1 ? p - 1 : 1;
  int n = -1;
  memset(seen, 0, sizeof seen);
#pragma omp parallel num_threads(want)
  {
#pragma omp atomic
    seen[omp_get_thread_num()] += 1;
#pragma omp barrier
#pragma omp master
    n = omp_get_num_threads();
  }
  CHECK(n == want, "num_threads(%d) gave a team of %d", want, n);
  for (int t = 0; t < MAXT; t++) CHECK(seen[t] == (t < want), "thread %d ran %d times", t, seen[t]);
  /* omp_set_num_threads sets the next regions' team */
  omp_set_num_threads(1);
#pragma omp parallel
  n = omp_get_num_threads();
  omp_set_num_threads(p);
  CHECK(n == 1, "omp_set_num_threads(1) left a team of %d", n);
  return 1;
}

/* ---- what is shared --------------------------------------------------------- */

double g_data[N];
static double g_static[N];
int g_initialized = 42;

static int g_round;
static int check_shared_memory(void) {
  int local[MAXT];
  double* heap = malloc(N * sizeof(double));
  CHECK(heap != NULL, "malloc failed");
  for (int i = 0; i < MAXT; i++) local[i] = -1;
  for (int i = 0; i < N; i++) heap[i] = i;
  int init_seen = 0;
#pragma omp parallel shared(local, heap)
  {
    int me = omp_get_thread_num();
    local[me] = me * 10; /* the master's stack */
    if (g_initialized == 42) {
#pragma omp atomic
      init_seen++;
    }
#pragma omp for
    for (int i = 0; i < N; i++) {
      g_data[i] = heap[i] * 2; /* a global, from the heap */
      g_static[i] = i + 1;     /* a file-local global */
    }
  }
  const int n = team_size();
  CHECK(init_seen == n, "%d of %d threads saw the initialized global's value", init_seen, n);
  for (int t = 0; t < n; t++) CHECK(local[t] == t * 10, "the master's local[%d] is %d", t, local[t]);
  for (int i = 0; i < N; i++) {
    CHECK(g_data[i] == 2.0 * i, "g_data[%d] = %g", i, g_data[i]);
    CHECK(g_static[i] == i + 1, "g_static[%d] = %g", i, g_static[i]);
  }
  free(heap);
  /* What the master writes on its stack between regions reaches the team
   * in the next region: a copy of the master's stack kept from an earlier
   * region would show an older value. */
  int round_value = 0, stale = 0;
  for (int round = 1; round <= 8; round++) {
    round_value = round * 7;
    g_round = round; /* a global: compared against, it shows a stale stack */
#pragma omp parallel shared(round_value) reduction(+ : stale)
    {
      if (round_value != g_round * 7) stale++;
    }
  }
  CHECK(stale == 0, "%d times a thread read an older value of the master's local", stale);
  return 1;
}

static int check_heap_in_region(void) {
  /* Blocks allocated inside a region by each thread, used by others. */
  static int* blocks[MAXT];
  int bad = 0;
#pragma omp parallel
  {
    int me = omp_get_thread_num();
    int* b = malloc(1000 * sizeof(int));
    for (int i = 0; i < 1000; i++) b[i] = me * 1000 + i;
    blocks[me] = b;
#pragma omp barrier
    int other = (me + 1) % omp_get_num_threads();
    for (int i = 0; i < 1000; i++)
      if (blocks[other][i] != other * 1000 + i) {
#pragma omp atomic
        bad++;
      }
#pragma omp barrier
    free(b);
    /* calloc and realloc */
    int* z = calloc(5000, sizeof(int));
    for (int i = 0; i < 5000; i++)
      if (z[i] != 0) {
#pragma omp atomic
        bad++;
      }
    z = realloc(z, 20000 * sizeof(int));
    z[19999] = 7;
    free(z);
  }
  CHECK(bad == 0, "%d words of blocks allocated by another thread were wrong", bad);
  return 1;
}

/* ---- data-sharing clauses ------------------------------------------------------- */

static int check_clauses(void) {
  int fp = 5, last = -1, priv = 0, wrong = 0;
#pragma omp parallel for firstprivate(fp) lastprivate(last) private(priv)
  for (int i = 0; i < N; i++) {
    priv = i;
    if (fp != 5) {
#pragma omp atomic
      wrong++;
    }
    last = priv;
  }
  CHECK(wrong == 0, "firstprivate: %d iterations saw another value", wrong);
  CHECK(last == N - 1, "lastprivate: %d, not %d", last, N - 1);
  return 1;
}

/* ---- loops ---------------------------------------------------------------------- */

static int hits[4 * N];

static int run_counts(int iters, const char* what) {
  for (int i = 0; i < iters; i++) CHECK(hits[i] == 1, "%s: iteration %d ran %d times", what, i, hits[i]);
  return 1;
}

static int check_for_schedules(void) {
  const int n = 4 * N - 3;
#define SCHED_CASE(CLAUSE, NAME)                  \
  memset(hits, 0, sizeof hits);                   \
  _Pragma("omp parallel")                         \
  {                                               \
    _Pragma(CLAUSE) for (int i = 0; i < n; i++) { \
      _Pragma("omp atomic") hits[i]++;            \
    }                                             \
  }                                               \
  if (!run_counts(n, NAME)) return 0;
  SCHED_CASE("omp for schedule(static)", "static")
  SCHED_CASE("omp for schedule(static, 7)", "static,7")
  SCHED_CASE("omp for schedule(dynamic)", "dynamic")
  SCHED_CASE("omp for schedule(dynamic, 13)", "dynamic,13")
  SCHED_CASE("omp for schedule(guided)", "guided")
  SCHED_CASE("omp for schedule(guided, 5)", "guided,5")
  SCHED_CASE("omp for schedule(runtime)", "runtime")
  SCHED_CASE("omp for schedule(auto)", "auto")
  SCHED_CASE("omp for schedule(monotonic: dynamic, 3)", "monotonic:dynamic,3")
  SCHED_CASE("omp for schedule(nonmonotonic: guided)", "nonmonotonic:guided")
#undef SCHED_CASE
  /* combined parallel for, a negative step, unsigned long long, collapse */
  memset(hits, 0, sizeof hits);
#pragma omp parallel for schedule(dynamic, 4)
  for (int i = n - 1; i >= 0; i -= 1) {
#pragma omp atomic
    hits[i]++;
  }
  if (!run_counts(n, "parallel for dynamic, counting down")) return 0;
  memset(hits, 0, sizeof hits);
#pragma omp parallel for schedule(guided, 2)
  for (unsigned long long i = 3; i < (unsigned long long)n; i += 3) {
#pragma omp atomic
    hits[i]++;
  }
  for (int i = 0; i < n; i++)
    CHECK(hits[i] == (i >= 3 && i % 3 == 0), "unsigned long long by 3: iteration %d ran %d times", i, hits[i]);
  memset(hits, 0, sizeof hits);
#pragma omp parallel for collapse(2) schedule(dynamic, 3)
  for (int i = 0; i < 40; i++)
    for (int j = 0; j < 50; j++) {
#pragma omp atomic
      hits[i * 50 + j]++;
    }
  if (!run_counts(2000, "collapse(2)")) return 0;
  /* nowait: two loops with no barrier between them, then one */
  memset(hits, 0, sizeof hits);
#pragma omp parallel
  {
#pragma omp for schedule(dynamic) nowait
    for (int i = 0; i < N; i++) {
#pragma omp atomic
      hits[i]++;
    }
#pragma omp for schedule(dynamic) nowait
    for (int i = N; i < 2 * N; i++) {
#pragma omp atomic
      hits[i]++;
    }
  }
  if (!run_counts(2 * N, "nowait")) return 0;
  return 1;
}

static int check_ordered(void) {
  static int order[N];
  int next = 0;
#pragma omp parallel for ordered schedule(dynamic, 3)
  for (int i = 0; i < N; i++) {
#pragma omp ordered
    {
      order[next] = i;
      next++;
    }
  }
  CHECK(next == N, "%d ordered regions ran, not %d", next, N);
  for (int i = 0; i < N; i++) CHECK(order[i] == i, "ordered: position %d holds iteration %d", i, order[i]);
  next = 0;
#pragma omp parallel for ordered schedule(static)
  for (int i = 0; i < 100; i++) {
#pragma omp ordered
    {
      order[next] = i;
      next++;
    }
  }
  for (int i = 0; i < 100; i++) CHECK(order[i] == i, "ordered static: position %d holds %d", i, order[i]);
  return 1;
}

static int check_sections(void) {
  int ran[6] = {0, 0, 0, 0, 0, 0};
#pragma omp parallel
  {
#pragma omp sections
    {
#pragma omp section
      ran[0]++;
#pragma omp section
      ran[1]++;
#pragma omp section
      ran[2]++;
#pragma omp section
      ran[3]++;
    }
  }
#pragma omp parallel sections
  {
#pragma omp section
    ran[4] += 10;
#pragma omp section
    ran[5] += 100;
  }
  for (int s = 0; s < 4; s++) CHECK(ran[s] == 1, "section %d ran %d times", s, ran[s]);
  CHECK(ran[4] == 10 && ran[5] == 100, "parallel sections: %d and %d", ran[4], ran[5]);
  return 1;
}

static int check_single(void) {
  int once = 0, value_seen = 0;
#pragma omp parallel
  {
#pragma omp single
    once++;
    int v = 0;
#pragma omp single copyprivate(v)
    v = 1234;
    if (v == 1234) {
#pragma omp atomic
      value_seen++;
    }
  }
  const int n = team_size();
  CHECK(once == 1, "single ran %d times", once);
  CHECK(value_seen == n, "copyprivate reached %d of %d threads", value_seen, n);
  return 1;
}

static int check_master(void) {
  int by = -1, count = 0;
#pragma omp parallel
  {
#pragma omp master
    {
      by = omp_get_thread_num();
      count++;
    }
  }
  CHECK(count == 1 && by == 0, "master ran %d times, last by thread %d", count, by);
  return 1;
}

static int check_barrier(void) {
  static int stage[MAXT];
  int bad = 0;
#pragma omp parallel
  {
    int me = omp_get_thread_num(), n = omp_get_num_threads();
    for (int round = 1; round <= 5; round++) {
      stage[me] = round;
#pragma omp barrier
      for (int t = 0; t < n; t++)
        if (stage[t] != round) {
#pragma omp atomic
          bad++;
        }
#pragma omp barrier
    }
  }
  CHECK(bad == 0, "%d reads after a barrier missed a write before it", bad);
  return 1;
}

/* ---- mutual exclusion ------------------------------------------------------------ */

static int check_critical(void) {
  int plain = 0, named = 0;
  double sum = 0;
#pragma omp parallel
  {
    for (int i = 0; i < 50; i++) {
#pragma omp critical
      plain++;
#pragma omp critical(other)
      {
        named += 2;
        sum += 0.5;
      }
    }
  }
  const int n = team_size();
  CHECK(plain == 50 * n, "critical: %d, not %d", plain, 50 * n);
  CHECK(named == 100 * n && sum == 25.0 * n, "named critical: %d and %g", named, sum);
  return 1;
}

/* Message passing through critical sections and locks: OpenMP's lock
 * flushes order every variable, not only those written inside. The data is
 * written outside any critical section, after the reader has cached it. */
static int msg[N];
static int check_critical_flush(void) {
  int flag = 0, bad = -1;
  omp_lock_t lock;
  omp_init_lock(&lock);
  for (int round = 0; round < 2; round++) {
    for (int i = 0; i < N; i++) msg[i] = 0;
    flag = 0;
#pragma omp parallel
    {
      const int n = omp_get_num_threads(), me = omp_get_thread_num();
      long cached = 0;
      for (int k = 0; k < 3; k++) { /* every thread caches the data, past the next barriers (check_flush says why) */
        for (int i = 0; i < N; i++) cached += ((volatile int*)msg)[i]; /* volatile: the reads must happen here */
#pragma omp barrier
      }
      const int writer = n > 2 ? 1 : 0, reader = n - 1;
      if (n > 1 && me == writer) {
        for (int i = 0; i < N; i++) msg[i] = i + 3 + cached;
        if (round == 0) {
#pragma omp critical(message)
          flag = 1;
        } else {
          omp_set_lock(&lock);
          flag = 1;
          omp_unset_lock(&lock);
        }
      }
      if (me == reader) {
        int f = n == 1;
        /* Bounded, so that a broken runtime (the flag never seen) fails
         * instead of hanging; a working one sees it within a few tries. */
        for (long tries = 0; !f && tries < 200000; tries++) {
          if (round == 0) {
#pragma omp critical(message)
            f = flag;
          } else {
            omp_set_lock(&lock);
            f = flag;
            omp_unset_lock(&lock);
          }
        }
        int b = f ? 0 : N;
        if (n > 1 && f)
          for (int i = 0; i < N; i++) b += msg[i] != i + 3;
        bad = b;
      }
    }
    CHECK(bad == 0, "%s: %d words written before the flag's release were stale after its acquire",
          round == 0 ? "critical" : "omp_set_lock", bad);
  }
  omp_destroy_lock(&lock);
  return 1;
}

static int check_atomic(void) {
  int i32 = 0;
  long long i64 = 0;
  double d = 0;
  float f = 0;
  char c = 0;
  short s = 0;
  unsigned u = 0xffffffffu;
  int captured_max = -1;
#pragma omp parallel
  {
    for (int k = 0; k < 100; k++) {
#pragma omp atomic
      i32 += 1;
#pragma omp atomic update
      i64 += 3;
#pragma omp atomic
      d += 0.25;
#pragma omp atomic
      f += 1.0f;
#pragma omp atomic
      c += 1;
#pragma omp atomic
      s += 2;
      int old;
#pragma omp atomic capture
      old = i32++;
      if (old > captured_max) {
#pragma omp critical
        if (old > captured_max) captured_max = old;
      }
    }
#pragma omp atomic
    u &= ~(1u << omp_get_thread_num());
  }
  const int n = team_size();
  CHECK(i32 == 200 * n, "int: %d, not %d", i32, 200 * n);
  CHECK(i64 == 300LL * n, "long long: %lld", i64);
  CHECK(d == 25.0 * n, "double: %g", d);
  CHECK(f == 100.0f * n, "float: %g", (double)f);
  CHECK(c == (char)(100 * n), "char: %d", c);
  CHECK(s == (short)(200 * n), "short: %d", s);
  CHECK(u == (0xffffffffu & ~((1u << n) - 1u)), "unsigned &=: %x", u);
  CHECK(captured_max == 200 * n - 1, "capture: the largest old value is %d", captured_max);
  int w = 0, r = -1;
#pragma omp parallel
  {
    if (omp_get_thread_num() == omp_get_num_threads() - 1) {
#pragma omp atomic write
      w = 77;
    }
#pragma omp barrier
    int seen;
#pragma omp atomic read
    seen = w;
#pragma omp master
    r = seen;
  }
  CHECK(r == 77, "atomic write then read: %d", r);
  return 1;
}

/* Message passing through an atomic flag with seq_cst (OpenMP 5's release
 * and acquire): the data written before the flag is seen after it. */
static int check_atomic_message(void) {
  static int data[N];
  int flag = 0, bad = -1;
#pragma omp parallel
  {
    const int n = omp_get_num_threads();
    if (n > 1 && omp_get_thread_num() == 1) {
      for (int i = 0; i < N; i++) data[i] = i + 5;
#pragma omp atomic write seq_cst
      flag = 1;
    }
    if (n > 1 && omp_get_thread_num() == 0) {
      int f = 0;
      while (!f) {
#pragma omp atomic read seq_cst
        f = flag;
      }
      int b = 0;
      for (int i = 0; i < N; i++) b += data[i] != i + 5;
      bad = b;
    }
    if (n == 1) bad = 0;
  }
  CHECK(bad == 0, "%d words written before the flag were not seen after it", bad);
  return 1;
}

/* Message passing through flush, as OpenMP's own examples write it: the
 * producer flushes its data, sets a flag and flushes the flag; the consumer
 * flushes until it sees the flag, then reads the data. */
static int fmsg[N];
static int fflag;
static int check_flush(void) {
  int bad = -1;
  fflag = 0;
#pragma omp parallel
  {
    const int n = omp_get_num_threads(), me = omp_get_thread_num();
    long cached = 0;
    /* The consumer holds copies of the data and the flag that outlive
     * barriers: a copy taken while its home did not trap the page is
     * dropped at the next barrier (the home notes the page there), and the
     * home traps and untraps such a page on alternate barriers after that;
     * an odd number of rounds (five) ends holding a copy that stays, in
     * both node modes. volatile: the reads must happen here. */
    for (int round = 0; round < 5; round++) {
      for (int i = 0; i < N; i++) cached += ((volatile int*)fmsg)[i];
      cached += *(volatile int*)&fflag;
#pragma omp barrier
    }
    if (n > 1 && me == 0) {
      for (int i = 0; i < N; i++) fmsg[i] = i + 9 + cached;
#pragma omp flush
      fflag = 1;
#pragma omp flush(fflag)
    }
    if (n > 1 && me == n - 1) {
      int f = 0;
      for (long tries = 0; !f && tries < 200000; tries++) {
#pragma omp flush(fflag)
        f = fflag;
      }
#pragma omp flush
      int b = f ? 0 : N;
      if (f)
        for (int i = 0; i < N; i++) b += fmsg[i] != i + 9;
      bad = b;
    }
    if (n == 1) bad = 0;
  }
  CHECK(bad == 0, "%d words written before a flush and a flag were stale after the flag and a flush (%s)", bad,
        bad == N ? "the flag was never seen" : "the flag was seen");
  return 1;
}

static int check_locks(void) {
  omp_lock_t lock;
  omp_nest_lock_t nest;
  int count = 0, tested = 0, depth_ok = 0;
  omp_init_lock(&lock);
  omp_init_nest_lock(&nest);
#pragma omp parallel
  {
    for (int i = 0; i < 30; i++) {
      omp_set_lock(&lock);
      count++;
      omp_unset_lock(&lock);
    }
    while (!omp_test_lock(&lock)) {
    }
    tested++;
    omp_unset_lock(&lock);
    omp_set_nest_lock(&nest);
    int d = omp_test_nest_lock(&nest);
    if (d == 2) depth_ok++;
    omp_unset_nest_lock(&nest);
    omp_unset_nest_lock(&nest);
  }
  omp_destroy_lock(&lock);
  omp_destroy_nest_lock(&nest);
  const int n = team_size();
  CHECK(count == 30 * n, "omp_set_lock: %d, not %d", count, 30 * n);
  CHECK(tested == n, "omp_test_lock: %d of %d", tested, n);
  CHECK(depth_ok == n, "omp_test_nest_lock returned depth 2 in %d of %d threads", depth_ok, n);
  return 1;
}

/* ---- reductions ---------------------------------------------------------------------- */

static int check_reduction(void) {
  long sum = 0, prod = 1, diff = 0;
  double dsum = 0, dmax = -1e30, dmin = 1e30;
  int land = 1, lor = 0, band = ~0, bor = 0, bxor = 0, imax = -1, imin = 1 << 30;
#pragma omp parallel for reduction(+ : sum, dsum) reduction(* : prod) reduction(- : diff) \
    reduction(max : dmax, imax) reduction(min : dmin, imin) reduction(&& : land) reduction(|| : lor) \
    reduction(& : band) reduction(| : bor) reduction(^ : bxor)
  for (int i = 1; i <= 200; i++) {
    sum += i;
    dsum += i * 0.5;
    if (i <= 20) prod *= (i % 3 == 0) ? 2 : 1;
    diff -= i;
    if (i > dmax) dmax = i;
    if (i > imax) imax = i;
    if (i < dmin) dmin = i;
    if (i < imin) imin = i;
    land = land && (i > 0);
    lor = lor || (i == 150);
    band &= ~(1 << (i % 8));
    bor |= 1 << (i % 8);
    bxor ^= i;
  }
  int x = 0;
  for (int i = 1; i <= 200; i++) x ^= i;
  CHECK(sum == 20100 && dsum == 10050.0, "+: %ld %g", sum, dsum);
  CHECK(prod == 64, "*: %ld", prod);
  CHECK(diff == -20100, "-: %ld", diff);
  CHECK(dmax == 200 && imax == 200 && dmin == 1 && imin == 1, "max/min: %g %d %g %d", dmax, imax, dmin, imin);
  CHECK(land == 1 && lor == 1, "&&/||: %d %d", land, lor);
  CHECK(band == ~0xff && bor == 0xff && bxor == x, "&, |, ^: %x %x %x", band, bor, bxor);
  /* a reduction over a parallel region, not a loop */
  int per_thread = 0;
#pragma omp parallel reduction(+ : per_thread)
  per_thread += omp_get_thread_num() + 1;
  const int n = team_size();
  CHECK(per_thread == n * (n + 1) / 2, "parallel reduction: %d", per_thread);
  return 1;
}

/* ---- threadprivate -------------------------------------------------------------------- */

int tp_counter;
#pragma omp threadprivate(tp_counter)

static int check_threadprivate(void) {
  int bad = 0;
  tp_counter = 17;
#pragma omp parallel copyin(tp_counter)
  {
    if (tp_counter != 17) {
#pragma omp atomic
      bad++;
    }
    tp_counter = 100 + omp_get_thread_num();
  }
  CHECK(bad == 0, "copyin: %d threads did not get the master's value", bad);
  /* private values persist into the next region of the same team size */
#pragma omp parallel
  {
    if (tp_counter != 100 + omp_get_thread_num()) {
#pragma omp atomic
      bad++;
    }
  }
  CHECK(bad == 0, "threadprivate: %d threads lost their value between regions", bad);
  return 1;
}

/* ---- tasks ---------------------------------------------------------------------------- */

static long fib(int k) {
  if (k < 2) return k;
  long a = 0, b = 0;
#pragma omp task shared(a)
  a = fib(k - 1);
#pragma omp task shared(b)
  b = fib(k - 2);
#pragma omp taskwait
  return a + b;
}

static int check_tasks(void) {
  long f = 0;
  int taskloop_hits = 0, group = 0;
#pragma omp parallel
  {
#pragma omp single
    {
      f = fib(18);
#pragma omp taskgroup
      {
        for (int i = 0; i < 10; i++) {
#pragma omp task
          {
#pragma omp atomic
            group++;
          }
        }
      }
#pragma omp taskloop
      for (int i = 0; i < 100; i++) {
#pragma omp atomic
        taskloop_hits++;
      }
    }
  }
  CHECK(f == 2584, "fib(18) by tasks: %ld", f);
  CHECK(group == 10, "taskgroup: %d", group);
  CHECK(taskloop_hits == 100, "taskloop: %d", taskloop_hits);
  return 1;
}

/* ---- nesting and the routines ------------------------------------------------------------ */

static int check_nested(void) {
  int inner = -1, level = -1, ancestor = -1, active = -1;
#pragma omp parallel
  {
#pragma omp parallel
    {
      if (omp_get_ancestor_thread_num(1) == 0) {
        inner = omp_get_num_threads();
        level = omp_get_level();
        active = omp_get_active_level();
        ancestor = omp_get_ancestor_thread_num(0);
      }
    }
  }
  const int n = team_size();
  CHECK(inner == 1, "an inner region ran a team of %d", inner);
  CHECK(level == 2, "omp_get_level() in an inner region: %d", level);
  CHECK(active == (n > 1 ? 1 : 0), "omp_get_active_level(): %d", active);
  CHECK(ancestor == 0, "omp_get_ancestor_thread_num(0): %d", ancestor);
  return 1;
}

static int check_routines(void) {
  omp_sched_t kind;
  int chunk;
  omp_set_schedule(omp_sched_guided, 7);
  omp_get_schedule(&kind, &chunk);
  CHECK((kind & ~omp_sched_monotonic) == omp_sched_guided && chunk == 7, "omp_get_schedule: %d, %d", kind, chunk);
  memset(hits, 0, sizeof hits);
#pragma omp parallel for schedule(runtime)
  for (int i = 0; i < N; i++) {
#pragma omp atomic
    hits[i]++;
  }
  if (!run_counts(N, "runtime after omp_set_schedule")) return 0;
  omp_set_schedule(omp_sched_dynamic, 0);
  double t0 = omp_get_wtime();
  usleep(2000);
  double t1 = omp_get_wtime();
  CHECK(t1 - t0 >= 0.0015 && omp_get_wtick() > 0, "omp_get_wtime advanced %g s over a 2 ms sleep", t1 - t0);
  CHECK(omp_get_level() == 0 && omp_get_num_threads() == 1 && omp_get_thread_num() == 0, "serial part routines");
  CHECK(omp_get_thread_limit() >= omp_get_max_threads(), "thread limit %d", omp_get_thread_limit());
  return 1;
}

struct check {
  const char* name;
  int (*run)(void);
};
static const struct check checks[] = {
    {"parallel", check_parallel},
    {"parallel_if", check_parallel_if},
    {"num_threads", check_num_threads},
    {"shared_memory", check_shared_memory},
    {"heap_in_region", check_heap_in_region},
    {"clauses", check_clauses},
    {"for_schedules", check_for_schedules},
    {"ordered", check_ordered},
    {"sections", check_sections},
    {"single", check_single},
    {"master", check_master},
    {"barrier", check_barrier},
    {"critical", check_critical},
    {"critical_flush", check_critical_flush},
    {"atomic", check_atomic},
    {"atomic_message", check_atomic_message},
    {"flush", check_flush},
    {"locks", check_locks},
    {"reduction", check_reduction},
    {"threadprivate", check_threadprivate},
    {"tasks", check_tasks},
    {"nested", check_nested},
    {"routines", check_routines},
};

int main(int argc, char** argv) {
  const size_t count = sizeof checks / sizeof checks[0];
  if (argc < 2) {
    fprintf(stderr, "usage: validate NAME...|list|all\n");
    return 2;
  }
  if (strcmp(argv[1], "list") == 0) {
    for (size_t i = 0; i < count; i++) printf("%s\n", checks[i].name);
    return 0;
  }
  int failed = 0, ran = 0;
  for (int a = 1; a < argc; a++)
  for (size_t i = 0; i < count; i++) {
    if (strcmp(argv[a], "all") != 0 && strcmp(argv[a], checks[i].name) != 0) continue;
    ran++;
    why[0] = '\0';
    if (checks[i].run()) {
      printf("validate %s: ok (%d threads)\n", checks[i].name, team_size());
    } else {
      printf("validate %s: FAILED: %s\n", checks[i].name, why);
      failed++;
    }
    fflush(stdout);
  }
  if (ran == 0) {
    fprintf(stderr, "validate: no check of those names\n");
    return 2;
  }
  return failed ? 1 : 0;
}
