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

}  // namespace scopedsm
