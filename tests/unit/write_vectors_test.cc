// The home's write vectors (memory/write_vectors.h): which blocks of a page
// a refetch with a given version needs.
#include "memory/write_vectors.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace scopedsm {
namespace {

constexpr size_t kPage = 4096;
constexpr size_t kBlock = 512;  // 8 blocks

TEST(WriteVectors, MaskCoversTheBlocksOfARange) {
  WriteVectors w;
  w.init(kPage, kBlock, true);
  EXPECT_EQ(w.blocks(), 8u);
  EXPECT_EQ(w.all_blocks(), 0xffu);
  EXPECT_EQ(w.mask_for(0, 1), 0x1u);
  EXPECT_EQ(w.mask_for(511, 2), 0x3u) << "a range across a block boundary takes both blocks";
  EXPECT_EQ(w.mask_for(512, 512), 0x2u);
  EXPECT_EQ(w.mask_for(4095, 1), 0x80u);
  EXPECT_EQ(w.mask_for(0, kPage), 0xffu);
  WriteVectors all;
  all.init(kPage * 16, kPage / 4, true);  // 64 blocks: the mask is every bit
  EXPECT_EQ(all.all_blocks(), ~uint64_t{0});
}

TEST(WriteVectors, FirstFetchIsWholeAndRefetchGetsOnlyWrittenBlocks) {
  WriteVectors w;
  w.init(kPage, kBlock, true);
  uint64_t v1 = 0;
  EXPECT_EQ(w.changed_since(7, 0, &v1), w.all_blocks()) << "no version: the whole page";
  EXPECT_NE(v1, 0u);
  uint64_t v2 = 0;
  EXPECT_EQ(w.changed_since(7, v1, &v2), 0u) << "nothing written since";
  EXPECT_EQ(v2, v1);
  w.note_blocks(7, 0x14);
  uint64_t v3 = 0;
  EXPECT_EQ(w.changed_since(7, v1, &v3), 0x14u);
  EXPECT_GT(v3, v1);
  w.note_blocks(7, 0x01);
  uint64_t v4 = 0;
  EXPECT_EQ(w.changed_since(7, v3, &v4), 0x01u) << "a fetch at v3 already has blocks 2 and 4";
  EXPECT_EQ(w.changed_since(7, v1, &v4), 0x15u) << "one at v1 needs all three";
  // Another page's writes are not this page's.
  w.note_blocks(8, 0xff);
  EXPECT_EQ(w.changed_since(7, v4, &v4), 0u);
}

TEST(WriteVectors, ForgetMakesEveryOlderVersionWhole) {
  WriteVectors w;
  w.init(kPage, kBlock, true);
  uint64_t v = 0;
  w.changed_since(3, 0, &v);
  w.forget(3);  // the home wrote the page unobserved
  uint64_t after = 0;
  EXPECT_EQ(w.changed_since(3, v, &after), w.all_blocks());
  EXPECT_GT(after, v);
  EXPECT_EQ(w.changed_since(3, after, &after), 0u) << "the version handed out with the whole page is current";
}

TEST(WriteVectors, AVersionNotOursIsWhole) {
  WriteVectors w;
  w.init(kPage, kBlock, true);
  uint64_t v = 0;
  w.changed_since(1, 0, &v);
  uint64_t out = 0;
  EXPECT_EQ(w.changed_since(1, v + 1000, &out), w.all_blocks()) << "from a clock ahead of ours (another home's)";
}

TEST(WriteVectors, NotTrackingAnswersWholePagesWithNoVersion) {
  WriteVectors w;
  w.init(kPage, kBlock, false);
  EXPECT_FALSE(w.tracking());
  w.note_blocks(2, 0x1);
  uint64_t v = 99;
  EXPECT_EQ(w.changed_since(2, 5, &v), w.all_blocks());
  EXPECT_EQ(v, 0u);
  // Tracking switched off drops the records; the clock goes on, so a
  // version from before cannot be mistaken for a current one.
  w.set_tracking(true);
  uint64_t before = 0;
  w.changed_since(2, 0, &before);
  w.set_tracking(false);
  w.set_tracking(true);
  uint64_t now = 0;
  EXPECT_EQ(w.changed_since(2, before, &now), w.all_blocks()) << "the record was dropped while off";
  EXPECT_GT(now, before);
}

TEST(WriteVectors, ConcurrentNotesAreEachSeenByALaterRefetch) {
  // The home server and the application thread both note blocks; every
  // note made before a reader's snapshot is in that reader's mask.
  constexpr int kNotes = 200000;
  WriteVectors w;
  w.init(kPage, kBlock, true);
  uint64_t v = 0;
  w.changed_since(0, 0, &v);
  std::vector<std::thread> writers;
  for (uint32_t b = 0; b < 8; ++b)
    writers.emplace_back([&w, b] {
      for (int i = 0; i < kNotes; ++i) w.note_blocks(0, uint64_t{1} << b);
    });
  for (auto& t : writers) t.join();
  uint64_t after = 0;
  EXPECT_EQ(w.changed_since(0, v, &after), 0xffu);
  EXPECT_EQ(after, v + 8 * kNotes) << "one clock tick per note";
}

}  // namespace
}  // namespace scopedsm
