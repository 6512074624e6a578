/* A program whose main recurses until its stack is exhausted: on ScopeDSM's
 * OpenMP runtime the master's stack is in the shared region, with a guard
 * page below it, and the job ends saying that the stack overflowed (not a
 * silent overwrite of the globals below it, not an unexplained crash). */
#include <stdio.h>
#include <string.h>

static void deep(int n, volatile char* prev) {
  volatile char frame[65536];
  memset((char*)frame, n, sizeof frame);
  frame[0] = prev != NULL ? prev[0] : 0;
  if (n > 0) deep(n - 1, frame);
}

int main(void) {
  deep(1000000, NULL);
  printf("stack_overflow: the stack did not overflow\n");
  return 0;
}
