// Requests served at a page's home, on the service thread:
//   GETP       send the page's current contents to the requester
//   DIFF       apply a writer's diffs to home pages, then acknowledge
//   HOMECLAIM  first-touch directory: the first claimant of a page is its home
//
// Thread owner: whichever thread serves (the service thread, or the
// application thread while it waits); Service's serve mutex makes them take
// turns, so the directory needs no lock of its own.
#pragma once

#include <cstdint>
#include <unordered_map>

#include "memory/page_table.h"
#include "memory/region.h"
#include "protocol/messages.h"
#include "stats/stats.h"
#include "transport/transport.h"

namespace scopedsm {

class HomeServer {
 public:
  HomeServer(int rank, int size, Transport* transport, Region* region, const PageTable* pages,
             ServiceCounters* stats)
      : rank_(rank), size_(size), transport_(transport), region_(region), pages_(pages), stats_(stats) {}

  // Requests (Service::dispatch calls the on() that takes the message).
  void on(const Incoming& in, const GetPageMsg& msg);
  void on(const Incoming& in, const DiffMsg& msg);
  void on(const Incoming& in, const HomeClaimMsg& msg);

 private:
  static std::byte* locate_home_page(void* self, uint32_t page);

  const int rank_;
  const int size_;
  Transport* const transport_;
  Region* const region_;
  const PageTable* const pages_;
  ServiceCounters* const stats_;
  std::unordered_map<uint32_t, int32_t> directory_;  // first-touch homes decided here
};

}  // namespace scopedsm
