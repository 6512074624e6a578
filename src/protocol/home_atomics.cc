#include "protocol/home_atomics.h"

#include <cstring>

#include "protocol/prefetcher.h"

namespace scopedsm {

uint64_t HomeAtomics::atomic(uint64_t page, uint32_t offset, AtomicOp op, AtomicType type, uint64_t operand,
                             uint64_t expected, const char* call) {
  PageMeta& m = (*c_.pages)[page];
  if (m.home.load(std::memory_order_relaxed) == kHomeUnknown) ops_->prepare(page, 1, Access::kRead, call);
  // A copy on its way must arrive before the atomic's new value is written into it.
  prefetcher_->settle(page);
  const int home = m.home.load(std::memory_order_relaxed);
  const bool torn = c_.test_fault(TestFault::kAtomicTorn);
  uint64_t old = 0;
  if (home == c_.rank) {
    old = apply_atomic(ops_->memory(page) + offset, op, type, operand, expected, torn);
    c_.wvec->note_blocks(static_cast<uint32_t>(page), c_.wvec->mask_for(offset, atomic_type_size(type)));
  } else if (std::byte* at_home = ops_->source_for(home)->home_memory(home, page); at_home != nullptr) {
    old = apply_atomic(at_home + offset, op, type, operand, expected, torn);
  } else {
    old = ops_->atomic_at_home(home, AtomicMsg{static_cast<uint32_t>(page), offset, static_cast<uint32_t>(op),
                                               static_cast<uint32_t>(type), operand, expected});
  }
  ++c_.stats->atomics;
  const uint64_t now = atomic_result(op, type, old, operand, expected);
  if (now == old) return old;  // nothing written
  // Our copy sees our own atomic; the twin too, so the diff leaves the word
  // to the home (a plain write of the same word in this interval is a race).
  if (m.state == PageState::kReadOnly || m.state == PageState::kReadWrite || m.state == PageState::kPrefetched) {
    const size_t n = atomic_type_size(type);
    std::memcpy(ops_->memory(page) + offset, &now, n);  // little-endian: the low bytes
    if (m.state == PageState::kReadWrite) std::memcpy(c_.cache->twin(m.slot) + offset, &now, n);
  }
  c_.stack->note(static_cast<uint32_t>(page));
  return old;
}

}  // namespace scopedsm
