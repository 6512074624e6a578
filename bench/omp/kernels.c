/* OpenMP kernels in the style of the NAS Parallel Benchmarks and the
 * classic shared-memory kernels, written for ScopeDSM's OpenMP runtime and
 * for libgomp alike: the same source is built with `gcc -fopenmp` (threads)
 * and `scopedsm-cc -fopenmp` (processes), and the two runs must print the
 * same checksum.
 *
 *   kernels NAME [size] [init] [iterations]
 *
 * NAME: sor, jacobi, mm, cg, ep, mg, ft, is. size: "test" or "bench".
 * init: "serial" (the usual program: the master initializes the data,
 * then the team works on it) or "parallel" (the data is first written in
 * parallel, each thread its own part). Prints
 *   kernel NAME size INIT: T s checksum C (P threads)
 * where T times the parallel part only (omp_get_wtime). */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_parallel_init = 0;
static int g_bench = 0;

static double now(void) { return omp_get_wtime(); }

/* ---- red-black SOR on an M x N float grid --------------------------------- */
static double sor(int iters) {
  const int M = g_bench ? 4096 : 512, N = g_bench ? 2048 : 256;
  float(*a)[N] = malloc(sizeof(float) * (size_t)M * N);
  if (g_parallel_init) {
#pragma omp parallel for schedule(static)
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) a[i][j] = (float)((i * 7 + j * 3) % 11);
  } else {
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) a[i][j] = (float)((i * 7 + j * 3) % 11);
  }
  const double t0 = now();
  for (int it = 0; it < iters; it++)
    for (int color = 0; color < 2; color++) {
#pragma omp parallel for schedule(static)
      for (int i = 1; i < M - 1; i++)
        for (int j = 1 + (i + color) % 2; j < N - 1; j += 2)
          a[i][j] = (a[i - 1][j] + a[i + 1][j] + a[i][j - 1] + a[i][j + 1]) * 0.25f;
    }
  const double t = now() - t0;
  double sum = 0;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) sum += a[i][j];
  free(a);
  printf("checksum %.10e\n", sum);
  return t;
}

/* ---- Jacobi: two grids, 5-point stencil, residual by reduction ------------ */
static double jacobi(int iters) {
  const int M = g_bench ? 2048 : 256, N = g_bench ? 2048 : 256;
  double(*u)[N] = malloc(sizeof(double) * (size_t)M * N);
  double(*v)[N] = malloc(sizeof(double) * (size_t)M * N);
  if (g_parallel_init) {
#pragma omp parallel for schedule(static)
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) u[i][j] = v[i][j] = (i == 0 || j == 0) ? 1.0 : 0.0;
  } else {
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) u[i][j] = v[i][j] = (i == 0 || j == 0) ? 1.0 : 0.0;
  }
  double resid = 0;
  const double t0 = now();
  for (int it = 0; it < iters; it++) {
    resid = 0;
#pragma omp parallel for schedule(static) reduction(+ : resid)
    for (int i = 1; i < M - 1; i++)
      for (int j = 1; j < N - 1; j++) {
        v[i][j] = 0.25 * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1]);
        resid += fabs(v[i][j] - u[i][j]);
      }
    double(*w)[N] = u;
    u = v;
    v = w;
  }
  const double t = now() - t0;
  double sum = 0;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) sum += u[i][j];
  free(u);
  free(v);
  printf("checksum %.10e\n", sum + resid);
  return t;
}

/* ---- matrix multiply, rows split ------------------------------------------ */
static double mm(int iters) {
  const int n = g_bench ? 1024 : 192;
  double* A = malloc(sizeof(double) * (size_t)n * n);
  double* B = malloc(sizeof(double) * (size_t)n * n);
  double* C = malloc(sizeof(double) * (size_t)n * n);
  if (g_parallel_init) {
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        A[(size_t)i * n + j] = (i + j) % 7 - 3;
        B[(size_t)i * n + j] = (i * j) % 5 - 2;
        C[(size_t)i * n + j] = 0;
      }
  } else {
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        A[(size_t)i * n + j] = (i + j) % 7 - 3;
        B[(size_t)i * n + j] = (i * j) % 5 - 2;
        C[(size_t)i * n + j] = 0;
      }
  }
  const double t0 = now();
  for (int it = 0; it < iters; it++) {
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++) {
      double* c = C + (size_t)i * n;
      for (int j = 0; j < n; j++) c[j] = 0;
      for (int k = 0; k < n; k++) {
        const double aik = A[(size_t)i * n + k];
        const double* b = B + (size_t)k * n;
        for (int j = 0; j < n; j++) c[j] += aik * b[j];
      }
    }
  }
  const double t = now() - t0;
  double sum = 0;
  for (size_t i = 0; i < (size_t)n * n; i++) sum += C[i] * (double)(i % 13);
  free(A);
  free(B);
  free(C);
  printf("checksum %.10e\n", sum);
  return t;
}

