/*
 * sor_kernel.h - the red-black SOR kernel shared by every SOR variant.
 *
 * The grid has n x n interior points plus a fixed boundary: rows and columns
 * 0..n+1. Point (i, j) is red when i + j is even and black otherwise. As in
 * the Rice SOR program, the two colours live in separate arrays of rows of
 * W = (n+2)/2 doubles: point (i, j) is element j/2 of row i of its colour's
 * array. Every neighbour of a point has the other colour, so updating one
 * colour reads only the other one and the order of updates inside a
 * half-sweep does not matter: every variant computes bit-identical grids.
 *
 * Rows are reached through a table of row pointers so that each variant can
 * lay rows out as it likes (bands padded to whole pages for the DSM, bands
 * with halo rows for MPI, one block for the sequential reference).
 */
#ifndef SCOPEDSM_APPS_SOR_KERNEL_H
#define SCOPEDSM_APPS_SOR_KERNEL_H

#define SOR_RED 0
#define SOR_BLACK 1
#define SOR_OMEGA 1.25

/* Doubles per row of one colour. n must be even. */
long sor_width(long n);

/* Writes the initial values of both colours in rows [lo, hi), columns 0..n+1. */
void sor_init_rows(double *const *red, double *const *black, long lo, long hi, long n);

/* Relaxes the interior points of `color` in rows [lo, hi) (1 <= lo, hi <= n+1)
 * with over-relaxation factor omega. mine[] are the rows of that colour,
 * other[] the rows of the other colour. */
void sor_sweep(double *const *mine, double *const *other, int color, long lo, long hi, long n, double omega);

/* The sequential reference: allocates both colours privately, runs `iters`
 * iterations, and returns them in *red_out and *black_out (one block each,
 * row i at offset i * sor_width(n)). The caller frees them. */
void sor_reference(long n, long iters, double **red_out, double **black_out);

/* Compares rows [lo, hi) of a computed grid with the reference. Returns 1 if
 * every value is within 1e-12 (the arithmetic is identical, so they are
 * expected to be bit-identical); otherwise prints the first mismatch to
 * stderr and returns 0. */
int sor_check_rows(double *const *red, double *const *black, const double *ref_red, const double *ref_black, long lo,
                   long hi, long n);

#endif
