// The thread-safety check's negative control (CTest tools.thread_safety_*):
// clang's -Wthread-safety must reject the write of a GUARDED_BY field made
// without its mutex, and accept the same write under the lock
// (-DSCOPEDSM_LOCKED). src/common/thread_annotations.h; tools/thread_safety.sh.
#include "common/thread_annotations.h"

namespace {

class Counter {
 public:
  void add() {
#ifdef SCOPEDSM_LOCKED
    scopedsm::MutexLock lock(&mu_);
#endif
    ++count_;
  }

 private:
  scopedsm::Mutex mu_;
  int count_ GUARDED_BY(mu_) = 0;
};

}  // namespace

int main() {
  Counter c;
  c.add();
  return 0;
}