/* ---- CG: conjugate gradient on a banded sparse SPD matrix ------------------ */
static double cg(int iters) {
  const int n = g_bench ? 400000 : 20000, band = 8;  /* 2*band+1 entries per row */
  const int nnz_row = 2 * band + 1;
  double* val = malloc(sizeof(double) * (size_t)n * nnz_row);
  int* col = malloc(sizeof(int) * (size_t)n * nnz_row);
  double *x = malloc(sizeof(double) * n), *r = malloc(sizeof(double) * n), *p = malloc(sizeof(double) * n),
         *q = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n);
#define CG_INIT_ROW(i)                                                   \
  for (int k = -band; k <= band; k++) {                                  \
    int j = (i) + k;                                                     \
    if (j < 0) j += n;                                                   \
    if (j >= n) j -= n;                                                  \
    col[(size_t)(i) * nnz_row + k + band] = j;                           \
    val[(size_t)(i) * nnz_row + k + band] = k == 0 ? 4.0 * band : -1.0 / (1 + abs(k)); \
  }                                                                      \
  b[i] = 1.0 + ((i) % 17) * 0.01;                                        \
  x[i] = 0;                                                              \
  r[i] = b[i];                                                           \
  p[i] = b[i];
  if (g_parallel_init) {
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++) { CG_INIT_ROW(i) }
  } else {
    for (int i = 0; i < n; i++) { CG_INIT_ROW(i) }
  }
  double rho = 0;
#pragma omp parallel for schedule(static) reduction(+ : rho)
  for (int i = 0; i < n; i++) rho += r[i] * r[i];
  const double t0 = now();
  for (int it = 0; it < iters; it++) {
    double pq = 0;
#pragma omp parallel for schedule(static) reduction(+ : pq)
    for (int i = 0; i < n; i++) {
      double s = 0;
      for (int k = 0; k < nnz_row; k++) s += val[(size_t)i * nnz_row + k] * p[col[(size_t)i * nnz_row + k]];
      q[i] = s;
      pq += p[i] * s;
    }
    const double alpha = rho / pq;
    double rho_new = 0;
#pragma omp parallel for schedule(static) reduction(+ : rho_new)
    for (int i = 0; i < n; i++) {
      x[i] += alpha * p[i];
      r[i] -= alpha * q[i];
      rho_new += r[i] * r[i];
    }
    const double beta = rho_new / rho;
    rho = rho_new;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++) p[i] = r[i] + beta * p[i];
  }
  const double t = now() - t0;
  double sum = 0;
  for (int i = 0; i < n; i++) sum += x[i];
  printf("checksum %.10e\n", sum + sqrt(rho));
  free(val);
  free(col);
  free(x);
  free(r);
  free(p);
  free(q);
  free(b);
  return t;
}

/* ---- EP: Gaussian pairs from a linear congruential generator, NAS style ----- */
static double ep(int iters) {
  const long pairs = (g_bench ? 1L << 24 : 1L << 18) * iters;
  double sx = 0, sy = 0;
  long counts[10] = {0};
  const double t0 = now();
#pragma omp parallel reduction(+ : sx, sy)
  {
    long local[10] = {0};
#pragma omp for schedule(static)
    for (long k = 0; k < pairs; k++) {
      /* a stateless generator: the k-th pair from its index */
      uint64_t s = (uint64_t)k * 6364136223846793005ULL + 1442695040888963407ULL;
      s ^= s >> 33;
      s *= 0xff51afd7ed558ccdULL;
      s ^= s >> 33;
      const double u = 2.0 * ((s >> 11) * (1.0 / 9007199254740992.0)) - 1.0;
      s *= 0xc4ceb9fe1a85ec53ULL;
      s ^= s >> 33;
      const double v = 2.0 * ((s >> 11) * (1.0 / 9007199254740992.0)) - 1.0;
      const double t = u * u + v * v;
      if (t <= 1.0 && t > 0) {
        const double f = sqrt(-2.0 * log(t) / t);
        const double gx = u * f, gy = v * f;
        const int l = (int)fmax(fabs(gx), fabs(gy));
        if (l < 10) local[l]++;
        sx += gx;
        sy += gy;
      }
    }
    for (int l = 0; l < 10; l++) {
#pragma omp atomic
      counts[l] += local[l];
    }
  }
  const double t = now() - t0;
  long total = 0;
  for (int l = 0; l < 10; l++) total += counts[l] * (l + 1);
  printf("checksum %.10e\n", sx + sy + (double)total);
  return t;
}

