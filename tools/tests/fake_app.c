/*
 * fake_app.c - an "application" for testing `scopedsm bench`: it prints the
 * SCOPEDSM_RESULT line the real applications print, and claims to have
 * verified its result only in its sequential build (named *_seq). bench must
 * then report the DSM runs as unverified and exit non-zero.
 */
#include <stdio.h>
#include <string.h>

#include <jia.h>

int main(int argc, char **argv) {
  size_t len = strlen(argv[0]);
  int seq = len >= 4 && strcmp(argv[0] + len - 4, "_seq") == 0;
  jia_init(argc, argv);
  jia_barrier();
  if (jiapid == 0)
    printf("SCOPEDSM_RESULT {\"app\":\"fake\",\"variant\":\"%s\",\"procs\":%d,\"size\":\"tiny\","
           "\"time_s\":0.001,\"verified\":%s}\n",
           seq ? "seq" : "dsm", jiahosts, seq ? "true" : "false");
  jia_exit();
  return 0;
}
