// Writes the codec fuzz target's seed corpus: valid messages of every type
// of the message table, made with the runtime's own encoders from samples of
// their field kinds, edge cases chosen by hand, and hand-made malformed
// messages, each prefixed with its two setup bytes (fuzz_setup.h).
//
//   make_corpus <dir>     (tools/fuzz.sh --regen writes tests/fuzz/corpus/codec)
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz_setup.h"
#include "protocol/diff.h"
#include "protocol/messages.h"
#include "stats/stats_record.h"
#include "support/message_samples.h"

namespace scopedsm::fuzz {

namespace {

using Bytes = std::vector<std::byte>;

struct Out {
  std::string dir;
  int count = 0;
  int failures = 0;

  void write(const std::string& name, const Bytes& msg, SetupIndex setup = {}) {
    uint8_t prefix[kSetupBytes];
    setup_bytes(setup, prefix);
    ++count;
    const std::string path = dir + "/" + name;
    std::FILE* f = std::fopen(path.c_str(), "wxb");  // x: names must be unique
    if (f == nullptr || std::fwrite(prefix, 1, kSetupBytes, f) != kSetupBytes ||
        (!msg.empty() && std::fwrite(msg.data(), 1, msg.size(), f) != msg.size())) {
      std::fprintf(stderr, "make_corpus: cannot write %s\n", path.c_str());
      ++failures;
    }
    if (f != nullptr) std::fclose(f);
  }
};

template <typename T>
void poke(Bytes* b, size_t offset, T value) {
  std::memcpy(b->data() + offset, &value, sizeof value);
}

std::vector<WriteNotice> some_notices() { return {{1, 0}, {2, kMultipleWriters}, {99, 3}}; }

Bytes stats_blob(int rank) {
  StatsRecord r;
  r.rank = rank;
  r.elapsed_s = 1.5;
  r.segv_cost_ns = 900;
  r.values = {{"read_faults", 10}, {"write_faults", 4}, {"t_data_ns", 12345}, {"msgs_sent_GETP", 3},
              {"bytes_sent_GETP", 36}};
  return r.serialize();
}

// A DIFF message with one record per (page, change pattern).
Bytes diff_message(const std::vector<uint32_t>& pages, size_t page_size, int pattern) {
  Writer w(MsgType::kDiff);
  for (uint32_t p : pages) {
    std::vector<std::byte> twin(page_size), page(page_size);
    for (size_t i = 0; i < page_size; ++i) twin[i] = page[i] = static_cast<std::byte>(i * 13 + p);
    if (pattern == 0) {
      for (size_t i = p % 7; i < page_size; i += 97) page[i] ^= std::byte{0x5a};
    } else if (pattern == 1) {
      for (auto& b : page) b = ~b;  // every byte: every block whole
    } else {
      page[page_size - 1] ^= std::byte{1};  // only the last byte
    }
    (void)encode_diff(p, page.data(), twin.data(), page_size, &w);
  }
  return w.finish(9);
}

// For every message of the table: a sample with values from a fixed seed,
// one with every value at its lower bound and one at its upper bound (under
// the default setup), and its header alone.
template <typename M, typename Source>
void write_sample(Out* o, const std::string& name, Source src) {
  const SetupIndex setup;
  uint8_t bytes[kSetupBytes];
  setup_bytes(setup, bytes);
  const Limits l = setup_from(bytes[0], bytes[1]).limits;
  samples::ValidFiller<Source> filler(l, &src);
  M m;
  M::fields(m, filler);
  if (!filler.possible()) return;
  const Bytes msg = encode(m, 30);
  if (msg.size() > sizeof(MsgHeader)) o->write(name, msg, setup);  // else it is empty-<NAME>
}

void table_messages(Out* o) {
  for_each_message([&]<typename M>(std::type_identity<M>) {
    const std::string name = MessageInfo<M>::name;
    write_sample<M>(o, "sample-" + name, samples::SeededSource(static_cast<uint64_t>(MessageInfo<M>::type)));
    write_sample<M>(o, "lowest-" + name, samples::LowestSource{});
    write_sample<M>(o, "highest-" + name, samples::HighestSource{});
    o->write("empty-" + name, Writer(MessageInfo<M>::type).finish(21));
  });
}

// Values chosen by hand (the samples above cover every type already).
void valid_messages(Out* o) {
  o->write("GETP", encode(GetPageMsg{5, 2}, 1));
  o->write("ACQ", encode(AcquireMsg{3, 1, 0}, 2));
  o->write("ACQ-last-lock", encode(AcquireMsg{kMaxLocks - 1, 9, 5}, 3));
  o->write("ACQGRANT", encode(AcquireGrantMsg{3, 4, some_notices()}, 4));
  o->write("ACQGRANT-no-notices", encode(AcquireGrantMsg{3, 4, {}}, 5));
  o->write("REL", encode(ReleaseMsg{3, 1, some_notices()}, 6));
  o->write("BARR", encode(BarrierMsg{0, 4, 1, some_notices(), {}}, 7));
  o->write("BARR-broadcast", encode(BarrierMsg{0, 4, 1, some_notices(), {std::byte{1}, std::byte{2}, std::byte{3}}}, 7));
  o->write("BARRSTALL", encode(BarrierStallMsg{2, 12000000000}, 8));
  o->write("SETCV", encode(CvSetMsg{2, 1, some_notices()}, 9));
  o->write("RESETCV", encode(CvResetMsg{kMaxCondvars - 1, 1}, 10));
  o->write("WAITCV", encode(CvWaitMsg{0, 0}, 11));
  o->write("CVGRANT", encode(CvGrantMsg{2, some_notices()}, 12));
  o->write("COLL", encode(CollectiveMsg{"jia_alloc(4096)", Bytes(8, std::byte{7})}, 13));
  o->write("COLL-stats", encode(CollectiveMsg{"jia_exit", stats_blob(2)}, 14));
  o->write("COLLGRANT-stats", encode(CollectiveDoneMsg{{stats_blob(0), stats_blob(1), stats_blob(2), stats_blob(3)}}, 15));
  o->write("COLLGRANT", encode(CollectiveDoneMsg{{Bytes(4, std::byte{1}), Bytes()}}, 16));
  o->write("HOMECLAIM", encode(HomeClaimMsg{7}, 17));
  o->write("HOMEIS", encode(HomeIsMsg{7, 2}, 19));
  o->write("SYNCWAIT-lock", encode(SyncWaitMsg{3, 1, 4, 2, false, "jia_lock(4)", {}}, 21));
  o->write("SYNCWAIT-barrier-holding", encode(SyncWaitMsg{4, 2, 3, 4, true, "jia_wait", Bytes(8, std::byte{1})}, 22));
  o->write("SYNCDONE", encode(SyncDoneMsg{4}, 23));
  o->write("SYNCPROBE", encode(SyncProbeMsg{1}, 24));
  o->write("SYNCSTATE-queued", encode(SyncStateMsg{1, 0, Bytes(8, std::byte{0})}, 25));
  o->write("bad-HOMEIS-home-minus1", encode(HomeIsMsg{8, -1}, 20));
  o->write("DIFF-scattered", diff_message({4}, 4096, 0));
  o->write("DIFF-full-page", diff_message({5}, 4096, 1));
  o->write("DIFF-two-records", diff_message({6, 99}, 4096, 0));
  o->write("DIFF-last-byte", diff_message({0}, 4096, 2));
}

void other_setups(Out* o) {
  // Page size 8, three pages, homes on even pages only.
  const SetupIndex tiny{2, 1, 1, 0, 0, kAcceptEven};
  o->write("DIFF-ps8-even", diff_message({2}, 8, 1), tiny);
  o->write("DIFF-ps8-odd-refused", diff_message({1}, 8, 1), tiny);
  o->write("DIFF-ps64", diff_message({0, 2}, 64, 0), SetupIndex{2, 1, 2, 0, 0, kAcceptAll});
  o->write("DIFF-ps16k", diff_message({1}, 16384, 0), SetupIndex{4, 3, 3, 0, 0, kAcceptNotMod3Is1});
  o->write("DIFF-none-homed", diff_message({3}, 4096, 2), SetupIndex{4, 3, 0, 0, 0, kAcceptNone});
  // 2^32 pages: every 32-bit page number is allocated.
  o->write("GETP-max-page", encode(GetPageMsg{0xffffffffu, 0}, 1), SetupIndex{7, 3, 0, 0, 0, kAcceptAll});
  o->write("BARR-1-rank", encode(BarrierMsg{3, 0, 0, {{0, 0}, {1, kMultipleWriters}}, {}}, 1), SetupIndex{4, 0, 0, 0, 0, kAcceptAll});
  o->write("ACQ-1-lock", encode(AcquireMsg{0, 0, 0}, 1), SetupIndex{4, 3, 0, 1, 1, kAcceptAll});
  o->write("GETP-no-pages", encode(GetPageMsg{0, 0}, 1), SetupIndex{0, 3, 0, 0, 0, kAcceptAll});
  o->write("GETP-run-to-end", encode(GetPageMsg{96, 0, 4}, 1));
  o->write("GETP-last-lane", encode(GetPageMsg{3, 0, 2, kMaxAsyncFetches}, 1));
  o->write("COLLGRANT-many-ranks", encode(CollectiveDoneMsg{std::vector<Bytes>(16, stats_blob(5))}, 1),
           SetupIndex{4, 5, 0, 0, 0, kAcceptAll});
}

// Messages whose fields are wrong in one way each.
void bad_fields(Out* o) {
  auto raw = [](MsgType t, auto... values) {
    Writer w(t);
    (w.put(values), ...);
    return w.finish(1);
  };
  o->write("bad-GETP-page-eq-pages", encode(GetPageMsg{100, 0}, 1));
  o->write("bad-GETP-trailing", raw(MsgType::kGetPage, 1u, 0u, 1u, 0u, uint8_t{0}));
  o->write("bad-GETP-lane", encode(GetPageMsg{1, 0, 1, kMaxAsyncFetches + 1}, 1));
  o->write("bad-GETP-run-past-end", encode(GetPageMsg{96, 0, 5}, 1));
  o->write("bad-GETP-run-zero", encode(GetPageMsg{1, 0, 0}, 1));
  o->write("bad-GETP-run-too-long", encode(GetPageMsg{0, 0, kMaxFetchPages + 1}, 1));
  o->write("bad-GETP-short", raw(MsgType::kGetPage, 1u));
  o->write("bad-ACQ-lock", encode(AcquireMsg{kMaxLocks, 0, 0}, 1));
  o->write("bad-notices-count-huge", raw(MsgType::kBarrier, 0u, 0u, 0u, 0xffffffffu, 1u, 0));
  o->write("bad-notices-count-short", raw(MsgType::kBarrier, 0u, 0u, 0u, 2u, 1u, 0));
  o->write("bad-notices-writer-eq-ranks", encode(BarrierMsg{0, 0, 0, {{1, 4}}, {}}, 1));
  o->write("bad-notices-writer-minus1", encode(BarrierMsg{0, 0, 0, {{1, -1}}, {}}, 1));
  o->write("bad-notices-writer-minus3", encode(ReleaseMsg{0, 0, {{1, -3}}}, 1));
  o->write("bad-notices-page", encode(CvGrantMsg{0, {{100, 0}}}, 1));
  o->write("bad-RESETCV-cv", encode(CvResetMsg{kMaxCondvars, 0}, 1));
  o->write("bad-COLL-call-too-long", encode(CollectiveMsg{std::string(4097, 'x'), {}}, 1));
  o->write("bad-COLL-blob-length", raw(MsgType::kCollective, 1u, 'c', 0xffffffffu));
  o->write("bad-COLLGRANT-count-gt-ranks", encode(CollectiveDoneMsg{std::vector<Bytes>(5)}, 1));
  o->write("bad-COLLGRANT-count-huge", raw(MsgType::kCollectiveDone, 0xffffffffu));
  // The claim flag HOMECLAIM once carried is now a trailing byte.
  o->write("bad-HOMECLAIM-old-flag", raw(MsgType::kHomeClaim, 7u, uint8_t{1}));
  o->write("bad-HOMEIS-home-minus2", encode(HomeIsMsg{7, -2}, 1));
  o->write("bad-HOMEIS-home-eq-ranks", encode(HomeIsMsg{7, 4}, 1));
  o->write("bad-WAIT-payload", raw(MsgType::kWait, uint8_t{0}));
  Bytes truncated = stats_blob(1);
  truncated.resize(truncated.size() - 3);
  Bytes trailing = stats_blob(1);
  trailing.push_back(std::byte{0});
  o->write("bad-stats-records", encode(CollectiveDoneMsg{{truncated, trailing, stats_blob(2)}}, 1));
}

// Diff records wrong in one way each: u32 page, u32 body, runs.
void bad_diffs(Out* o) {
  auto diff = [](uint32_t page, std::vector<uint16_t> runs_and_bytes, int body_adjust = 0) {
    Writer w(MsgType::kDiff);
    w.put(page);
    const size_t at = w.reserve_u32();
    const size_t start = w.size();
    for (uint16_t v : runs_and_bytes) w.put(v);
    w.patch_u32(at, static_cast<uint32_t>(static_cast<int>(w.size() - start) + body_adjust));
    return w.finish(1);
  };
  // u16 first, u16 count, then mask and data bytes packed two per u16.
  o->write("bad-DIFF-zero-run", diff(4, {0, 0}));
  o->write("bad-DIFF-past-end", diff(4, {511, 2, 0x0101, 0x2211}));
  o->write("bad-DIFF-overlap", diff(4, {3, 2, 0x0101, 0x2211, 4, 1, 0x2201}));
  o->write("bad-DIFF-out-of-order", diff(4, {9, 1, 0x1101, 2, 1, 0x2201}));
  o->write("bad-DIFF-masks-truncated", diff(4, {0, 4, 0x0101}));
  o->write("bad-DIFF-data-truncated", diff(4, {0, 2, 0xffff, 0x1111}));
  o->write("bad-DIFF-run-header-truncated", diff(4, {0, 1, 0x1101, 7}));
  o->write("bad-DIFF-body-past-message", diff(4, {0, 1, 0x1101}, 8));
  o->write("bad-DIFF-page-not-allocated", diff(100, {0, 1, 0x1101}));
  o->write("bad-DIFF-page-not-homed", diff(1, {0, 1, 0x1101}), SetupIndex{4, 3, 0, 0, 0, kAcceptEven});
  Bytes second_bad = diff_message({4}, 4096, 2);
  const Bytes bad = diff(5, {0, 0});
  second_bad.insert(second_bad.end(), bad.begin() + 12, bad.end());
  poke<uint32_t>(&second_bad, 4, static_cast<uint32_t>(second_bad.size() - 12));
  o->write("bad-DIFF-second-record", second_bad);
}

// Headers wrong in one way each.
void bad_headers(Out* o) {
  const Bytes good = encode(GetPageMsg{5, 2}, 1);
  o->write("hdr-empty", {});
  o->write("hdr-short", Bytes(good.begin(), good.begin() + 11));
  Bytes b = good;
  poke<uint16_t>(&b, 0, 0x535d);
  o->write("hdr-magic", b);
  b = good;
  poke<uint16_t>(&b, 2, 0);
  o->write("hdr-type-0", b);
  b = good;
  poke<uint16_t>(&b, 2, static_cast<uint16_t>(kMsgTypeCount));
  o->write("hdr-type-count", b);
  b = good;
  poke<uint32_t>(&b, 4, 9);
  o->write("hdr-length-plus1", b);
  poke<uint32_t>(&b, 4, 7);
  o->write("hdr-length-minus1", b);
  poke<uint32_t>(&b, 4, 0xfffffff4u);
  o->write("hdr-length-huge", b);
}

}  // namespace

}  // namespace scopedsm::fuzz

int main(int argc, char** argv) {
  using namespace scopedsm::fuzz;
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_corpus <dir>\n");
    return 2;
  }
  Out o{argv[1]};
  table_messages(&o);
  valid_messages(&o);
  other_setups(&o);
  bad_fields(&o);
  bad_diffs(&o);
  bad_headers(&o);
  std::printf("make_corpus: %d files in %s\n", o.count, argv[1]);
  return o.failures == 0 ? 0 : 1;
}
