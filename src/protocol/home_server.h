// Requests served at a page's home, on the service thread:
//   GETP       send the page's current contents to the requester
//   DIFF       apply a writer's diffs to home pages, then acknowledge
//   HOMECLAIM  first-touch directory: the first claimant of a page is its home
//   ATOMIC     apply an atomic operation to a word of a home page, in our
//              memory, with the CPU's atomics (memory/atomic_word.h), and
//              answer with the old value
//
// A GETP or DIFF for a page not homed here is a protocol error, except while
// this process completes a barrier (`in_barrier`): the barrier may be moving
// the page's home here (home migration, docs/PROTOCOL.md §6a), and a process
// that completed it first may already ask. Such a GETP (or ATOMIC) waits until the
// application thread has moved the homes and calls serve_deferred(); then
// it is served, or found an error after all. Such a DIFF is applied at once
// (our memory of the page is the copy that becomes the home page), so that
// it stays ahead of its sender's next request; serve_deferred() checks that
// the page did move here.
//
// Thread owner: whichever thread serves (the service thread, or the
// application thread while it waits); Service's serve mutex makes them take
// turns, so the directory needs no lock of its own.
#pragma once

#include <atomic>
#include <string>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "memory/page_table.h"
#include "memory/region.h"
#include "memory/write_vectors.h"
#include "protocol/messages.h"
#include "stats/stats.h"
#include "transport/transport.h"

namespace scopedsm {

class HomeServer {
 public:
  // `torn_atomics`, `drop_block`, `whole_word_diffs`: the negative controls
  // atomic-torn, wvec-drop-block and whole-word-apply only. `wvec`: the home's write vectors (null: GETPV is
  // answered with whole pages).
  HomeServer(int rank, int size, Transport* transport, Region* region, const PageTable* pages,
             const std::atomic<bool>* in_barrier, ServiceCounters* stats, bool torn_atomics = false,
             WriteVectors* wvec = nullptr, bool drop_block = false, bool whole_word_diffs = false)
      : rank_(rank),
        size_(size),
        transport_(transport),
        region_(region),
        pages_(pages),
        in_barrier_(in_barrier),
        stats_(stats),
        torn_atomics_(torn_atomics),
        wvec_(wvec),
        drop_block_(drop_block),
        whole_word_diffs_(whole_word_diffs) {}

  // Requests (Service::dispatch calls the on() that takes the message).
  void on(const Incoming& in, const GetPageMsg& msg);
  void on(const Incoming& in, const GetPageVecMsg& msg);
  void on(const Incoming& in, const RecordCopiesMsg& msg);
  void on(const Incoming& in, const DiffMsg& msg);
  void on(const Incoming& in, const HomeClaimMsg& msg);
  void on(const Incoming& in, const AtomicMsg& msg);

  // The application thread, at the end of a barrier, once the homes have
  // moved and `in_barrier` is clear: serves the GETPs deferred during the
  // barrier, in arrival order, and checks the pages DIFFs reached early.
  void serve_deferred();

 private:
  // apply_diff's PageLocator; `target` is the DIFF's (server, sender).
  static std::byte* locate_home_page(void* target, uint32_t page);
  bool homed_here(uint32_t page) const;
  bool in_barrier() const;
  std::string homed_elsewhere(uint32_t page) const;  // for protocol-error reports

  struct EarlyDiff {
    int source;
    uint32_t page;
  };

  const int rank_;
  const int size_;
  Transport* const transport_;
  Region* const region_;
  const PageTable* const pages_;
  const std::atomic<bool>* const in_barrier_;
  ServiceCounters* const stats_;
  const bool torn_atomics_;
  WriteVectors* const wvec_;
  const bool drop_block_;
  const bool whole_word_diffs_;
  // Defers `in` to the barrier's end if a barrier may be moving `page` here;
  // a request for a page homed elsewhere is an error otherwise. True if deferred.
  bool defer_unless_homed(const char* what, const Incoming& in, uint32_t page);
  std::vector<Incoming> deferred_;       // GETPs and ATOMICs waiting for the barrier's end
  std::vector<EarlyDiff> early_diffs_;   // pages DIFFs reached during a barrier
  std::unordered_map<uint32_t, int32_t> directory_;  // first-touch homes decided here
};

}  // namespace scopedsm
