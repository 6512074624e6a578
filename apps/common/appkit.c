/* appkit.c - see appkit.h. */
#include "appkit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void appkit_result(const char *app, const char *variant, int procs, const char *size, double time_s, int verified) {
  printf("SCOPEDSM_RESULT {\"app\":\"%s\",\"variant\":\"%s\",\"procs\":%d,\"size\":\"%s\",\"time_s\":%.6f,"
         "\"verified\":%s}\n",
         app, variant, procs, size, time_s, verified ? "true" : "false");
  fflush(stdout);
}

static void usage_exit(const char *usage, int status) {
  fprintf(status == 0 ? stdout : stderr, "%s", usage);
  exit(status);
}

void appkit_opts(int argc, char **argv, const char *letters, const char **values, const char *usage) {
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) usage_exit(usage, 0);
    if (a[0] != '-' || a[1] == '\0' || a[2] != '\0' || strchr(letters, a[1]) == NULL) {
      fprintf(stderr, "%s: unknown argument '%s'\n", argv[0], a);
      usage_exit(usage, 2);
    }
    if (i + 1 >= argc) {
      fprintf(stderr, "%s: option %s needs a value\n", argv[0], a);
      usage_exit(usage, 2);
    }
    values[strchr(letters, a[1]) - letters] = argv[++i];
  }
}

long appkit_long(const char *value, char opt, long dflt, long min, long max) {
  if (value == NULL) return dflt;
  long v;
  char *end = NULL;
  errno = 0;
  if (value[0] == '2' && value[1] == '^') {
    long k = strtol(value + 2, &end, 10);
    v = (k >= 0 && k < 62) ? (1L << k) : -1;
  } else {
    v = strtol(value, &end, 10);
  }
  if (errno != 0 || end == value || *end != '\0' || v < min || v > max) {
    fprintf(stderr, "option -%c: '%s' is not an integer from %ld to %ld\n", opt, value, min, max);
    exit(2);
  }
  return v;
}

double appkit_double(const char *value, char opt, double dflt, double min, double max) {
  if (value == NULL) return dflt;
  char *end = NULL;
  errno = 0;
  double v = strtod(value, &end);
  if (errno != 0 || end == value || *end != '\0' || !(v >= min && v <= max)) {
    fprintf(stderr, "option -%c: '%s' is not a number from %g to %g\n", opt, value, min, max);
    exit(2);
  }
  return v;
}

/* The splitmix64 finalizer: a bijective mix with good avalanche. */
uint64_t appkit_hash64(uint64_t key) {
  uint64_t z = key + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double appkit_unit(uint64_t key) { return (double)(appkit_hash64(key) >> 11) * (1.0 / 9007199254740992.0); }

uint64_t appkit_key2(uint64_t a, uint64_t b) { return appkit_hash64(a * 0x100000001b3ULL ^ appkit_hash64(b)); }

void appkit_block(long n, int parts, int part, long *lo, long *hi) {
  long base = n / parts, extra = n % parts;
  *lo = part * base + (part < extra ? part : extra);
  *hi = *lo + base + (part < extra ? 1 : 0);
}

long appkit_band_rows(long rows, int procs) { return (rows + procs - 1) / procs; }

long appkit_band_bytes(long rows, long row_bytes, int procs, long page) {
  long b = appkit_band_rows(rows, procs) * row_bytes;
  return (b + page - 1) / page * page;
}

long appkit_band_offset(long row, long rows, long row_bytes, int procs, long page) {
  long br = appkit_band_rows(rows, procs);
  return (row / br) * appkit_band_bytes(rows, row_bytes, procs, page) + (row % br) * row_bytes;
}

int appkit_homes(const char *value, const char *app) {
  if (value == NULL || strcmp(value, "band") == 0) return 0;
  if (strcmp(value, "0") == 0) return 1;
  fprintf(stderr, "%s: -p must be 'band' or '0', not '%s'\n", app, value);
  exit(2);
}
