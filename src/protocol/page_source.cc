#include "protocol/page_source.h"

#include <array>
#include <cinttypes>
#include <cstring>

#include "common/log.h"
#include "protocol/messages.h"

namespace scopedsm {

uint32_t NodeCopySource::fetch(uint64_t first, uint32_t count, int home, uint32_t epoch, std::byte* dst) {
  const int local = node_->local_index(home);
  if (!skip_record_) region_->peer_share(local).record_copies(static_cast<uint32_t>(first), count, epoch);
  // The home and other writers may change other words of the pages while
  // we copy; docs/MEMORY_MODEL.md ("Copies taken while the home writes")
  // says why that is still correct under scope consistency.
  std::memcpy(dst, region_->peer_page(local, first), region_->page_size() * count);
  return 0;
}

uint32_t MessageSource::fetch(uint64_t first, uint32_t count, int home, uint32_t epoch, std::byte* dst) {
  if (write_vector_) {
    fetch_blocks(first, count, home, epoch, dst);
    return 0;
  }
  const size_t bytes = page_size_ * count;
  MPI_Request req;
  MPI_Irecv(dst, static_cast<int>(bytes), MPI_BYTE, home, kTagPage, t_->comm(), &req);
  t_->send(home, kTagRequest, encode(GetPageMsg{static_cast<uint32_t>(first), epoch, count}, t_->next_seq()));
  MPI_Status status;
  t_->wait_request(&req, "a page (GETPGRANT)", home, &status);
  int got = 0;
  MPI_Get_count(&status, MPI_BYTE, &got);
  if (got != static_cast<int>(bytes))
    fatal("protocol error: %u page(s) from %" PRIu64 " from rank %d arrived with %d bytes, expected %zu", count, first,
          home, got, bytes);
  t_->received_page(home, bytes);
  return 0;
}

void MessageSource::fetch_blocks(uint64_t first, uint32_t count, int home, uint32_t epoch, std::byte* dst) {
  const size_t bs = wvec_->block_size();
  const uint64_t all = wvec_->all_blocks();
  GetPageVecMsg msg{static_cast<uint32_t>(first), epoch, count, {}};
  msg.versions.resize(sizeof(uint64_t) * count);
  for (uint32_t i = 0; i < count; ++i) {
    const uint64_t v = (*pages_)[first + i].wvec_version;
    std::memcpy(msg.versions.data() + sizeof(uint64_t) * i, &v, sizeof v);
  }
  const size_t most = (2 * sizeof(uint64_t) + page_size_) * count;
  if (reply_.size() < most) reply_.resize(most);
  MPI_Request req;
  MPI_Irecv(reply_.data(), static_cast<int>(most), MPI_BYTE, home, kTagPage, t_->comm(), &req);
  t_->send(home, kTagRequest, encode(msg, t_->next_seq()));
  MPI_Status status;
  t_->wait_request(&req, "blocks of a page (GETPV's answer)", home, &status);
  int got = 0;
  MPI_Get_count(&status, MPI_BYTE, &got);
  t_->received_page(home, static_cast<size_t>(got));
  // Per page: version, block mask, the masked blocks.
  const std::byte* at = reply_.data();
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
    std::byte* page = dst + page_size_ * i;
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

uint32_t RmaSource::fetch(uint64_t first, uint32_t count, int home, uint32_t epoch, std::byte* dst) {
  const size_t ps = region_->page_size();
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
  uint32_t words[kMaxFetchPages];
  MPI_Request reqs[2];
  windows_->get_share(words, sizeof(uint32_t) * count, home, HomeShare::word_offset(first), &reqs[0]);
  windows_->get_page(dst, ps * count, home, first * ps, &reqs[1]);
  t_->poll_request(&reqs[0], "a one-sided read of pages' records (MPI_Rget)", home);
  t_->poll_request(&reqs[1], "a one-sided read of pages (MPI_Rget)", home);
  // Pages the home does not trap would go unrecorded: fetch them the
  // recorded way, each stretch of them with one message; the home traps
  // them from then on.
  uint32_t fallbacks = 0;
  for (uint32_t i = 0; i < count;) {
    if ((words[i] & kShareUntrapped) == 0 || skip_share_check_) {
      ++i;
      continue;
    }
    uint32_t j = i + 1;
    while (j < count && (words[j] & kShareUntrapped) != 0) ++j;
    fallbacks += j - i;
    fallback_->fetch(first + i, j - i, home, epoch, dst + i * ps);
    i = j;
  }
  t_->read_one_sided(home, ps * count, ps * (count - fallbacks));
  return fallbacks;
}

}  // namespace scopedsm