/* ---- MG-style: V-cycles of smoothing, restriction and prolongation ---------- */
static void mg_smooth(double* u, const double* f, int n) {  /* red-black Gauss-Seidel */
  for (int color = 0; color < 2; color++) {
#pragma omp parallel for schedule(static)
    for (int i = 1; i < n - 1; i++)
      for (int j = 1 + (i + color) % 2; j < n - 1; j += 2)
        u[(size_t)i * n + j] = 0.25 * (u[(size_t)(i - 1) * n + j] + u[(size_t)(i + 1) * n + j] +
                                        u[(size_t)i * n + j - 1] + u[(size_t)i * n + j + 1] - f[(size_t)i * n + j]);
  }
}
static double mg(int iters) {
  const int levels = g_bench ? 11 : 8;  /* the finest grid is 2^levels + 1 points a side */
  double* u[16];
  double* f[16];
  int size[16];
  for (int l = 0; l < levels; l++) {
    size[l] = (1 << (levels - l)) + 1;
    u[l] = malloc(sizeof(double) * (size_t)size[l] * size[l]);
    f[l] = malloc(sizeof(double) * (size_t)size[l] * size[l]);
    const int n = size[l];
    if (g_parallel_init) {
#pragma omp parallel for schedule(static)
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
          u[l][(size_t)i * n + j] = 0;
          f[l][(size_t)i * n + j] = l == 0 ? ((i * 31 + j * 17) % 23 - 11) * 1e-3 : 0;
        }
    } else {
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
          u[l][(size_t)i * n + j] = 0;
          f[l][(size_t)i * n + j] = l == 0 ? ((i * 31 + j * 17) % 23 - 11) * 1e-3 : 0;
        }
    }
  }
  const double t0 = now();
  for (int it = 0; it < iters; it++) {
    for (int l = 0; l + 1 < levels; l++) {  /* down: smooth, restrict the right-hand side */
      mg_smooth(u[l], f[l], size[l]);
      const int nc = size[l + 1], nf = size[l];
#pragma omp parallel for schedule(static)
      for (int i = 1; i < nc - 1; i++)
        for (int j = 1; j < nc - 1; j++) {
          f[l + 1][(size_t)i * nc + j] = f[l][(size_t)(2 * i) * nf + 2 * j] * 4;
          u[l + 1][(size_t)i * nc + j] = 0;
        }
    }
    for (int l = levels - 1; l > 0; l--) {  /* up: prolong the correction, smooth */
      const int nc = size[l], nf = size[l - 1];
#pragma omp parallel for schedule(static)
      for (int i = 1; i < nf - 1; i++)
        for (int j = 1; j < nf - 1; j++) u[l - 1][(size_t)i * nf + j] += 0.5 * u[l][(size_t)(i / 2) * nc + j / 2];
      mg_smooth(u[l - 1], f[l - 1], size[l - 1]);
    }
  }
  const double t = now() - t0;
  double sum = 0;
  for (size_t i = 0; i < (size_t)size[0] * size[0]; i++) sum += u[0][i] * (double)(i % 7);
  for (int l = 0; l < levels; l++) {
    free(u[l]);
    free(f[l]);
  }
  printf("checksum %.10e\n", sum);
  return t;
}

