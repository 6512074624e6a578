/* OpenMP synchronisation and scheduling overheads, in the manner of the
 * EPCC OpenMP micro-benchmarks (written fresh): each construct is run many
 * times around a short delay, and its overhead per instance is the time
 * beyond the same delays run alone. The same source is built with libgomp
 * (threads) and with scopedsm-cc -fopenmp (processes); bench/omp/run.py
 * runs both and puts them side by side.
 *
 *   syncbench [--samples=N] [--inner=N] [--delay-ns=N] [--only=NAME]
 *
 * Prints one JSON object: {"threads": P, "delay_ns": D, "constructs":
 * {NAME: [overhead of each sample, in microseconds], ...}}. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int samples = 20, inner = 200;
static long delay_ns = 100;
static const char* only = NULL;

static double seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* A busy delay of about delay_ns, calibrated once. As EPCC's, it writes no
 * shared variable: the result is only tested, so that the loop is kept. */
static long spins_per_delay = 1;
static void delay(void) {
  double a = 0;
  for (long i = 0; i < spins_per_delay; i++) a += i * 0.5;
  if (a < 0) printf("%f\n", a);
}
static void calibrate(void) {
  const long trial = 1000000;
  spins_per_delay = trial;
  double t0 = seconds();
  delay();
  double per = (seconds() - t0) / trial;
  spins_per_delay = (long)(delay_ns * 1e-9 / per);
  if (spins_per_delay < 1) spins_per_delay = 1;
}

static omp_lock_t lock;
static int counter;

typedef void (*body_fn)(void);

/* One sample: `inner` instances of the construct. */
static void run_parallel(void) {
  for (int k = 0; k < inner; k++) {
#pragma omp parallel
    delay();
  }
}
static void run_for(void) {
#pragma omp parallel
  for (int k = 0; k < inner; k++) {
#pragma omp for schedule(static)
    for (int i = 0; i < omp_get_num_threads(); i++) delay();
  }
}
static void run_parallel_for(void) {
  for (int k = 0; k < inner; k++) {
#pragma omp parallel for schedule(static)
    for (int i = 0; i < omp_get_max_threads(); i++) delay();
  }
}
static void run_barrier(void) {
#pragma omp parallel
  for (int k = 0; k < inner; k++) {
    delay();
#pragma omp barrier
  }
}
static void run_single(void) {
#pragma omp parallel
  for (int k = 0; k < inner; k++) {
#pragma omp single
    delay();
  }
}
static void run_critical(void) {
#pragma omp parallel
  for (int k = 0; k < inner / omp_get_num_threads(); k++) {
#pragma omp critical
    delay();
  }
}
static void run_lock(void) {
#pragma omp parallel
  for (int k = 0; k < inner / omp_get_num_threads(); k++) {
    omp_set_lock(&lock);
    delay();
    omp_unset_lock(&lock);
  }
}
static void run_atomic(void) {
#pragma omp parallel
  for (int k = 0; k < inner; k++) {
    delay();
#pragma omp atomic
    counter++;
  }
}
/* As EPCC's: the reduction variable is the caller's local, summed over
 * every instance, and checked once at the end. */
static void run_reduction(void) {
  double s = 0;
  for (int k = 0; k < inner; k++) {
#pragma omp parallel reduction(+ : s)
    {
      delay();
      s += 1;
    }
  }
  if (s != (double)inner * omp_get_max_threads()) {
    fprintf(stderr, "syncbench: REDUCTION summed %g, not %d\n", s, inner * omp_get_max_threads());
    exit(1);
  }
}

/* schedbench: itersperthr iterations per thread, each one delay. */
#define ITERS_PER_THREAD 64
#define SCHED(NAME, CLAUSE)                                                   \
  static void run_##NAME(void) {                                              \
    _Pragma("omp parallel") for (int k = 0; k < inner / 16; k++) {            \
      _Pragma(CLAUSE) for (int i = 0; i < ITERS_PER_THREAD * omp_get_num_threads(); i++) delay(); \
    }                                                                         \
  }
