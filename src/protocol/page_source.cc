#include "protocol/page_source.h"

#include <algorithm>
#include <array>
#include <cinttypes>
#include <cstring>

#include "common/log.h"
#include "protocol/messages.h"

namespace scopedsm {

bool PageSource::requests_done(PendingFetch* f) {
  // MPI_Request_get_status leaves a completed request to finish(), whose
  // wait reads its status (the byte count); MPI_Test would free it.
  for (MPI_Request& r : f->reqs) {
    int done = 0;
    MPI_Request_get_status(r, &done, MPI_STATUS_IGNORE);
    if (!done) return false;
  }
  return true;
}

void NodeCopySource::start(PendingFetch* f) {
  const int local = node_->local_index(f->home);
  if (!skip_record_)
    region_->peer_share(local).record_copies(static_cast<uint32_t>(f->first), f->count, f->epoch, queue_pause_ns_);
  // The home and other writers may change other words of the pages while
  // we copy; docs/MEMORY_MODEL.md ("Copies taken while the home writes")
  // says why that is still correct under scope consistency.
  std::memcpy(f->dst, region_->peer_page(local, f->first), region_->page_size() * f->count);
}

void MessageSource::start(PendingFetch* f) {
  f->reply.clear();
  if (write_vector_) {
    start_blocks(f);
    return;
  }
  const size_t bytes = page_size_ * f->count;
  MPI_Irecv(f->dst, static_cast<int>(bytes), MPI_BYTE, f->home, page_tag(f->lane), t_->comm(), &f->reqs[0]);
  t_->send(f->home, kTagRequest,
           encode(GetPageMsg{static_cast<uint32_t>(f->first), f->epoch, f->count, f->lane}, t_->next_seq()));
}

uint32_t MessageSource::finish(PendingFetch* f) {
  MPI_Status status;
  t_->wait_request(&f->reqs[0], f->reply.empty() ? "a page (GETPGRANT)" : "blocks of a page (GETPV's answer)", f->home,
                   &status);
  int got = 0;
  MPI_Get_count(&status, MPI_BYTE, &got);
  if (!f->reply.empty()) {
    finish_blocks(f, got);
    return 0;
  }
  const size_t bytes = page_size_ * f->count;
  if (got != static_cast<int>(bytes))
    fatal("protocol error: %u page(s) from %" PRIu64 " from rank %d arrived with %d bytes, expected %zu", f->count,
          f->first, f->home, got, bytes);
  t_->received_page(f->home, bytes);
  return 0;
}

void MessageSource::start_blocks(PendingFetch* f) {
  GetPageVecMsg msg{static_cast<uint32_t>(f->first), f->epoch, f->count, f->lane, {}};
  msg.versions.resize(sizeof(uint64_t) * f->count);
  for (uint32_t i = 0; i < f->count; ++i) {
    const uint64_t v = (*pages_)[f->first + i].wvec_version;
    std::memcpy(msg.versions.data() + sizeof(uint64_t) * i, &v, sizeof v);
  }
  f->reply.resize((2 * sizeof(uint64_t) + page_size_) * f->count);
  MPI_Irecv(f->reply.data(), static_cast<int>(f->reply.size()), MPI_BYTE, f->home, page_tag(f->lane), t_->comm(),
            &f->reqs[0]);
  t_->send(f->home, kTagRequest, encode(msg, t_->next_seq()));
}

void MessageSource::finish_blocks(PendingFetch* f, int got) {
  const int home = f->home;
  const uint64_t first = f->first;
  const uint32_t count = f->count;
  t_->received_page(home, static_cast<size_t>(got));
  const size_t bs = wvec_->block_size();
  const uint64_t all = wvec_->all_blocks();
  // Per page: version, block mask, the masked blocks.
  const std::byte* at = f->reply.data();
  const std::byte* const end = at + got;
  for (uint32_t i = 0; i < count; ++i) {
    uint64_t version = 0, mask = 0;
    if (end - at < static_cast<std::ptrdiff_t>(2 * sizeof(uint64_t)))
      fatal("protocol error: GETPV answer from rank %d for page %" PRIu64 " is truncated", home, first + i);
    std::memcpy(&version, at, sizeof version);
    std::memcpy(&mask, at + sizeof version, sizeof mask);
    at += 2 * sizeof(uint64_t);
    if ((mask & ~all) != 0)
      fatal("protocol error: GETPV answer from rank %d names blocks beyond page %" PRIu64 "'s end", home, first + i);
    std::byte* page = f->dst + page_size_ * i;
    uint32_t blocks = 0;
    for (uint32_t b = 0; b < wvec_->blocks(); ++b) {
      if ((mask & (uint64_t{1} << b)) == 0) continue;
      if (static_cast<size_t>(end - at) < bs)
        fatal("protocol error: GETPV answer from rank %d for page %" PRIu64 " is truncated", home, first + i);
      std::memcpy(page + bs * b, at, bs);
      at += bs;
      ++blocks;
    }
    (*pages_)[first + i].wvec_version = version;
    ++stats_->wvec_fetches;
    stats_->wvec_blocks_fetched += blocks;
    if (mask != all) {
      ++stats_->wvec_partial_fetches;
      stats_->wvec_bytes_saved += page_size_ - bs * blocks;
    }
  }
  if (at != end)
    fatal("protocol error: GETPV answer from rank %d for %u page(s) from %" PRIu64 " has %td bytes too many", home,
          count, first, end - at);
}

void RmaSource::start(PendingFetch* f) {
  const size_t ps = region_->page_size();
  const uint64_t first = f->first;
  const uint32_t count = f->count;
  const int home = f->home;
  // A one-sided read is not ordered after our messages to the home, as a
  // GETP is: wait until the home has applied every DIFF we sent it (one
  // sent at an eviction may still be on its way).
  t_->acks().wait_for(home);
  // First the marks, in the home's memory before anything is read: from
  // now on the home cannot untrap the pages without seeing them. They stay
  // until the pages are allocated again, so once per page is enough.
  bool unmarked = false;
  for (uint64_t p = first; p < first + count; ++p) unmarked = unmarked || !(*pages_)[p].seen_marked;
  if (unmarked && !skip_seen_mark_) {
    static const auto ones = [] {
      std::array<uint8_t, kMaxFetchPages> a;
      a.fill(1);
      return a;
    }();
    windows_->put_share_flushed(ones.data(), count, home, HomeShare::seen_offset(region_->num_pages(), first));
    for (uint64_t p = first; p < first + count; ++p) (*pages_)[p].seen_marked = true;
  }
  // A page marked seen that a read found trapped stays trapped while the
  // mark stands (untraps refuse it, memory/home_share.h): its share word
  // need not be read again. The run's words are read unless all are so.
  bool known = true;
  for (uint64_t p = first; p < first + count && known; ++p) known = (*pages_)[p].seen_trapped;
  if (known) {
    std::fill(f->words, f->words + count, 0u);
    f->reqs[0] = MPI_REQUEST_NULL;
  } else {
    windows_->get_share(f->words, sizeof(uint32_t) * count, home, HomeShare::word_offset(first), &f->reqs[0]);
  }
  windows_->get_page(f->dst, ps * count, home, first * ps, &f->reqs[1]);
}

uint32_t RmaSource::finish(PendingFetch* f) {
  const size_t ps = region_->page_size();
  const int home = f->home;
  const uint32_t count = f->count;
  t_->poll_request(&f->reqs[0], "a one-sided read of pages' records (MPI_Rget)", home);
  t_->poll_request(&f->reqs[1], "a one-sided read of pages (MPI_Rget)", home);
  // Pages the home does not trap: nobody recorded these copies, so the home
  // may write the pages without a notice. They are kept until our next
  // acquire, which drops them (Coherence::invalidate): under scope
  // consistency a home write is ours to see only after an acquire. The home
  // is asked to trap them again (RECORD), so that later copies are kept.
  //
  // A next-touch pending page is the exception (docs/PROTOCOL.md §6c): its
  // home traps it before it leaves the next-touch point and writes nothing
  // in the point, and it stays trapped while pending. Found untrapped, it
  // was read in that window: the copy is as good as a recorded one, and a
  // RECORD would make the home note the page as written, beating the touch.
  const auto unrecorded = [this, f](uint32_t i) {
    return (f->words[i] & kShareUntrapped) != 0 && !skip_share_check_ && track_untrapped_ &&
           !(*pages_)[f->first + i].nt_pending;
  };
  uint32_t untrapped = 0;
  for (uint32_t i = 0; i < count;) {
    if (!unrecorded(i)) {
      PageMeta& m = (*pages_)[f->first + i];
      if ((f->words[i] & kShareUntrapped) == 0 || skip_share_check_) m.seen_trapped = m.seen_marked;
      ++i;
      continue;
    }
    uint32_t j = i + 1;
    while (j < count && unrecorded(j)) ++j;
    for (uint32_t k = i; k < j; ++k) (*pages_)[f->first + k].unrecorded = true;
    untrapped += j - i;
    t_->send(home, kTagRequest,
             encode(RecordCopiesMsg{static_cast<uint32_t>(f->first + i), f->epoch, j - i}, t_->next_seq()));
    i = j;
  }
  t_->read_one_sided(home, ps * count, ps * count);
  return untrapped;
}

}  // namespace scopedsm
