// Adaptive write detection (docs/PROTOCOL.md §2.3): which home pages the
// home writes without a fault (untrapped), and what a copy of one costs.
//
// Decides: whether a new allocation's home pages start untrapped; whether a
// first-touch home untraps its page; which home pages a barrier untraps
// (every other copy dropped by its notices); what a copy others took of an
// untrapped page makes us note (drain_retraps: the page is trapped again and
// noted as written in every open interval). Under cache-only write detection
// (CO-WD) home pages are never trapped and copies note nothing; with every
// write trapped (SCOPEDSM_WRITE_DETECT=all, jia_config(ADWD, OFF)) nothing is
// untrapped. Both are read in place from the settings (EngineContext::config:
// Config::write_detect_cache_only, and Config::write_detect_all, which
// jia_config(ADWD) switches there).
//
// Events: a synchronization point (drain_retraps), a barrier's merged
// notices (untrap_after_barrier), allocation and first touch (the
// untrapped_* queries), jia_config(ADWD) having switched the setting
// (switched).
//
// Thread owner: the application thread. Shares with the service thread and
// node peers only the HomeShare words (atomics).
#pragma once

#include <cstdint>
#include <vector>

#include "protocol/engine_ops.h"
#include "protocol/notices.h"

namespace scopedsm {

class WriteDetection {
 public:
  WriteDetection(const EngineContext& c, EngineOps* ops) : c_(c), ops_(ops) {}

  // Every home write trapped (never under CO-WD).
  bool all() const { return c_.config->write_detect_all && !cache_only(); }
  // CO-WD, for the whole run.
  bool cache_only() const { return c_.config->write_detect_cache_only; }
  // Whether a new allocation's home pages start untrapped (a pinned home
  // page never traps, whatever the mode).
  bool untrapped_at_allocation(bool home_pinned) const { return !all() || home_pinned; }
  // A first touch made us the home of `page`: whether it starts untrapped
  // (nobody fetched it between the claim and now).
  bool untrap_fresh(uint32_t page) { return !all() && c_.share->try_untrap_fresh(page); }

  // jia_config(ADWD) has switched Config::write_detect_all: trapping every
  // write again traps the pages untrapped now, noting them as written in
  // the open intervals.
  void switched();
  // Drains the retrap queue. `quiet` (right after a next-touch point): our
  // pending pages, trapped there, are not noted, since we wrote nothing
  // since our barrier began and every copy taken since has all our writes.
  void drain_retraps(bool quiet = false);
  // After barrier `completed_epoch`: stops trapping writes to home pages
  // whose every remote copy that barrier invalidated.
  void untrap_after_barrier(const std::vector<WriteNotice>& notices, uint32_t completed_epoch, bool home_migration);

  // Whether notice `n` makes every other process drop its copy of a page
  // homed at `rank`, so that the home may untrap it (if it is home-clean).
  static bool drops_every_copy(const WriteNotice& n, int rank, bool home_migration);

 private:
  EngineContext c_;
  EngineOps* ops_;
  std::vector<uint32_t> retraps_;  // scratch for drain_retraps
};

}  // namespace scopedsm
