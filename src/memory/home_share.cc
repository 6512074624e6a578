#include "memory/home_share.h"

#include <sched.h>

#include <algorithm>

#include "common/clock.h"

namespace scopedsm {

namespace {

uint64_t round_up(uint64_t n, uint64_t to) { return (n + to - 1) / to * to; }

#if defined(__SANITIZE_THREAD__)
#define SCOPEDSM_HOME_SHARE_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SCOPEDSM_HOME_SHARE_TSAN 1
#endif
#endif

// A full memory fence. ThreadSanitizer does not model fences (GCC refuses
// them under -fsanitize=thread); there a sequentially consistent
// read-modify-write of an atomic of ours stands in (a locked instruction,
// hence a full barrier, on x86).
inline void full_fence([[maybe_unused]] std::atomic<uint64_t>& any) {
#ifdef SCOPEDSM_HOME_SHARE_TSAN
  any.fetch_add(0, std::memory_order_seq_cst);
#else
  std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
}

}  // namespace

namespace {
// share words, ring header, ring entries, seen bytes, probe word
uint64_t ring_offset(uint64_t num_pages) { return round_up(num_pages * 4, 64); }
}  // namespace

uint64_t HomeShare::seen_offset(uint64_t num_pages, uint64_t page) {
  return round_up(ring_offset(num_pages) + sizeof(RingHeader) + num_pages * 4, 64) + page;
}

uint64_t HomeShare::probe_offset(uint64_t num_pages) { return round_up(seen_offset(num_pages, num_pages), 64); }

uint64_t HomeShare::bytes_for(uint64_t num_pages, size_t page_size) {
  return round_up(probe_offset(num_pages) + 64, page_size);
}

HomeShare::HomeShare(std::byte* base, uint64_t num_pages) : capacity_(num_pages) {
  words_ = reinterpret_cast<std::atomic<uint32_t>*>(base);
  ring_ = reinterpret_cast<RingHeader*>(base + ring_offset(num_pages));
  entries_ = reinterpret_cast<std::atomic<uint32_t>*>(reinterpret_cast<std::byte*>(ring_) + sizeof(RingHeader));
  seen_ = reinterpret_cast<std::atomic<uint8_t>*>(base + seen_offset(num_pages, 0));
  probe_ = reinterpret_cast<std::atomic<uint32_t>*>(base + probe_offset(num_pages));
}

void HomeShare::record_copies(uint32_t first, uint32_t count, uint32_t epoch, uint64_t queue_pause_ns) const {
  for (uint32_t p = first; p < first + count; ++p) mark_copied(p, epoch, queue_pause_ns);
  // The copies are read after this point. Paired with the fence in drain():
  // a home write a copy misses is after the home's fence, so the drain that
  // follows that write sees the queued page (see the header).
  full_fence(ring_->tail);
}

void HomeShare::trap_settled(uint32_t page) const {
  std::atomic<uint32_t>& w = words_[page];
  uint32_t now = w.fetch_and(~kShareUntrapped, std::memory_order_seq_cst) & ~kShareUntrapped;
  // A copier that saw the page untrapped set kShareRetrap in that same
  // compare-and-swap, before our fetch_and; it sets kSharePushed after its
  // ring entry's tail increment, which the next drain's load of the tail sees.
  while ((now & kShareRetrap) && !(now & kSharePushed)) {
    sched_yield();
    now = w.load(std::memory_order_seq_cst);
  }
}

void HomeShare::mark_copied(uint32_t page, uint32_t epoch, uint64_t queue_pause_ns) const {
  std::atomic<uint32_t>& w = words_[page];
  uint32_t old = w.load(std::memory_order_seq_cst);
  bool queue = false;
  for (;;) {
    const uint32_t tag = std::min<uint32_t>(epoch + 1, kShareEpochMask);
    const uint32_t field = std::max(old & kShareEpochMask, tag);
    uint32_t next = (old & ~kShareEpochMask) | field;
    queue = (old & kShareUntrapped) && !(old & kShareRetrap);
    if (queue) next |= kShareRetrap;
    if (next == old || w.compare_exchange_weak(old, next, std::memory_order_seq_cst)) break;
  }
  if (queue) {
    if (queue_pause_ns != 0) sleep_ns(queue_pause_ns);
    const uint64_t at = ring_->tail.fetch_add(1, std::memory_order_seq_cst);
    entries_[at % capacity_].store(page + 1, std::memory_order_release);
    w.fetch_or(kSharePushed, std::memory_order_seq_cst);
  } else {
    // Someone else is queueing the page: wait until it is in the queue (a
    // few instructions, unless that copier was descheduled), or drained.
    uint32_t now = w.load(std::memory_order_seq_cst);
    while ((now & kShareRetrap) && !(now & kSharePushed)) {
      sched_yield();
      now = w.load(std::memory_order_seq_cst);
    }
  }
}

void HomeShare::drain(std::vector<uint32_t>* out) const {
  out->clear();
  full_fence(ring_->tail);
  const uint64_t tail = ring_->tail.load(std::memory_order_seq_cst);
  for (uint64_t i = ring_->head; i < tail; ++i) {
    std::atomic<uint32_t>& e = entries_[i % capacity_];
    uint32_t v;
    // A producer claims its entry and writes it two instructions later; it
    // may be descheduled in between, so yield rather than spin hard.
    while ((v = e.load(std::memory_order_acquire)) == 0) sched_yield();
    e.store(0, std::memory_order_relaxed);
    const uint32_t page = v - 1;
    std::atomic<uint32_t>& w = words_[page];
    // Its producer marks it queued right after writing the entry; clear
    // the bits only then, or that late mark would outlive the drain.
    uint32_t old = w.load(std::memory_order_seq_cst);
    for (;;) {
      if ((old & kShareRetrap) && !(old & kSharePushed)) {
        sched_yield();
        old = w.load(std::memory_order_seq_cst);
        continue;
      }
      if (w.compare_exchange_weak(old, old & kShareEpochMask, std::memory_order_seq_cst)) break;
    }
    out->push_back(page);
  }
  ring_->head = tail;
}

bool HomeShare::try_untrap(uint32_t page, uint32_t since_epoch) const {
  std::atomic<uint32_t>& w = words_[page];
  uint32_t old = w.load(std::memory_order_seq_cst);
  for (;;) {
    if ((old & (kShareUntrapped | kShareRetrap | kSharePushed)) != 0) return false;
    if ((old & kShareEpochMask) > since_epoch) return false;  // a copy was taken in epoch since_epoch or later
    if (w.compare_exchange_weak(old, old | kShareUntrapped, std::memory_order_seq_cst))
      return keep_untrapped_unless_seen(page);
  }
}

bool HomeShare::try_untrap_fresh(uint32_t page) const {
  uint32_t expected = 0;
  if (!words_[page].compare_exchange_strong(expected, kShareUntrapped, std::memory_order_seq_cst)) return false;
  return keep_untrapped_unless_seen(page);
}

bool HomeShare::keep_untrapped_unless_seen(uint32_t page) const {
  // The untrap is visible (the compare-and-swap); only now read the byte a
  // one-sided reader writes before it reads the word (see the header).
  full_fence(ring_->tail);
  if (!seen(page)) return true;
  // Trapped again. A copier that queued the page meanwhile leaves its bits;
  // the next drain clears them and notices the page, although the home
  // never wrote it untrapped: a rare spurious notice (other copies are
  // dropped and fetched again), never a missed one.
  words_[page].fetch_and(~kShareUntrapped, std::memory_order_seq_cst);
  return false;
}

void HomeShare::reset(uint32_t page, bool untrapped) const {
  seen_[page].store(0, std::memory_order_seq_cst);
  words_[page].store(untrapped ? kShareUntrapped : 0, std::memory_order_seq_cst);
}

}  // namespace scopedsm
