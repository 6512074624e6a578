// Two of JIAJIA's optimisations (docs/PROTOCOL.md §6b), each shown acting
// by its counters:
//
// Write vectors (WVEC, SCOPEDSM_WRITE_VECTOR, jia_config(WVEC)): a refetch
// by message of a stale copy brings only the blocks written since. The
// values are checked in every configuration; the counters only where pages
// travel by message (node sharing off and SCOPEDSM_FETCH=message, as
// tests/CMakeLists.txt runs mpi.wvec.np3): the other sources copy whole
// pages.
//
// Cache-only write detection (CO-WD, SCOPEDSM_WRITE_DETECT=cache-only): a
// home write is never trapped even while others hold copies, and those
// copies are dropped at the next acquire although no notice names them.
//
// And one rule of the adaptive detection that is the default (ADWD): a
// page others only read is not untrapped again under them.
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "jia.h"
#include "support/test_util.h"

using namespace scopedsm_test;

namespace {

bool env_is(const char* name, const char* value) {
  const char* v = std::getenv(name);
  return v != nullptr && std::string(v) == value;
}

// Pages travel by GETP/GETPV here, so the write-vector counters must move.
bool by_message() { return env_is("SCOPEDSM_NODE_SHARING", "off") && env_is("SCOPEDSM_FETCH", "message"); }

struct Counts {
  uint64_t fetches, partial, blocks, saved;
  static Counts now() {
    return {counter("wvec_fetches"), counter("wvec_partial_fetches"), counter("wvec_blocks_fetched"),
            counter("wvec_bytes_saved")};
  }
  Counts operator-(const Counts& o) const {
    return {fetches - o.fetches, partial - o.partial, blocks - o.blocks, saved - o.saved};
  }
};

// Every word of the page is what `expect` says it is.
void check_page(const uint64_t* a, uint64_t (*expect)(size_t)) {
  for (size_t w = 0; w < page() / 8; ++w) ASSERT_EQ(a[w], expect(w)) << "word " << w << " on rank " << rank();
}

// jia_config(ADWD)'s setting for the configured detection: OFF selects the
// fixed one (every write trapped, or cache-only).
int adwd() {
  const char* v = std::getenv("SCOPEDSM_WRITE_DETECT");
  return v == nullptr || std::string(v) == "adaptive" ? ON : OFF;
}

size_t block() { return page() / 32; }  // SCOPEDSM_WRITE_VECTOR=on's block
size_t g_written_word = 0;

// Rank 0 homes one page; ranks 1 and 2 read it; rank 1 then writes one
// word of one block. Rank 2's refetch brings that block alone (and the
// value). Then the home writes a word: its own writes are not observed
// block by block, so the next refetch brings the whole page. Every home
// write is trapped (ADWD off) for the test's duration: with adaptive
// detection the copies of an untrapped page make the home note it as
// written at its next barrier (it cannot tell whether it wrote), which
// sends whole pages again.
TEST(WriteVectors, ARefetchBringsOnlyTheBlockWrittenSince) {
  if (nprocs() < 3) GTEST_SKIP() << "needs a home, a writer and a reader";
  // Under cache-only detection every copy is dropped at each barrier and
  // the home tracks nothing (its writes are not observed): values only.
  const bool cowd = env_is("SCOPEDSM_WRITE_DETECT", "cache-only");
  jia_config(WVEC, ON);
  jia_config(ADWD, OFF);
  auto* a = static_cast<uint64_t*>(scopedsm_alloc_cyclic(page(), page(), 0));
  if (rank() == 0)
    for (size_t w = 0; w < page() / 8; ++w) a[w] = pattern(1, w);
  jia_barrier();
  if (rank() == 1 || rank() == 2) check_page(a, [](size_t w) { return pattern(1, w); });
  jia_barrier();
  g_written_word = (5 * block() + 16) / 8;  // inside block 5
  if (rank() == 1) a[g_written_word] = 42;
  jia_barrier();
  if (rank() == 2) {
    const Counts before = Counts::now();
    check_page(a, [](size_t w) { return w == g_written_word ? uint64_t{42} : pattern(1, w); });
    const Counts d = Counts::now() - before;
    if (by_message() && !cowd) {
      EXPECT_EQ(d.fetches, 1u);
      EXPECT_EQ(d.partial, 1u);
      EXPECT_EQ(d.blocks, 1u);
      EXPECT_EQ(d.saved, page() - block());
    }
  }
  jia_barrier();
  if (rank() == 0) a[3] = 7;  // block 0, by the home
  jia_barrier();
  if (rank() == 2) {
    const Counts before = Counts::now();
    check_page(a, [](size_t w) { return w == 3 ? uint64_t{7} : w == g_written_word ? uint64_t{42} : pattern(1, w); });
    const Counts d = Counts::now() - before;
    if (by_message() && !cowd) {
      EXPECT_EQ(d.fetches, 1u);
      EXPECT_EQ(d.partial, 0u);
      EXPECT_EQ(d.blocks, 32u);
    }
  }
  jia_barrier();
  jia_config(ADWD, adwd());
  jia_config(WVEC, env_is("SCOPEDSM_WRITE_VECTOR", "off") || std::getenv("SCOPEDSM_WRITE_VECTOR") == nullptr ? OFF : ON);
}

// The home (rank 0) writes its page while the reader (rank 1) holds a copy
// taken in the same interval: adaptive detection has trapped the page again
// (the copy is recorded and the home's lock drained it), every-write
// detection always traps, cache-only never does. A copy read one-sided is
// recorded only when its RECORD reaches the home, which nothing orders
// before the home's lock (the reader drops that copy at its next acquire
// instead, PROTOCOL.md §2.3): then the home may write untrapped. The reader sees the write
// after the next barrier either way: from a notice, or, under cache-only,
// because the barrier drops every copy (the control cowd-keep-cache keeps
// the copies no notice names, and the read is stale).
TEST(CacheOnly, HomeWritesAreNotTrappedAndCopiesAreDroppedAtAcquires) {
  if (nprocs() < 2) GTEST_SKIP() << "needs a reader besides the home";
  const bool cowd = env_is("SCOPEDSM_WRITE_DETECT", "cache-only");
  const int cv = 3, lock = 6;
  auto* a = static_cast<uint64_t*>(scopedsm_alloc_cyclic(page(), page(), 0));
  if (rank() == 0) a[0] = 1;
  jia_barrier();
  const uint64_t unrecorded0 = counter("rma_unrecorded");
  const uint64_t recorded0 = counter("copies_recorded");
  if (rank() == 1) {
    ASSERT_EQ(a[0], 1u);
    jia_setcv(cv);
  }
  uint64_t faults = 0, recorded_before_lock = 0;
  if (rank() == 0) {
    jia_waitcv(cv);  // the reader holds its copy
    jia_resetcv(cv);
    // RECORDs the home's service thread has served so far (the copy's, if
    // it was read one-sided and its RECORD came first).
    recorded_before_lock = counter("copies_recorded") - recorded0;
    jia_lock(lock);  // its start drains the record of the copy
    const uint64_t f0 = counter("write_faults");
    a[0] = 2;
    faults = counter("write_faults") - f0;
    jia_unlock(lock);
  }
  const uint64_t inv0 = counter("invalidations");
  jia_barrier();
  uint64_t unrecorded = counter("rma_unrecorded") - unrecorded0, any_unrecorded = 0;
  MPI_Allreduce(&unrecorded, &any_unrecorded, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  if (rank() == 0) {
    if (cowd) {
      EXPECT_EQ(faults, 0u);
    } else if (any_unrecorded == 0) {
      EXPECT_EQ(faults, 1u);
    } else if (recorded_before_lock > 0) {
      // The RECORD came first: record_copies queued the page, and the
      // lock's drain trapped it again before the write.
      EXPECT_EQ(faults, 1u) << "the home wrote a page recorded as copied without trapping it";
    }  // else the home may have written it untrapped; the reader drops its copy at the barrier (below)
  }
  if (rank() == 1) {
    EXPECT_GE(counter("invalidations") - inv0, 1u);
    EXPECT_EQ(a[0], 2u) << "a copy kept past the barrier";
  }
  jia_barrier();
}

// Adaptive write detection (docs/PROTOCOL.md §2.3): a home page the others
// only read is copied about once, not once per interval. The home writes
// the pages, so after that barrier it untraps them (no copy is left); the
// readers' first copies are taken untrapped, so the home notes the pages
// as written at the next barrier (it cannot tell whether it wrote after
// the copies), which drops those copies once. That barrier must leave the
// pages trapped, since they were copied in the interval it ends: the
// readers copy them again in the next interval, and under the control
// untrap-copied, which untraps them once the copies are dropped,
// every interval ends in one more conservative notice and invalidation per
// page and reader (as jacobi with all homes on rank 0 showed: 4,805
// invalidations instead of 32).
TEST(AdaptiveDetection, APageOthersOnlyReadIsNotRefetchedEveryInterval) {
  if (nprocs() < 2) GTEST_SKIP() << "needs a reader besides the home";
  const int home = 0, pages = 8, intervals = 20;
  const size_t words = page() / sizeof(uint64_t);
  auto* a = static_cast<volatile uint64_t*>(scopedsm_alloc_cyclic(pages * page(), pages * page(), home));
  if (rank() == home)
    for (int k = 0; k < pages; ++k) a[static_cast<size_t>(k) * words] = 100 + static_cast<uint64_t>(k);
  jia_barrier();
  const uint64_t inv0 = counter("invalidations"), retraps0 = counter("retraps");
  for (int i = 0; i < intervals; ++i) {
    if (rank() != home) {
      for (int k = 0; k < pages; ++k) {
        EXPECT_EQ(a[static_cast<size_t>(k) * words], 100u + static_cast<uint64_t>(k)) << "interval " << i;
      }
    } else {
      // Most often after the readers' copies: the home notices them at the
      // start of this barrier and untraps (or not) at its end, rather than
      // noticing them only at the next one, whose end the readers' next
      // copies may overtake (a copy taken before the untrap keeps the page
      // trapped by itself, and the control would have nothing to break).
      usleep(5000);
    }
    jia_barrier();
    // The home untraps at the end of the barrier above, before it arrives at
    // this one: the readers' next copies come after that untrap.
    jia_barrier();
  }
  const uint64_t inv = counter("invalidations") - inv0, retraps = counter("retraps") - retraps0;
  // Cache-only write detection drops every copy at every barrier: nothing
  // to count here.
  if (!env_is("SCOPEDSM_WRITE_DETECT", "cache-only")) {
    if (rank() != home) {
      EXPECT_LE(inv, static_cast<uint64_t>(pages)) << "copies of pages nobody writes dropped again and again";
    } else {
      EXPECT_LE(retraps, static_cast<uint64_t>(pages)) << "pages untrapped again under their readers";
    }
  }
  jia_barrier();
}

}  // namespace
