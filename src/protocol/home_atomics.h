// Atomics at the home (docs/MEMORY_MODEL.md, "Atomics at the home";
// docs/PROTOCOL.md): an atomic operation on a word of a shared page runs
// where the page's home is.
//
// Decides: where the operation runs (in the home's memory with the CPU's
// atomics, when the home is this process or its page source maps the
// home's memory here; else an ATOMIC request its home server answers), and
// what our side keeps of it: our copy and its twin get the new value (so
// no diff carries the word), and a word that changed is noted as written
// in the open intervals.
//
// Events: an atomic call (atomic).
//
// Thread owner: the application thread.
#pragma once

#include <cstdint>

#include "memory/atomic_word.h"
#include "protocol/engine_ops.h"

namespace scopedsm {

class Prefetcher;

class HomeAtomics {
 public:
  HomeAtomics(const EngineContext& c, EngineOps* ops, Prefetcher* prefetcher)
      : c_(c), ops_(ops), prefetcher_(prefetcher) {}

  // The operation on the word at byte `offset` of `page`. A first-touch
  // page nobody has touched is touched (for reading) first (EngineOps::
  // prepare); a copy of it in flight is settled first. Our memory is
  // EngineOps::memory, a node peer's the page source's home_memory, and a
  // request goes through EngineOps::atomic_at_home. Returns the word's bits
  // before the operation (a result equal to them writes nothing here). The arguments must have passed
  // atomic_request_error; `call` names the API call for errors.
  uint64_t atomic(uint64_t page, uint32_t offset, AtomicOp op, AtomicType type, uint64_t operand, uint64_t expected,
                  const char* call);

 private:
  EngineContext c_;
  EngineOps* ops_;
  Prefetcher* prefetcher_;
};

}  // namespace scopedsm
