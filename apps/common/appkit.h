/*
 * appkit.h - small helpers shared by the ScopeDSM application suite.
 *
 * Option parsing, deterministic pseudo-random values that depend only on an
 * index (so every process can generate its own part of an input and get the
 * same numbers as the sequential program), and the one machine-readable
 * result line every application prints on rank 0:
 *
 *   SCOPEDSM_RESULT {"app":"sor","variant":"dsm","procs":2,
 *                    "size":"n=2048 iters=100","time_s":1.234,"verified":true}
 *
 * (printed on one line). Nothing here touches shared memory or calls the DSM.
 */
#ifndef SCOPEDSM_APPKIT_H
#define SCOPEDSM_APPKIT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Which build this is: "dsm" (linked to libscopedsm) or "seq" (linked to
 * libscopedsm_seq). apps/CMakeLists.txt defines it per executable. */
#ifndef SCOPEDSM_VARIANT
#define SCOPEDSM_VARIANT "dsm"
#endif

/* Prints the SCOPEDSM_RESULT line on stdout and flushes it. */
void appkit_result(const char *app, const char *variant, int procs, const char *size, double time_s, int verified);

/* Command-line parsing. appkit_opts walks argv; for each "-x value" pair
 * whose letter appears in `letters` it stores the value in values[index of
 * x]. "-h" and unknown options print `usage` and exit with status 2. */
void appkit_opts(int argc, char **argv, const char *letters, const char **values, const char *usage);
/* Converts an option value to an integer in [min, max]; exits with status 2
 * and a message naming the option otherwise. A missing value (NULL) gives
 * `dflt`. Accepts a plain decimal number or 2^k. */
long appkit_long(const char *value, char opt, long dflt, long min, long max);
double appkit_double(const char *value, char opt, double dflt, double min, double max);
/* The -p option of the banded apps: NULL or "band" -> 0 (each band homed at
   its process), "0" -> 1 (everything at rank 0, a naive first port). Any
   other value ends the program with a message naming `app`. */
int appkit_homes(const char *value, const char *app);

/* Deterministic pseudo-random numbers from an index: the same key gives the
 * same value in every process and every build. */
uint64_t appkit_hash64(uint64_t key);
/* Uniform in [0, 1). */
double appkit_unit(uint64_t key);
/* Mixes two keys into one. */
uint64_t appkit_key2(uint64_t a, uint64_t b);

/* Block partition of [0, n) over `parts`: the first n % parts parts get one
 * more element. */
void appkit_block(long n, int parts, int part, long *lo, long *hi);

/* Banded layout of a row-distributed matrix for the DSM: `rows` rows of
 * `row_bytes` bytes in `procs` bands of appkit_band_rows() rows each, every
 * band padded to whole pages of `page` bytes, so that
 * jia_alloc3(procs * band_bytes, band_bytes, 0) makes process p the home of
 * exactly the rows of band p: rows [p * band_rows, (p + 1) * band_rows). */
long appkit_band_rows(long rows, int procs);
long appkit_band_bytes(long rows, long row_bytes, int procs, long page);
/* Byte offset of row `row` from the start of the allocation. */
long appkit_band_offset(long row, long rows, long row_bytes, int procs, long page);

#ifdef __cplusplus
}
#endif

#endif /* SCOPEDSM_APPKIT_H */
