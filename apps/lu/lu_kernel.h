/*
 * lu_kernel.h - blocked LU factorization without pivoting (as in the
 * SPLASH-2 LU kernel's contiguous-block version, written from its published
 * description).
 *
 * The n x n matrix is cut into nb x nb blocks of bs x bs doubles; each block
 * is stored contiguously (row-major, leading dimension bs), reached through
 * a table blk[I * nb + J]. Step K of the factorization:
 *   1. factor the diagonal block (K, K) into L and U;
 *   2. perimeter: blocks (I, K) below it become A_IK U_KK^-1 and blocks
 *      (K, J) right of it become L_KK^-1 A_KJ;
 *   3. interior: A_IJ -= A_IK A_KJ for I, J > K.
 * The matrix is diagonally dominant, so no pivoting is needed.
 */
#ifndef SCOPEDSM_APPS_LU_KERNEL_H
#define SCOPEDSM_APPS_LU_KERNEL_H

/* Fills block (I, J) with its entries of the test matrix: uniform noise in
 * [-0.5, 0.5) plus n on the diagonal. */
void lu_init_block(double *b, long I, long J, long bs, long n);

/* Runs the factorization in place. owner[I * nb + J] is the process that
 * updates block (I, J); this process (me) does the work of the blocks it
 * owns and calls sync() where all processes must meet: once after the
 * diagonal factorization and once after the perimeter of each step (2 * nb
 * calls in all). The diagonal block of step K+1 is factored by its owner
 * right after its interior update of step K. With every block owned by me
 * and a sync() that does nothing, this is the sequential algorithm, with the
 * same operations on every block in the same order. */
void lu_factor(double *const *blk, const int *owner, long nb, long bs, int me, void (*sync)(void));

/* The sequential reference: factors a private copy of the test matrix and
 * returns its blocks, nb * nb blocks of bs * bs doubles one after another
 * (block (I, J) at offset (I * nb + J) * bs * bs). The caller frees it. */
double *lu_reference(long n, long bs);

/* Compares every block with the reference. The arithmetic on each block is
 * the same, so they are expected to be bit-identical; the check allows a
 * relative 1e-12. Prints the first mismatch and returns 0 if there is one. */
int lu_check(double *const *blk, const double *ref, long n, long bs);

#endif
