/*
 * ep - "embarrassingly parallel", after the published description of NAS EP.
 *
 * Generates 2^m pairs of uniform numbers in (-1, 1) with the NAS linear
 * congruential generator (x <- 5^13 x mod 2^46, seed 271828183), keeps the
 * pairs inside the unit circle, turns each into a pair of Gaussian deviates
 * (X, Y) by the polar method, sums X and Y, and counts the pairs in each
 * square annulus l <= max(|X|, |Y|) < l + 1, l = 0..9.
 *
 * The pairs are generated in batches of 2^16; each batch starts from its own
 * jump-ahead of the seed, so every batch is the same whichever process
 * computes it. Batches are divided evenly among the processes. Each process
 * sums privately; at the end it adds its two sums and ten counts into the
 * shared totals in one critical section (lock 0), the only communication.
 *
 * Verification: rank 0 recomputes every batch sequentially. The counts must
 * be equal; the sums, added in a different grouping, must agree to a
 * relative 1e-10. For m = 24 and m = 28 (NAS classes S and A) the sums must
 * also match the published NAS verification values to a relative 1e-8.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "appkit.h"
#include "jia.h"

#define BATCH_LOG 16
#define MOD_MASK ((1ULL << 46) - 1)
#define MULTIPLIER 1220703125ULL /* 5^13 */
#define SEED 271828183ULL
#define ANNULI 10
#define EP_LOCK 0

static const char usage[] =
    "usage: ep [-m log2-pairs]\n"
    "  -m  generate 2^m pairs (default 24, NAS class S; benchmark 26; NAS class A is 28)\n";

struct tally {
  double sx, sy;
  long q[ANNULI];
  long batches;
};

/* a * x mod 2^46 for a, x < 2^46, without overflow. */
static uint64_t mulmod46(uint64_t a, uint64_t x) {
  uint64_t a_lo = a & ((1ULL << 23) - 1), a_hi = a >> 23;
  uint64_t x_lo = x & ((1ULL << 23) - 1), x_hi = x >> 23;
  uint64_t cross = (a_hi * x_lo + a_lo * x_hi) & ((1ULL << 23) - 1);
  return ((cross << 23) + a_lo * x_lo) & MOD_MASK;
}

/* 5^13^k mod 2^46. */
static uint64_t power46(uint64_t k) {
  uint64_t result = 1, base = MULTIPLIER;
  while (k) {
    if (k & 1) result = mulmod46(result, base);
    base = mulmod46(base, base);
    k >>= 1;
  }
  return result;
}

/* Adds batch b (2^16 pairs, the 2 * 2^16 numbers after skipping b batches) into t. */
static void run_batch(uint64_t b, struct tally *t) {
  const double scale = 1.0 / (double)(1ULL << 46);
  uint64_t x = mulmod46(power46(2 * (b << BATCH_LOG)), SEED);
  double sx = 0.0, sy = 0.0;
  for (long i = 0; i < (1L << BATCH_LOG); ++i) {
    x = mulmod46(MULTIPLIER, x);
    double x1 = 2.0 * (double)x * scale - 1.0;
    x = mulmod46(MULTIPLIER, x);
    double x2 = 2.0 * (double)x * scale - 1.0;
    double r = x1 * x1 + x2 * x2;
    if (r > 1.0 || r == 0.0) continue;
    double f = sqrt(-2.0 * log(r) / r);
    double gx = x1 * f, gy = x2 * f;
    double m = fabs(gx) > fabs(gy) ? fabs(gx) : fabs(gy);
    int l = (int)m;
    if (l < ANNULI) t->q[l] += 1;
    sx += gx;
    sy += gy;
  }
  t->sx += sx;
  t->sy += sy;
  t->batches += 1;
}

/* Published NAS EP verification sums: class S (m = 24) and class A (m = 28). */
static const struct {
  long m;
  double sx, sy;
} nas_reference[] = {
    {24, -3.247834652034740e+3, -6.958407078382297e+3},
    {28, -4.295875165629892e+3, -1.580732573678431e+4},
};

static void run_batches(uint64_t b0, uint64_t b1, struct tally *t) {
  for (uint64_t b = b0; b < b1; ++b) run_batch(b, t);
}

int main(int argc, char **argv) {
  const char *opt[1] = {NULL};
  appkit_opts(argc, argv, "m", opt, usage);
  long m = appkit_long(opt[0], 'm', 24, BATCH_LOG, 40);

  jia_init(argc, argv);
  const int me = jiapid, procs = jiahosts;
  struct tally *total = (struct tally *)jia_alloc1((int)sizeof *total);
  const long batches = 1L << (m - BATCH_LOG);
  long b0, b1;
  appkit_block(batches, procs, me, &b0, &b1);

  jia_barrier();
  float t0 = jia_clock();
  jia_startstat();
  struct tally mine = {0};
  run_batches((uint64_t)b0, (uint64_t)b1, &mine);
  jia_lock(EP_LOCK);
  total->sx += mine.sx;
  total->sy += mine.sy;
  for (int l = 0; l < ANNULI; ++l) total->q[l] += mine.q[l];
  total->batches += mine.batches;
  jia_unlock(EP_LOCK);
  jia_barrier();
  jia_stopstat();
  float t1 = jia_clock();

  int ok = 1;
  if (me == 0) {
    struct tally ref = {0};
    run_batches(0, (uint64_t)batches, &ref);
    long pairs = 0;
    for (int l = 0; l < ANNULI; ++l) {
      pairs += total->q[l];
      if (total->q[l] != ref.q[l]) {
        fprintf(stderr, "ep: verification FAILED: annulus %d has %ld pairs, the sequential run counts %ld\n", l,
                total->q[l], ref.q[l]);
        ok = 0;
      }
    }
    if (total->batches != batches) {
      fprintf(stderr, "ep: verification FAILED: %ld batches were added, expected %ld\n", total->batches, batches);
      ok = 0;
    }
    if (!(fabs(total->sx - ref.sx) <= 1e-10 * fabs(ref.sx)) || !(fabs(total->sy - ref.sy) <= 1e-10 * fabs(ref.sy))) {
      fprintf(stderr, "ep: verification FAILED: sums %.15e %.15e, the sequential run has %.15e %.15e\n", total->sx,
              total->sy, ref.sx, ref.sy);
      ok = 0;
    }
    for (size_t c = 0; c < sizeof nas_reference / sizeof nas_reference[0]; ++c) {
      if (nas_reference[c].m != m) continue;
      double ex = nas_reference[c].sx, ey = nas_reference[c].sy;
      if (!(fabs(total->sx - ex) <= 1e-8 * fabs(ex)) || !(fabs(total->sy - ey) <= 1e-8 * fabs(ey))) {
        fprintf(stderr, "ep: verification FAILED: sums %.15e %.15e, NAS publishes %.15e %.15e for m=%ld\n",
                total->sx, total->sy, ex, ey, m);
        ok = 0;
      }
    }
    printf("ep: sx = %.15e, sy = %.15e, %ld Gaussian pairs\n", total->sx, total->sy, pairs);
    char size[32];
    snprintf(size, sizeof size, "m=%ld", m);
    appkit_result("ep", SCOPEDSM_VARIANT, procs, size, (double)(t1 - t0), ok);
  }
  jia_exit();
  return ok ? 0 : 1;
}
