// Home migration at barriers (docs/PROTOCOL.md §6a, and §6c's moves of
// next-touch pending pages): which pages this process offers to take home,
// and the move itself.
//
// Decides: whether a written page's barrier notice offers the home (home
// migration on, or the page next-touch pending, and our copy still the
// page's contents); at the barrier, from the merged notices (every process
// alike), which pages this process gains or loses as their home.
//
// Events: a barrier's notices being built (offers) and a completed barrier
// (migrate, before anything else changes a page: the caller holds the
// service's serve mutex, since the service thread reads PageMeta::home).
//
// Reads SCOPEDSM_HOME_MIGRATION in place (Config::home_migration, which
// jia_config(HMIG) and jia_lbarrier's moves switch there).
//
// Thread owner: the application thread.
#pragma once

#include <vector>

#include "protocol/engine_ops.h"
#include "protocol/notices.h"

namespace scopedsm {

class WriteDetection;
class Releaser;

class HomeMigration {
 public:
  HomeMigration(const EngineContext& c, EngineOps* ops, WriteDetection* detect, Releaser* release)
      : c_(c), ops_(ops), detect_(detect), release_(release) {}

  // SCOPEDSM_HOME_MIGRATION, as switched now.
  bool enabled() const { return c_.config->home_migration; }
  // Whether our barrier notice for page `m`, which we wrote, offers to take
  // its home: only a copy we still hold is the page's contents (our writes
  // went home as diffs, and nobody else wrote it if the offer survives the
  // merge); nor an unrecorded one: its home may have written the page since
  // without a notice (§2.3), which would make a second writer.
  bool offers(const PageMeta& m) const {
    return (enabled() || m.nt_pending) && m.state == PageState::kReadOnly && !m.unrecorded;
  }
  // The pages whose single writer (or toucher) offered to become their
  // home get it as their home, on every process; every page the notices
  // name is no longer next-touch pending.
  void migrate(const std::vector<WriteNotice>& notices);

 private:
  EngineContext c_;
  EngineOps* ops_;
  WriteDetection* detect_;
  Releaser* release_;
};

}  // namespace scopedsm
