/*
 * water - a Water-like N-body molecular dynamics program, after the
 * published description of SPLASH/SPLASH-2 Water (n-squared version).
 *
 * n molecules (simplified to point particles interacting through a
 * Lennard-Jones potential cut off at 3 sigma) start on a jittered cubic
 * lattice with small random velocities and move for `steps` time steps
 * (symplectic Euler, dt = 0.002).
 *
 * Sharing: positions and forces are shared arrays of 4 doubles per molecule
 * (x, y, z, pad), divided into contiguous chunks of whole pages, one chunk
 * per process, homed at the owner; velocities are private to the owner. As
 * in Water, each process computes the interactions of each of its molecules
 * with the n/2 molecules that follow it (wrapping around), so every pair is
 * computed once. It adds the forces into a private buffer and then, for
 * every chunk it touched, adds that part into the shared force array inside
 * the critical section of the chunk owner's lock (one lock per process).
 * Barrier; each owner moves its molecules and zeroes their forces; barrier.
 * The potential energy of the last step is summed under its own lock.
 *
 * Verification: rank 0 runs the same steps sequentially in private memory.
 * Forces are summed in a different order, so positions are compared with an
 * absolute tolerance of 1e-9 (the difference after a few steps is ~1e-14),
 * and the potential energy with a relative 1e-9.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "appkit.h"
#include "jia.h"

#define DT 0.002
#define CUTOFF2 9.0
#define SPACING 1.15
#define ENERGY_LOCK 0
#define CHUNK_LOCK(p) (1 + (p))

static const char usage[] =
    "usage: water [-n molecules] [-s steps]\n"
    "  -n  molecules (default 512; benchmark 8192)\n"
    "  -s  time steps (default 3; benchmark 20)\n";

/* Initial position (lattice point plus jitter) and velocity of molecule i. */
static void initial_state(long i, long n, double pos[4], double vel[3]) {
  long side = (long)ceil(cbrt((double)n));
  long c[3] = {i % side, (i / side) % side, i / (side * side)};
  for (int d = 0; d < 3; ++d) {
    pos[d] = SPACING * (double)c[d] + 0.1 * (appkit_unit(appkit_key2((uint64_t)i, (uint64_t)d)) - 0.5);
    vel[d] = 0.2 * (appkit_unit(appkit_key2((uint64_t)i, (uint64_t)(3 + d))) - 0.5);
  }
  pos[3] = 0.0;
}

/* Interactions of molecules [lo, hi) with the n/2 molecules after each;
 * forces added into fpriv (3 per molecule). Returns the potential energy. */
static double pair_forces(const double *pos, double *fpriv, long lo, long hi, long n) {
  double energy = 0.0;
  const long half = n / 2;
  for (long i = lo; i < hi; ++i) {
    const double *pi = pos + 4 * i;
    double fx = 0.0, fy = 0.0, fz = 0.0;
    for (long k = 1; k <= half; ++k) {
      if (n % 2 == 0 && k == half && i >= half) break; /* that pair belongs to the other molecule */
      long j = i + k < n ? i + k : i + k - n;
      const double *pj = pos + 4 * j;
      double dx = pi[0] - pj[0], dy = pi[1] - pj[1], dz = pi[2] - pj[2];
      double r2 = dx * dx + dy * dy + dz * dz;
      if (r2 >= CUTOFF2) continue;
      double inv2 = 1.0 / r2, inv6 = inv2 * inv2 * inv2;
      double s = 24.0 * inv6 * (2.0 * inv6 - 1.0) * inv2; /* force on i is s * (ri - rj) */
      energy += 4.0 * inv6 * (inv6 - 1.0);
      fx += s * dx;
      fy += s * dy;
      fz += s * dz;
      fpriv[3 * j] -= s * dx;
      fpriv[3 * j + 1] -= s * dy;
      fpriv[3 * j + 2] -= s * dz;
    }
    fpriv[3 * i] += fx;
    fpriv[3 * i + 1] += fy;
    fpriv[3 * i + 2] += fz;
  }
  return energy;
}

/* Moves molecules [lo, hi) one step and zeroes their forces. */
static void move(double *pos, double *force, double *vel, long lo, long hi) {
  for (long i = lo; i < hi; ++i)
    for (int d = 0; d < 3; ++d) {
      vel[3 * (i - lo) + d] += DT * force[4 * i + d];
      pos[4 * i + d] += DT * vel[3 * (i - lo) + d];
      force[4 * i + d] = 0.0;
    }
}

