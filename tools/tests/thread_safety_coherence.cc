// The thread-safety check's negative control for the coherence engine
// (CTest tools.thread_safety_coherence_*): clang's -Wthread-safety must
// reject Coherence::move_homes called without the serve mutex, and accept
// it under the lock taken through Coherence::serve_mutex() (-DSCOPEDSM_LOCKED),
// as SyncClient's barrier takes it. src/protocol/coherence.h;
// tools/thread_safety.sh.
#include <vector>

#include "protocol/coherence.h"

void end_of_barrier(scopedsm::Coherence& engine, const std::vector<scopedsm::WriteNotice>& merged) {
#ifdef SCOPEDSM_LOCKED
  scopedsm::MutexLock serving(engine.serve_mutex());
#endif
  engine.move_homes(merged);
}

int main() { return 0; }