/* ---- FT-style: 2D FFT by row transforms, a transpose and row transforms ----- */
typedef struct {
  double re, im;
} cplx;
static void fft_row(cplx* a, int n, int dir) {
  for (int i = 1, j = 0; i < n; i++) {  /* bit reversal */
    int bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      cplx t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
  }
  for (int len = 2; len <= n; len <<= 1) {
    const double ang = 2 * M_PI / len * dir;
    for (int i = 0; i < n; i += len)
      for (int k = 0; k < len / 2; k++) {
        const double c = cos(ang * k), s = sin(ang * k);
        cplx u = a[i + k], v = a[i + k + len / 2];
        cplx w = {v.re * c - v.im * s, v.re * s + v.im * c};
        a[i + k] = (cplx){u.re + w.re, u.im + w.im};
        a[i + k + len / 2] = (cplx){u.re - w.re, u.im - w.im};
      }
  }
}
static double ft(int iters) {
  const int n = g_bench ? 1024 : 128;
  cplx* a = malloc(sizeof(cplx) * (size_t)n * n);
  cplx* b = malloc(sizeof(cplx) * (size_t)n * n);
  if (g_parallel_init) {
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) a[(size_t)i * n + j] = (cplx){((i * 13 + j * 7) % 19) * 0.1, ((i + j) % 5) * 0.1};
  } else {
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) a[(size_t)i * n + j] = (cplx){((i * 13 + j * 7) % 19) * 0.1, ((i + j) % 5) * 0.1};
  }
  const double t0 = now();
  for (int it = 0; it < iters; it++) {
    const int dir = it % 2 ? -1 : 1;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++) fft_row(a + (size_t)i * n, n, dir);
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) b[(size_t)i * n + j] = a[(size_t)j * n + i];
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++) fft_row(b + (size_t)i * n, n, dir);
    cplx* t = a;
    a = b;
    b = t;
  }
  const double t = now() - t0;
  double sum = 0;
  for (size_t i = 0; i < (size_t)n * n; i++) sum += fabs(a[i].re) + fabs(a[i].im);
  free(a);
  free(b);
  printf("checksum %.10e\n", sum);
  return t;
}

/* ---- IS: integer sort by bucket counts (histograms merged under atomics) ---- */
static double is(int iters) {
  const int n = g_bench ? 1 << 23 : 1 << 16, maxkey = 1 << 16;
  int* key = malloc(sizeof(int) * n);
  int* count = malloc(sizeof(int) * maxkey);
  int* rank = malloc(sizeof(int) * n);
  if (g_parallel_init) {
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++) key[i] = (int)(((uint64_t)i * 2654435761u) % (uint64_t)maxkey);
  } else {
    for (int i = 0; i < n; i++) key[i] = (int)(((uint64_t)i * 2654435761u) % (uint64_t)maxkey);
  }
  long check = 0;
  const double t0 = now();
  for (int it = 0; it < iters; it++) {
    memset(count, 0, sizeof(int) * maxkey);
#pragma omp parallel
    {
      int* local = calloc(maxkey, sizeof(int));
#pragma omp for schedule(static)
      for (int i = 0; i < n; i++) local[key[i]]++;
#pragma omp critical
      for (int k = 0; k < maxkey; k++) count[k] += local[k];
      free(local);
#pragma omp barrier
#pragma omp single
      for (int k = 1; k < maxkey; k++) count[k] += count[k - 1];
#pragma omp for schedule(static)
      for (int i = 0; i < n; i++) rank[i] = count[key[i]] - 1;
    }
    check += rank[it % n] + rank[(n / 2 + it) % n];
  }
  const double t = now() - t0;
  long sum = 0;
  for (int i = 0; i < n; i += 7) sum += rank[i];
  free(key);
  free(count);
  free(rank);
  printf("checksum %.10e\n", (double)(sum + check));
  return t;
}

struct kernel {
  const char* name;
  double (*run)(int);
  int test_iters, bench_iters;
};
static const struct kernel kernels[] = {
    {"sor", sor, 4, 20},  {"jacobi", jacobi, 4, 20}, {"mm", mm, 1, 2}, {"cg", cg, 5, 30},
    {"ep", ep, 1, 2},     {"mg", mg, 2, 5},          {"ft", ft, 2, 4}, {"is", is, 2, 5},
};

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: kernels NAME [test|bench] [serial|parallel] [iterations]\n");
    return 2;
  }
  g_bench = argc > 2 && strcmp(argv[2], "bench") == 0;
  g_parallel_init = argc > 3 && strcmp(argv[3], "parallel") == 0;
  for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++) {
    if (strcmp(argv[1], kernels[k].name) != 0) continue;
    const int iters = argc > 4 ? atoi(argv[4]) : g_bench ? kernels[k].bench_iters : kernels[k].test_iters;
    const double t = kernels[k].run(iters);
    printf("kernel %s %s %s: %.6f s (%d threads)\n", argv[1], g_bench ? "bench" : "test",
           g_parallel_init ? "parallel" : "serial", t, omp_get_max_threads());
    return 0;
  }
  fprintf(stderr, "kernels: no kernel named %s\n", argv[1]);
  return 2;
}