/* The sequential reference: final positions (4 per molecule) and the potential energy of the last step. */
static double *reference(long n, long steps, double *energy) {
  double *pos = malloc((size_t)n * 4 * sizeof *pos), *force = calloc((size_t)n * 4, sizeof *force);
  double *vel = malloc((size_t)n * 3 * sizeof *vel), *fpriv = malloc((size_t)n * 3 * sizeof *fpriv);
  if (pos == NULL || force == NULL || vel == NULL || fpriv == NULL) {
    fprintf(stderr, "water: out of memory for the reference\n");
    exit(1);
  }
  for (long i = 0; i < n; ++i) initial_state(i, n, pos + 4 * i, vel + 3 * i);
  for (long s = 0; s < steps; ++s) {
    memset(fpriv, 0, (size_t)n * 3 * sizeof *fpriv);
    *energy = pair_forces(pos, fpriv, 0, n, n);
    for (long i = 0; i < n; ++i)
      for (int d = 0; d < 3; ++d) force[4 * i + d] += fpriv[3 * i + d];
    move(pos, force, vel, 0, n);
  }
  free(force);
  free(vel);
  free(fpriv);
  return pos;
}

int main(int argc, char **argv) {
  const char *opt[2] = {NULL, NULL};
  appkit_opts(argc, argv, "ns", opt, usage);
  long n = appkit_long(opt[0], 'n', 512, 2, 1L << 22);
  long steps = appkit_long(opt[1], 's', 3, 1, 1000000);

  jia_init(argc, argv);
  const int me = jiapid, procs = jiahosts;
  if (procs + 1 > Maxlocks) jia_error("water: needs %d locks", procs + 1);
  const long per_page = Pagesize / (4 * (long)sizeof(double));
  const long chunk = appkit_band_rows((n + per_page - 1) / per_page, procs) * per_page;
  const long bytes = (n + per_page - 1) / per_page * Pagesize;
  const int block = (int)(chunk * 4 * (long)sizeof(double));
  double *pos = (double *)jia_alloc3((int)bytes, block, 0);
  double *force = (double *)jia_alloc3((int)bytes, block, 0);
  double *energy = (double *)jia_alloc1((int)sizeof(double));

  long lo = me * chunk < n ? me * chunk : n, hi = lo + chunk < n ? lo + chunk : n;
  double *vel = malloc((size_t)((hi - lo) * 3 + 1) * sizeof *vel);
  double *fpriv = malloc((size_t)n * 3 * sizeof *fpriv);
  if (vel == NULL || fpriv == NULL) jia_error("water: out of memory");
  for (long i = lo; i < hi; ++i) initial_state(i, n, pos + 4 * i, vel + 3 * (i - lo));
  /* force[] starts zero-filled. My interactions touch molecules lo .. hi-1+n/2
   * (wrapping around); mark the chunks that holds. */
  char *touched = calloc((size_t)procs, 1);
  if (touched == NULL) jia_error("water: out of memory");
  long reach = lo < hi ? (hi - lo + n / 2 < n ? hi - lo + n / 2 : n) : 0;
  for (long o = 0; o < reach; ++o) touched[((lo + o) % n) / chunk] = 1;

  jia_barrier();
  float t0 = jia_clock();
  jia_startstat();
  double my_energy = 0.0;
  for (long s = 0; s < steps; ++s) {
    memset(fpriv, 0, (size_t)n * 3 * sizeof *fpriv);
    my_energy = pair_forces(pos, fpriv, lo, hi, n);
    for (int p = 0; p < procs; ++p) {
      if (!touched[p]) continue;
      long plo = p * chunk, phi = plo + chunk < n ? plo + chunk : n;
      jia_lock(CHUNK_LOCK(p));
      for (long i = plo; i < phi; ++i)
        for (int d = 0; d < 3; ++d) force[4 * i + d] += fpriv[3 * i + d];
      jia_unlock(CHUNK_LOCK(p));
    }
    jia_barrier();
    move(pos, force, vel, lo, hi);
    jia_barrier();
  }
  jia_lock(ENERGY_LOCK);
  *energy += my_energy;
  jia_unlock(ENERGY_LOCK);
  jia_barrier();
  jia_stopstat();
  float t1 = jia_clock();

  int ok = 1;
  if (me == 0) {
    double ref_energy = 0.0;
    double *ref = reference(n, steps, &ref_energy);
    for (long i = 0; i < n && ok; ++i)
      for (int d = 0; d < 3; ++d)
        if (!(fabs(pos[4 * i + d] - ref[4 * i + d]) <= 1e-9)) {
          fprintf(stderr, "water: verification FAILED: coordinate %d of molecule %ld is %.17g, the sequential run "
                          "has %.17g\n", d, i, pos[4 * i + d], ref[4 * i + d]);
          ok = 0;
          break;
        }
    if (ok && !(fabs(*energy - ref_energy) <= 1e-9 * fabs(ref_energy))) {
      fprintf(stderr, "water: verification FAILED: potential energy %.17g, the sequential run has %.17g\n", *energy,
              ref_energy);
      ok = 0;
    }
    printf("water: potential energy of the last step %.10g\n", *energy);
    free(ref);
    char size[48];
    snprintf(size, sizeof size, "n=%ld steps=%ld", n, steps);
    appkit_result("water", SCOPEDSM_VARIANT, procs, size, (double)(t1 - t0), ok);
  }
  free(vel);
  free(fpriv);
  free(touched);
  jia_exit();
  return ok ? 0 : 1;
}
