#include "protocol/write_detection.h"

#include <algorithm>

#include "common/clock.h"

namespace scopedsm {

void WriteDetection::switched() {
  if (!all()) return;
  PageTable& pages = *c_.pages;
  // Writes made untrapped in this interval are noted now, as a retrap would.
  for (uint64_t p = 0; p < pages.allocated(); ++p) {
    if (pages[p].state != PageState::kHomeUntrapped || pages[p].home_pinned) continue;
    c_.stack->note_everywhere(static_cast<uint32_t>(p));
    c_.fsm->to(p, PageState::kHomeDirty, Cause::kWriteDetectAll);
    ops_->mark_dirty(p);
  }
}

void WriteDetection::drain_retraps(bool quiet) {
  c_.share->drain(&retraps_);
  // CO-WD: copies change nothing at the home; every cache is dropped at
  // every acquire anyway. (The drain clears the pages' queue bits.)
  if (cache_only()) return;
  PageTable& pages = *c_.pages;
  for (uint32_t p : retraps_) {
    // A page whose home has just moved away (HomeMigration): the copy was
    // taken since our barrier began, we have not written the page since,
    // and the barrier's notice invalidates that copy. Nothing to note.
    if (!is_home_state(pages[p].state)) continue;
    if (pages[p].home_pinned) continue;  // never trapped: its copies are unrecorded instead
    if (quiet && pages[p].nt_pending && pages[p].state == PageState::kHomeClean) continue;
    // The copy taken may be older than writes we made since, in any open
    // critical section: every open level gets the notice.
    c_.stack->note_everywhere(p);
    ++c_.stats->retraps;
    if (pages[p].state == PageState::kHomeUntrapped) {
      c_.fsm->to(p, PageState::kHomeDirty, Cause::kRetrap);
      ops_->mark_dirty(p);
    }
  }
}

bool WriteDetection::drops_every_copy(const WriteNotice& n, int rank, bool home_migration) {
  // Only a notice that makes every other process drop its copy will do:
  // written by us alone or by several (a page written only by another
  // process stays cached there). With home migration on, not a page
  // several wrote: another writer will copy it again, and the copy would
  // make us note it as written at our next synchronization (a retrap),
  // so it would never have a single writer to move to.
  if (n.writer != rank && (n.writer != kMultipleWriters || home_migration)) return false;
  // A next-touch move to a reader: other readers may keep their copies.
  return !n.touch_only;
}

void WriteDetection::untrap_after_barrier(const std::vector<WriteNotice>& notices, uint32_t completed_epoch,
                                          bool home_migration) {
  if (all() || cache_only()) return;  // CO-WD: home pages are untrapped from the start
  std::vector<uint32_t> untrap;
  bool slept = false;
  for (const WriteNotice& n : notices) {
    if (!drops_every_copy(n, c_.rank, home_migration)) continue;
    if ((*c_.pages)[n.page].state != PageState::kHomeClean) continue;
    // Test only: a late home, so that readers can copy the page first.
    if (c_.test_fault(TestFault::kSlowUntrap) && !slept) sleep_ns(50'000'000);
    slept = true;
    // Not a page copied in the interval this barrier ends, although the
    // notice dropped that copy: its readers most often read it again (a
    // matrix row every iteration), and a copy taken untrapped costs a
    // conservative notice (drain_retraps), so untrapping it would end every
    // interval in one more notice and refetch (docs/PROTOCOL.md §2.3).
    const uint32_t since = c_.test_fault(TestFault::kUntrapCopied) ? completed_epoch + 1 : completed_epoch;
    if (c_.share->try_untrap(n.page, since)) {
      untrap.push_back(n.page);
      c_.wvec->forget(n.page);  // its writes go unobserved from now on
    }
  }
  std::sort(untrap.begin(), untrap.end());
  c_.fsm->to_pages(untrap, PageState::kHomeUntrapped, Cause::kUntrap);
  c_.stats->untraps += untrap.size();
}

}  // namespace scopedsm
