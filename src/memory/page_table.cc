#include "memory/page_table.h"

#include <sys/mman.h>

namespace scopedsm {

const char* page_state_name(PageState state) {
  switch (state) {
    case PageState::kUnallocated: return "unallocated";
    case PageState::kInvalid: return "invalid";
    case PageState::kReadOnly: return "read-only";
    case PageState::kReadWrite: return "read-write";
    case PageState::kPrefetched: return "prefetched";
    case PageState::kInFlight: return "in-flight";
    case PageState::kHomeClean: return "home-clean";
    case PageState::kHomeDirty: return "home-dirty";
    case PageState::kHomeUntrapped: return "home-untrapped";
  }
  return "?";
}

PageTable::~PageTable() {
  if (meta_ != nullptr) munmap(meta_, num_pages_ * sizeof(PageMeta));
}

Status PageTable::init(uint64_t num_pages) {
  // Zero-filled anonymous memory is a valid PageMeta array: every page
  // starts kUnallocated with zeroed atomics.
  void* p = mmap(nullptr, num_pages * sizeof(PageMeta), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return Status::Error("could not reserve the page table");
  meta_ = static_cast<PageMeta*>(p);
  num_pages_ = num_pages;
  return Status::Ok();
}

}  // namespace scopedsm
