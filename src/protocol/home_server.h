// Requests served at a page's home, on the service thread:
//   GETP       send the page's current contents to the requester
//   DIFF       apply a writer's diffs to home pages, then acknowledge
//   HOMECLAIM  first-touch directory: the first claimant of a page is its home
#pragma once

#include <cstdint>
#include <unordered_map>

#include "runtime/state.h"
#include "transport/transport.h"

namespace scopedsm {

class HomeServer {
 public:
  explicit HomeServer(RuntimeState* state) : s_(state) {}

  void on_get_page(const Incoming& in, Reader* r);
  void on_diff(const Incoming& in, Reader* r);
  void on_home_claim(const Incoming& in, Reader* r);

 private:
  static std::byte* locate_home_page(void* self, uint32_t page);
  RuntimeState* s_;
  std::unordered_map<uint32_t, int32_t> directory_;  // first-touch homes decided here
};

}  // namespace scopedsm
