#include "protocol/page_source.h"

#include <cinttypes>
#include <cstring>

#include "common/log.h"
#include "protocol/messages.h"

namespace scopedsm {

void NodeCopySource::fetch(uint64_t page, int home, uint32_t epoch, std::byte* dst) {
  const int local = node_->local_index(home);
  if (!skip_record_) region_->peer_share(local).record_copy(static_cast<uint32_t>(page), epoch);
  // The home and other writers may change other words of the page while we
  // copy; docs/MEMORY_MODEL.md ("Copies taken while the home writes") says
  // why that is still correct under scope consistency.
  std::memcpy(dst, region_->peer_page(local, page), region_->page_size());
}

void MessageSource::fetch(uint64_t page, int home, uint32_t epoch, std::byte* dst) {
  MPI_Request req;
  MPI_Irecv(dst, static_cast<int>(page_size_), MPI_BYTE, home, kTagPage, t_->comm(), &req);
  t_->send(home, kTagRequest, encode(GetPageMsg{static_cast<uint32_t>(page), epoch}, t_->next_seq()));
  MPI_Status status;
  t_->wait_request(&req, "a page (GETPGRANT)", home, &status);
  int got = 0;
  MPI_Get_count(&status, MPI_BYTE, &got);
  if (got != static_cast<int>(page_size_))
    fatal("protocol error: page %" PRIu64 " from rank %d arrived with %d bytes, expected %zu", page, home, got,
          page_size_);
  t_->traffic().count_received_page(page_size_);
}

void RmaSource::fetch(uint64_t page, int home, uint32_t epoch, std::byte* dst) {
  // First the mark, in the home's memory before anything is read: from now
  // on the home cannot untrap the page without seeing it. It stays until
  // the page is allocated again, so once per page is enough.
  bool& marked = (*pages_)[page].seen_marked;
  if (!marked && !skip_seen_mark_) {
    const uint8_t one = 1;
    windows_->put_share_flushed(&one, 1, home, HomeShare::seen_offset(region_->num_pages(), page));
    marked = true;
  }
  uint32_t word = 0;
  MPI_Request reqs[2];
  windows_->get_share(&word, sizeof word, home, HomeShare::word_offset(page), &reqs[0]);
  windows_->get_page(dst, region_->page_size(), home, page * region_->page_size(), &reqs[1]);
  t_->wait_request(&reqs[0], "a one-sided read of a page's record (MPI_Rget)", home);
  t_->wait_request(&reqs[1], "a one-sided read of a page (MPI_Rget)", home);
  if ((word & kShareUntrapped) != 0 && !skip_share_check_) {
    // The home writes the page without trapping: this copy would go
    // unrecorded. Fetch it the recorded way; the home traps it from then on.
    ++fallbacks_;
    fallback_->fetch(page, home, epoch, dst);
    return;
  }
  t_->traffic().count_received_page(region_->page_size());
}

}  // namespace scopedsm
