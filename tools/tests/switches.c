/*
 * switches.c - switches jia_config's four protocol features away from their
 * configured values at run time. The statistics file must show the values
 * in force at exit, not those of start-up (tools test run_stats_switches).
 */
#include <stdio.h>
#include <jia.h>

int main(int argc, char **argv) {
  jia_init(argc, argv);
  jia_config(HMIG, ON);       /* home_migration=on */
  jia_config(ADWD, OFF);      /* write_detect=all */
  jia_config(BROADCAST, OFF); /* barrier=central */
  jia_config(WVEC, ON);       /* write_vector=on */
  int *x = (int *)jia_alloc(4096);
  if (jiapid == 0) *x = 1;
  jia_barrier();
  int ok = *x == 1;
  jia_barrier();
  if (jiapid == 0) printf("switches: %s on %d processes\n", ok ? "ok" : "FAILED", jiahosts);
  jia_exit();
  return ok ? 0 : 1;
}
