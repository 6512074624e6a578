/*
 * mm_kernel.h - the matrix multiply kernel shared by every MM variant.
 *
 * C = A * B for n x n matrices of doubles. The inner-product form is used:
 * C[i][j] = sum_k A[i][k] * B[k][j], with B stored transposed (row j of BT is
 * column j of B), so each entry of C is the dot product of two rows. The
 * kernel computes 4 x 4 tiles of C at a time to reuse loads.
 *
 * The entries of A and B are small integers (-3..3) stored as doubles, so
 * every partial sum is an exactly representable integer: the product is
 * exact whatever the summation order, and verification compares exactly.
 *
 * Rows are reached through tables of row pointers so that each variant can
 * lay them out as it likes.
 */
#ifndef SCOPEDSM_APPS_MM_KERNEL_H
#define SCOPEDSM_APPS_MM_KERNEL_H

/* The entries of A and B, as functions of their position. */
double mm_a(long i, long k);
double mm_b(long k, long j);

/* Fills rows [lo, hi) of A and of BT (BT[j][k] = B[k][j]). Either table may be NULL. */
void mm_init_a(double *const *a, long n, long lo, long hi);
void mm_init_bt(double *const *bt, long n, long lo, long hi);

/* Computes rows [lo, hi) of C = A * B from A and BT. */
void mm_multiply(double *const *c, double *const *a, double *const *bt, long n, long lo, long hi);

/* The sequential reference product, computed privately with a plain i-k-j
 * loop (a different order; exact all the same). Returns n*n doubles, row-major. */
double *mm_reference(long n);

/* Compares rows [lo, hi) of C with the reference; must be exactly equal.
 * Prints the first mismatch and returns 0 if there is one. */
int mm_check(double *const *c, const double *ref, long n, long lo, long hi);

#endif
