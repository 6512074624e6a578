// Release hints and out-of-core homes (docs/PROTOCOL.md §2.6; CONFIG.md,
// SCOPEDSM_RELEASE_POLICY, SCOPEDSM_HOME_MEMORY, SCOPEDSM_HOME_BACKING):
// what giving a page back means, and when it happens.
//
// Decides: which pages a release hint gives back (one call late per call
// site, ReleaseLag), now (aggressive) or buffered by priority until room is
// needed (buffered); which released copies make room for a prefetch or a
// fault's slot (room_for); which released home pages (file backing) go back
// to the disk when home pages in memory exceed SCOPEDSM_HOME_MEMORY. Keeps
// the count of home pages in memory, and reserves disk for home pages about
// to be written (ending the job if the disk is full).
//
// Events: a release hint, the program's or the automatic hints'
// (release); a page used again (forget: its release no longer holds); home
// pages gained, lost or read ahead (homes_in, homes_out).
//
// Reads SCOPEDSM_RELEASE_POLICY and SCOPEDSM_HOME_MEMORY in place
// (EngineContext::config).
//
// Thread owner: the application thread.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "protocol/engine_ops.h"
#include "protocol/hints.h"

namespace scopedsm {

class Releaser {
 public:
  Releaser(const EngineContext& c, EngineOps* ops) : c_(c), ops_(ops) {}

  // The range `tag` named before is given back now (aggressive) or
  // buffered by `priority`. `automatic` for the engine's own hints, which
  // lag by stream slot and count apart from the program's.
  void release(uint64_t first, uint64_t count, uint32_t priority, uint64_t tag, bool automatic);
  // Up to `want` free cache slots, freeing slots of released copies if
  // needed; never evicts anything else. Returns how many.
  uint32_t room_for(uint32_t want);
  // `page` is used again (or its copy is gone): a release buffered for it
  // no longer holds.
  void forget(uint32_t page) { released_copies_.remove(page); }
  // Reserves disk for pages about to be written (file backing); ends the
  // job if full. `context` names the operation in the report.
  void reserve_disk(uint64_t first, uint64_t count, const char* context);
  // Home pages that came into memory (allocation, first touch, a gained
  // home, a read-ahead) or left it (a lost home).
  void homes_in(uint64_t n) { homes_resident_ += n; }
  void homes_out(uint64_t n) { homes_resident_ -= std::min<uint64_t>(homes_resident_, n); }
  uint64_t homes_resident() const { return homes_resident_; }

 private:
  // Gives back cached copies (sorted): a dirty one's diff goes home first.
  void release_copies(std::vector<uint32_t>& sorted_pages);
  // Gives back the memory of home pages (sorted), file backing only.
  void release_homes(std::vector<uint32_t>& sorted_pages);
  // Buffered home releases beyond SCOPEDSM_HOME_MEMORY are given back.
  void trim_homes();
  // SCOPEDSM_RELEASE_POLICY=buffered (else aggressive).
  bool buffered() const { return c_.config->release_policy == ReleasePolicy::kBuffered; }
  // SCOPEDSM_HOME_MEMORY in pages, 0 for no limit.
  uint64_t home_memory_pages() const {
    return c_.config->home_memory == 0 ? 0 : c_.config->home_memory / c_.region->page_size();
  }

  EngineContext c_;
  EngineOps* ops_;
  ReleaseLag release_lag_;         // the program's releases, by call site
  ReleaseLag auto_release_lag_;    // SCOPEDSM_AUTO_HINTS releases, by stream slot
  ReleaseBuffer released_copies_;  // cached pages released, buffered
  ReleaseBuffer released_homes_;   // home pages released, buffered (file backing)
  uint64_t homes_resident_ = 0;    // home pages counted as in memory (SCOPEDSM_HOME_MEMORY)
};

}  // namespace scopedsm
