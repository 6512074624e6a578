#include "common/thread_slice.h"

#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

namespace scopedsm {

namespace {

// The kernel's struct sched_attr (include/uapi/linux/sched/types.h), whose
// first 48 bytes have been stable since Linux 3.14; glibc 2.36 does not
// declare it.
struct SchedAttr {
  uint32_t size;
  uint32_t sched_policy;
  uint64_t sched_flags;
  int32_t sched_nice;
  uint32_t sched_priority;
  uint64_t sched_runtime;
  uint64_t sched_deadline;
  uint64_t sched_period;
};

}  // namespace

int request_thread_slice(uint64_t ns) {
#ifdef SYS_sched_setattr
  const pid_t tid = static_cast<pid_t>(syscall(SYS_gettid));
  errno = 0;
  const int nice = getpriority(PRIO_PROCESS, static_cast<id_t>(tid));
  if (nice == -1 && errno != 0) return errno;
  const int policy = sched_getscheduler(0);
  if (policy < 0) return errno;
  if (policy != SCHED_OTHER && policy != SCHED_BATCH) return EPERM;  // real-time or idle: not ours to change
  SchedAttr attr{};
  attr.size = sizeof attr;
  attr.sched_policy = static_cast<uint32_t>(policy);
  attr.sched_nice = nice;
  attr.sched_runtime = ns;
  if (syscall(SYS_sched_setattr, 0, &attr, 0u) != 0) return errno;
  return 0;
#else
  (void)ns;
  return ENOSYS;
#endif
}

}  // namespace scopedsm