SCHED(static_1, "omp for schedule(static, 1)")
SCHED(static_16, "omp for schedule(static, 16)")
SCHED(dynamic_1, "omp for schedule(dynamic, 1)")
SCHED(dynamic_16, "omp for schedule(dynamic, 16)")
SCHED(guided_1, "omp for schedule(guided, 1)")
SCHED(guided_16, "omp for schedule(guided, 16)")

/* The reference: the delays the construct's runs contain, on one thread. */
static double reference(int per_sample_delays) {
  double t0 = seconds();
  for (int i = 0; i < per_sample_delays; i++) delay();
  return seconds() - t0;
}

struct bench {
  const char* name;
  body_fn run;
  int delays;  /* delays one thread runs per sample, beside the construct */
  int instances;
};

int main(int argc, char** argv) {
  for (int i = 1; i < argc; i++) {
    if (strncmp(argv[i], "--samples=", 10) == 0) samples = atoi(argv[i] + 10);
    else if (strncmp(argv[i], "--inner=", 8) == 0) inner = atoi(argv[i] + 8);
    else if (strncmp(argv[i], "--delay-ns=", 11) == 0) delay_ns = atol(argv[i] + 11);
    else if (strncmp(argv[i], "--only=", 7) == 0) only = argv[i] + 7;
    else {
      fprintf(stderr, "usage: syncbench [--samples=N] [--inner=N] [--delay-ns=N] [--only=NAME]\n");
      return 2;
    }
  }
  calibrate();
  omp_init_lock(&lock);
  const int p = omp_get_max_threads();
  const struct bench benches[] = {
      {"PARALLEL", run_parallel, inner, inner},
      {"FOR", run_for, inner, inner},
      {"PARALLEL_FOR", run_parallel_for, inner, inner},
      {"BARRIER", run_barrier, inner, inner},
      {"SINGLE", run_single, inner / p, inner},
      {"CRITICAL", run_critical, (inner / p) * p, (inner / p) * p},
      {"LOCK_UNLOCK", run_lock, (inner / p) * p, (inner / p) * p},
      {"ATOMIC", run_atomic, inner, inner},
      {"REDUCTION", run_reduction, inner, inner},
      {"SCHED_static_1", run_static_1, ITERS_PER_THREAD * (inner / 16), inner / 16},
      {"SCHED_static_16", run_static_16, ITERS_PER_THREAD * (inner / 16), inner / 16},
      {"SCHED_dynamic_1", run_dynamic_1, ITERS_PER_THREAD * (inner / 16), inner / 16},
      {"SCHED_dynamic_16", run_dynamic_16, ITERS_PER_THREAD * (inner / 16), inner / 16},
      {"SCHED_guided_1", run_guided_1, ITERS_PER_THREAD * (inner / 16), inner / 16},
      {"SCHED_guided_16", run_guided_16, ITERS_PER_THREAD * (inner / 16), inner / 16},
  };
  printf("{\"threads\": %d, \"delay_ns\": %ld, \"inner\": %d, \"constructs\": {", p, delay_ns, inner);
  int first = 1;
  for (size_t b = 0; b < sizeof benches / sizeof benches[0]; b++) {
    if (only != NULL && strcmp(only, benches[b].name) != 0) continue;
    benches[b].run();  /* warm-up */
    printf("%s\"%s\": [", first ? "" : ", ", benches[b].name);
    first = 0;
    for (int s = 0; s < samples; s++) {
      const double ref = reference(benches[b].delays);
      const double t0 = seconds();
      benches[b].run();
      const double t = seconds() - t0;
      printf("%s%.4f", s ? ", " : "", (t - ref) / benches[b].instances * 1e6);
    }
    printf("]");
    fflush(stdout);
  }
  printf("}}\n");
  omp_destroy_lock(&lock);
  return counter < 0;  /* keep the counter alive */
}
