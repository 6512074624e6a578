#include "runtime/blocked_read.h"

#include <sys/syscall.h>

#include <cstdio>

namespace scopedsm {

bool thread_blocked_in_read(long tid, int fd) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/self/task/%ld/syscall", tid);
  FILE* f = std::fopen(path, "r");
  if (f == nullptr) return false;
  // "<number> <arg1 in hex> ..." while in a call; "running" or "-1 ..." otherwise.
  long nr = -1;
  unsigned long arg1 = 0;
  const bool parsed = std::fscanf(f, "%ld %lx", &nr, &arg1) == 2;
  std::fclose(f);
  return parsed && nr == SYS_read && fd >= 0 && arg1 == static_cast<unsigned long>(fd);
}

}  // namespace scopedsm
