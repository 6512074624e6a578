/*
 * scopedsm-info: prints what scopedsm_describe() says about this build, the
 * MPI library it is linked to and the configuration the SCOPEDSM_*
 * environment variables select, one "key: value" per line. It initializes
 * nothing (no MPI_Init), so it runs without a launcher.
 *
 * Exit status: 0 if the configuration is valid, 1 if a SCOPEDSM_* variable
 * is invalid (the output then has a "config_error:" line naming it), 2 on
 * bad usage. `scopedsm info` runs this and formats its output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scopedsm.h"

int main(int argc, char **argv) {
  if (argc > 1) {
    if (strcmp(argv[1], "--version") == 0) {
      printf("%s\n", scopedsm_version());
      return 0;
    }
    fprintf(stderr,
            "scopedsm-info: unexpected argument '%s'\n"
            "usage: scopedsm-info [--version]  (or run 'scopedsm info' for a formatted report)\n",
            argv[1]);
    return 2;
  }
  size_t len = 1 << 16;
  char *buf = calloc(len, 1);
  if (buf == NULL) {
    fprintf(stderr, "scopedsm-info: out of memory\n");
    return 2;
  }
  int rc = scopedsm_describe(buf, len);
  /* Print up to the last non-NUL byte, dropping NULs inside the text: some
   * MPI libraries count the terminating NUL in MPI_Get_library_version's
   * length, which would otherwise cut the description short. */
  size_t end = len - 1;
  while (end > 0 && buf[end - 1] == '\0') --end;
  for (size_t i = 0; i < end; ++i)
    if (buf[i] != '\0') fputc(buf[i], stdout);
  if (end > 0 && buf[end - 1] != '\n') fputc('\n', stdout);
  free(buf);
  return rc == 0 ? 0 : 1;
}
