#include "protocol/home_migration.h"

#include "common/log.h"
#include "protocol/releaser.h"
#include "protocol/write_detection.h"

namespace scopedsm {

void HomeMigration::migrate(const std::vector<WriteNotice>& notices) {
  std::vector<uint32_t> gained, lost;
  uint64_t rehomed = 0;
  for (const WriteNotice& n : notices) {
    PageMeta& m = (*c_.pages)[n.page];
    // A next-touch pending page named by the barrier is settled, moved or
    // not: touched (its toucher moves it), written by one writer that
    // still has its copy (moves too), or written by its home, by several,
    // or by a writer that lost its copy (stays).
    const bool was_pending = m.nt_pending;
    m.nt_pending = false;
    m.nt_touched = false;
    if (!n.offers_home) continue;  // a merge keeps an offer only for a page with one writer, or one toucher
    if (n.writer == c_.rank && was_pending) ++rehomed;
    if (n.writer == c_.rank) {
      // We offered because we hold the copy, and nothing since the offer
      // (we were in the barrier) can have dropped it.
      if (m.state != PageState::kReadOnly && !c_.test_fault(TestFault::kStaleHomeOffer))
        fatal("internal error: offered to become the home of page %u, which is %s here", n.page,
              page_state_name(m.state));
      gained.push_back(n.page);
    } else if (is_home_state(m.state)) {
      lost.push_back(n.page);
    }
    m.home.store(n.writer, std::memory_order_release);
    // Our `seen` mark (one-sided reads, §2.3) is at the old home: the new
    // one must get its own before we read the page from it one-sided, or it
    // could untrap the page under our copy.
    m.seen_marked = false;
    m.seen_trapped = false;
    // A write vector's version is the old home's; the new one's differ.
    m.wvec_version = 0;
    c_.wvec->forget(n.page);
  }
  if (gained.empty() && lost.empty()) return;
  // Our cached copy, in our memory at the page's place, is the page now
  // (its cache slot is freed with the transition). Trapped until
  // WriteDetection::untrap_after_barrier finds nobody else holds a copy.
  // The protection (read) does not change.
  c_.fsm->to_pages(gained, PageState::kHomeClean, Cause::kHomeMigration);
  if (!lost.empty() && !c_.test_fault(TestFault::kKeepLostHome)) {
    // Our memory of the page is a copy now, and stale as soon as the new
    // home writes: invalid, its memory discarded with the other copies'.
    c_.fsm->to_pages(lost, PageState::kInvalid, Cause::kHomeMigration);
    for (uint32_t p : lost) ops_->list_stale(p);
    // The retrap queue may still hold a lost page (a copy taken since our
    // barrier began): drained first (drain_retraps passes over pages that
    // are not ours), so that resetting the share word cannot let a later
    // return of the page queue it twice.
    detect_->drain_retraps();
    for (uint32_t p : lost) c_.share->reset(p, false);
  }
  c_.stats->homes_gained += gained.size();
  c_.stats->homes_lost += lost.size();
  c_.stats->next_touch_pages_rehomed += rehomed;
  release_->homes_in(gained.size());
  release_->homes_out(lost.size());
}

}  // namespace scopedsm
