// The engine's own hints (SCOPEDSM_AUTO_HINTS, docs/PROTOCOL.md §2.7): the
// faults go to the stream table (protocol/auto_hints.h, pure), and its
// advice becomes prefetch and release hints, as if the program had written
// them.
//
// Decides: which faults the streams see (none while prepare() pins its
// ranges, none in a range the program's own prefetch hints named this
// interval: those take precedence), and how a stream's advice is cut into
// hints (a sequential stream's steps as one range, a strided one's one page
// each). The prefetch distance (PrefetchDistance) moves with the automatic
// runs' fate, which the Prefetcher reports.
//
// Events: a fault (on_fault), a program's prefetch hint that took effect
// (program_hint), an automatic run used, late or wasted (distance()).
//
// Thread owner: the application thread.
#pragma once

#include <cstdint>

#include "protocol/auto_hints.h"
#include "protocol/engine_ops.h"
#include "protocol/hints.h"

namespace scopedsm {

class Prefetcher;
class Releaser;

class AutoHinter {
 public:
  // On with SCOPEDSM_AUTO_HINTS (read in place). Test faults: auto-no-stream
  // (the streams never confirm) and auto-over-hints (the program's hints do
  // not take precedence).
  AutoHinter(const EngineContext& c, EngineOps* ops, Prefetcher* prefetcher, Releaser* release)
      : c_(c),
        ops_(ops),
        prefetcher_(prefetcher),
        release_(release),
        over_hints_(c.test_fault(TestFault::kAutoOverHints)),
        streams_(c.cache->capacity() / 2, c.cache->capacity() / 2, c.test_fault(TestFault::kAutoNoStream)) {}

  // A fault on `page` (`demand`: it fetched the page).
  void on_fault(uint64_t page, bool demand);
  // The program's prefetch hint for [first, first + count) took effect:
  // faults in it are the program's to follow this interval.
  void program_hint(uint64_t first, uint64_t count) { named_.add(first, count, ops_->epoch()); }
  PrefetchDistance& distance() { return streams_.distance(); }

 private:
  EngineContext c_;
  EngineOps* ops_;
  Prefetcher* prefetcher_;
  Releaser* release_;
  const bool over_hints_;
  StreamTable streams_;
  NamedRanges named_;  // the program's prefetch hints this interval
};

}  // namespace scopedsm
