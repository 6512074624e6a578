#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "protocol/diff.h"

namespace scopedsm {
namespace {

constexpr size_t kPage = 4096;

struct Pages {
  std::vector<std::byte> home = std::vector<std::byte>(kPage);
  static std::byte* locate(void* ctx, uint32_t page) {
    return page == 7 ? static_cast<Pages*>(ctx)->home.data() : nullptr;
  }
};

// Encodes (page vs twin) into a DIFF message and applies it to `pages`.
Status roundtrip(const std::vector<std::byte>& page, const std::vector<std::byte>& twin, Pages* pages,
                 size_t* changed_out = nullptr) {
  Writer w(MsgType::kDiff);
  size_t changed = encode_diff(7, page.data(), twin.data(), kPage, &w);
  if (changed_out) *changed_out = changed;
  auto bytes = w.finish(1);
  Reader r(bytes.data(), bytes.size());
  MsgType type;
  EXPECT_TRUE(r.open(&type).ok());
  while (r.remaining() > 0) {
    uint32_t p = 0;
    size_t n = 0;
    Status s = apply_diff(&r, kPage, &Pages::locate, pages, &p, &n);
    if (!s.ok()) return s;
    EXPECT_EQ(p, 7u);
    EXPECT_EQ(n, changed);
  }
  return Status::Ok();
}

// The largest coherence unit (SCOPEDSM_UNIT_PAGES=128: kMaxUnitBytes,
// 8192 blocks of 64 bytes) written whole, and its last byte alone: 13-bit
// block numbers still name every block.
TEST(Diff, TheLargestUnitRoundTripsWhole) {
  constexpr size_t kUnit = size_t{65536} * 8;
  struct Unit {
    std::vector<std::byte> home = std::vector<std::byte>(kUnit);
    static std::byte* locate(void* ctx, uint32_t) { return static_cast<Unit*>(ctx)->home.data(); }
  };
  const std::vector<std::byte> twin(kUnit, std::byte{0});
  for (const size_t from : {size_t{0}, kUnit - 1}) {
    std::vector<std::byte> page(twin);
    for (size_t i = from; i < kUnit; ++i) page[i] = std::byte(static_cast<unsigned char>(i % 255 + 1));  // never 0: every byte changes
    Writer w(MsgType::kDiff);
    ASSERT_EQ(encode_diff(3, page.data(), twin.data(), kUnit, &w), kUnit - from);
    auto bytes = w.finish(1);
    Reader r(bytes.data(), bytes.size());
    MsgType type;
    ASSERT_TRUE(r.open(&type).ok());
    Unit unit;
    uint32_t p = 0;
    size_t n = 0;
    ASSERT_TRUE(apply_diff(&r, kUnit, &Unit::locate, &unit, &p, &n).ok());
    EXPECT_EQ(n, kUnit - from);
    EXPECT_EQ(r.remaining(), 0u);
    EXPECT_TRUE(unit.home == page) << "from " << from;
  }
}

// A page of more blocks than a record can number (more than 512 KiB) is
// an internal error, not a record whose block numbers wrap.
TEST(DiffDeathTest, APageLargerThanTheFormatAllowsIsAnInternalError) {
  constexpr size_t kTooLarge = size_t{8193} * 64;
  const std::vector<std::byte> twin(kTooLarge), page(kTooLarge, std::byte{1});
  Writer w(MsgType::kDiff);
  EXPECT_DEATH(encode_diff(0, page.data(), twin.data(), kTooLarge, &w), "a record numbers at most 8192 blocks");
}

TEST(Diff, UnchangedPageProducesNoRecord) {
  std::vector<std::byte> a(kPage, std::byte{1});
  Writer w(MsgType::kDiff);
  size_t before = w.size();
  EXPECT_EQ(encode_diff(7, a.data(), a.data(), kPage, &w), 0u);
  EXPECT_EQ(w.size(), before);
}

TEST(Diff, RandomChangesRoundTrip) {
  std::mt19937 rng(42);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<std::byte> twin(kPage), page(kPage);
    for (auto& b : twin) b = std::byte(rng() & 0xff);
    page = twin;
    int changes = static_cast<int>(rng() % 600);
    for (int i = 0; i < changes; ++i) page[rng() % kPage] = std::byte(rng() & 0xff);
    Pages pages;
    pages.home = twin;
    ASSERT_TRUE(roundtrip(page, twin, &pages).ok());
    ASSERT_EQ(0, std::memcmp(pages.home.data(), page.data(), kPage)) << "trial " << trial;
  }
}

TEST(Diff, CarriesOnlyChangedBytesSoNeighbouringWritersMerge) {
  // Two writers change interleaved bytes of the same words (char arrays
  // split between processes). Applying both diffs must keep both.
  std::vector<std::byte> twin(kPage, std::byte{0});
  std::vector<std::byte> a = twin, b = twin;
  for (size_t i = 0; i < kPage; i += 2) a[i] = std::byte{0xAA};
  for (size_t i = 1; i < kPage; i += 2) b[i] = std::byte{0xBB};
  Pages pages;
  pages.home = twin;
  ASSERT_TRUE(roundtrip(a, twin, &pages).ok());
  ASSERT_TRUE(roundtrip(b, twin, &pages).ok());
  for (size_t i = 0; i < kPage; ++i) ASSERT_EQ(pages.home[i], std::byte(i % 2 ? 0xBB : 0xAA)) << i;
}

TEST(Diff, ByteWrittenBackToItsOldValueIsNotSent) {
  std::vector<std::byte> twin(kPage, std::byte{5}), page = twin;
  page[100] = std::byte{6};
  size_t changed = 0;
  Pages pages;
  pages.home = std::vector<std::byte>(kPage, std::byte{9});  // another writer's values
  ASSERT_TRUE(roundtrip(page, twin, &pages, &changed).ok());
  EXPECT_EQ(changed, 1u);
  EXPECT_EQ(pages.home[100], std::byte{6});
  EXPECT_EQ(pages.home[99], std::byte{9});
  EXPECT_EQ(pages.home[101], std::byte{9});
}

TEST(Diff, FullPageChange) {
  std::vector<std::byte> twin(kPage, std::byte{0}), page(kPage, std::byte{0xff});
  size_t changed = 0;
  Pages pages;
  ASSERT_TRUE(roundtrip(page, twin, &pages, &changed).ok());
  EXPECT_EQ(changed, kPage);
  EXPECT_EQ(0, std::memcmp(pages.home.data(), page.data(), kPage));
}

// The record format written out plainly (protocol/diff.h), a byte at a
// time, against which the encoder's faster scan is checked byte for byte.
std::vector<std::byte> reference_record(uint32_t page_index, const std::vector<std::byte>& page,
                                        const std::vector<std::byte>& twin) {
  std::vector<uint8_t> body;
  const size_t bytes = page.size() / 8 * 8;  // whole words only
  auto put = [&](uint64_t v, int n) {
    for (int i = 0; i < n; ++i) body.push_back(static_cast<uint8_t>(v >> (8 * i)));
  };
  for (size_t block = 0; block * 64 < bytes; ++block) {
    uint64_t mask = 0;
    for (size_t i = 0; i < 64 && block * 64 + i < bytes; ++i)
      if (page[block * 64 + i] != twin[block * 64 + i]) mask |= uint64_t{1} << i;
    if (mask == 0) continue;
    std::vector<size_t> words;
    for (size_t j = 0; j < 8; ++j)
      if ((mask >> (8 * j) & 0xff) != 0) words.push_back(j);
    put(block | (words.size() - 1) << 13, 2);
    put(mask, 8);
    for (const size_t j : words)
      for (size_t b = 0; b < 8; ++b) body.push_back(static_cast<uint8_t>(page[block * 64 + j * 8 + b]));
  }
  std::vector<std::byte> out;
  if (body.empty()) return out;
  for (const uint32_t v : {page_index, static_cast<uint32_t>(body.size())})
    for (int i = 0; i < 4; ++i) out.push_back(std::byte(static_cast<uint8_t>(v >> (8 * i))));
  for (const uint8_t b : body) out.push_back(std::byte(b));
  return out;
}

// Pages changed in the shapes the scan treats apart: untouched 64-byte
// blocks, blocks changed whole, words changed in part, bytes at the edges
// of the 16-byte lanes the scan compares, a block with seven of its eight
// words changed (its stores reach the end of the room a block may take),
// in pages of 1 and 2 OS pages and in sizes that end in part of a block.
// Several records go into one message, as a DIFF carries them, so room
// given back by one is reused by the next. The records must be the plain
// encoder's, byte for byte; applying them onto a home holding another
// writer's values must replace exactly the changed bytes, and merge_diff
// must write the same.
TEST(Diff, TheScanWritesThePlainRecordForEveryShape) {
  std::mt19937 rng(7);
  // Sizes of no real page too (8, 72, 200 bytes: the format allows any
  // number of words): the words after the last whole block.
  for (const size_t size : {kPage, 2 * kPage, size_t{8}, size_t{72}, size_t{200}}) {
    Writer w(MsgType::kDiff);
    std::vector<std::byte> expected;
    for (int trial = 0; trial < 300; ++trial) {
      std::vector<std::byte> twin(size), page;
      for (auto& b : twin) b = std::byte(static_cast<uint8_t>(rng()));
      page = twin;
      const size_t blocks = size / 64;
      for (size_t k = 0; k < blocks; ++k) {
        switch (rng() % 8) {
          case 6:  // bytes at lane edges: the first and last of some of the four 16-byte lanes
            for (const size_t edge : {size_t{0}, size_t{15}, size_t{16}, size_t{31}, size_t{32}, size_t{47}, size_t{48}, size_t{63}})
              if (rng() % 2 == 0) page[k * 64 + edge] ^= std::byte{0x81};
            break;
          case 7:  // seven whole words, one left as it was
            for (size_t j = 0, keep = rng() % 8; j < 8; ++j)
              if (j != keep)
                for (size_t b = 0; b < 8; ++b) page[k * 64 + j * 8 + b] ^= std::byte{0xff};
            break;
          case 0:  // the whole block
            for (size_t i = 0; i < 64; ++i) page[k * 64 + i] = ~twin[k * 64 + i];
            break;
          case 1:  // some bytes of some words
            for (int i = 0; i < 5; ++i) page[k * 64 + rng() % 64] ^= std::byte{0x5a};
            break;
          case 2:  // whole words here and there
            for (size_t j = 0; j < 8; ++j)
              if (rng() % 3 == 0)
                for (size_t b = 0; b < 8; ++b) page[k * 64 + j * 8 + b] ^= std::byte{0xff};
            break;
          default:  // unchanged
            break;
        }
      }
      for (size_t i = blocks * 64; i < size; ++i)
        if (rng() % 3 == 0) page[i] ^= std::byte{0x33};
      const auto index = static_cast<uint32_t>(trial);
      const size_t before = w.size();
      const size_t changed = encode_diff(index, page.data(), twin.data(), size, &w);
      const std::vector<std::byte> want = reference_record(index, page, twin);
      expected.insert(expected.end(), want.begin(), want.end());
      ASSERT_EQ(w.size() - before, want.size()) << "trial " << trial << ", page of " << size;
      // The home holds another writer's values: only our changed bytes may replace them.
      std::vector<std::byte> home(size), want_home(size);
      for (size_t i = 0; i < size; ++i) {
        home[i] = std::byte(static_cast<uint8_t>(rng()));
        want_home[i] = page[i] != twin[i] ? page[i] : home[i];
      }
      std::vector<std::byte> applied = home;
      {
        Writer one(MsgType::kDiff);
        ASSERT_EQ(encode_diff(index, page.data(), twin.data(), size, &one), changed);
        const std::vector<std::byte> msg = one.finish(1);
        Reader r(msg.data(), msg.size());
        MsgType type;
        ASSERT_TRUE(r.open(&type).ok());
        uint32_t p = 0;
        size_t n = 0;
        struct At {
          std::byte* data;
          static std::byte* locate(void* ctx, uint32_t) { return static_cast<At*>(ctx)->data; }
        } at{applied.data()};
        if (changed != 0) {
          ASSERT_TRUE(apply_diff(&r, size, &At::locate, &at, &p, &n).ok()) << "trial " << trial;
          EXPECT_EQ(n, changed);
          EXPECT_EQ(r.remaining(), 0u);
        }
        ASSERT_TRUE(applied == want_home) << "apply_diff, trial " << trial << ", page of " << size;
      }
      EXPECT_EQ(merge_diff(home.data(), page.data(), twin.data(), size), changed) << "trial " << trial;
      ASSERT_TRUE(home == want_home) << "merge_diff, trial " << trial << ", page of " << size;
    }
    const std::vector<std::byte> message = w.finish(1);
    ASSERT_EQ(message.size(), sizeof(MsgHeader) + expected.size());
    EXPECT_TRUE(std::equal(expected.begin(), expected.end(), message.begin() + sizeof(MsgHeader)))
        << "page of " << size;
  }
}

// Builds a raw diff record (page 7) from a body for the decoder tests.
std::vector<std::byte> record(const std::vector<uint8_t>& body, uint32_t body_len_override = UINT32_MAX) {
  Writer w(MsgType::kDiff);
  w.put<uint32_t>(7);
  w.put<uint32_t>(body_len_override == UINT32_MAX ? static_cast<uint32_t>(body.size()) : body_len_override);
  w.put_bytes(body.data(), body.size());
  return w.finish(1);
}

Status decode(const std::vector<std::byte>& msg, Pages* pages) {
  Reader r(msg.data(), msg.size());
  MsgType type;
  EXPECT_TRUE(r.open(&type).ok());
  uint32_t p;
  size_t n;
  return apply_diff(&r, kPage, &Pages::locate, pages, &p, &n);
}

// One block of a record body: u16 head (the block, and `words` - 1 in the
// top 3 bits; by default the words `data` holds), u64 mask, then `data`.
std::vector<uint8_t> block_entry(uint16_t block, uint64_t mask, const std::vector<uint8_t>& data, size_t words = 0) {
  std::vector<uint8_t> out;
  if (words == 0) words = std::max<size_t>(data.size() / 8, 1);
  const auto head = static_cast<uint16_t>(block | (words - 1) << 13);
  for (int i = 0; i < 2; ++i) out.push_back(static_cast<uint8_t>(head >> (8 * i)));
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(mask >> (8 * i)));
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

std::vector<uint8_t> operator+(std::vector<uint8_t> a, const std::vector<uint8_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST(Diff, DecoderRejectsMalformedRecordsWithoutWriting) {
  Pages pages;
  pages.home.assign(kPage, std::byte{0x11});
  auto untouched = pages.home;
  const std::vector<uint8_t> word(8, 0x42);
  // A well-formed block first, so that a decoder applying as it reads would write.
  const std::vector<uint8_t> good = block_entry(1, 0xff, word);
  EXPECT_TRUE(decode(record(good), &pages).ok());
  EXPECT_EQ(pages.home[64], std::byte{0x42});
  pages.home = untouched;
  // block past the end of the page (64 blocks of 64 bytes)
  EXPECT_FALSE(decode(record(good + block_entry(64, 0xff, word)), &pages).ok());
  // a block with no changed byte
  EXPECT_FALSE(decode(record(good + block_entry(2, 0, {})), &pages).ok());
  // mask names word 1 (8 bytes), only 2 present
  EXPECT_FALSE(decode(record(good + block_entry(2, 0xff00, {1, 2}, 1)), &pages).ok());
  // mask names two words, one present and the head says one
  EXPECT_FALSE(decode(record(good + block_entry(2, 0x0100000000000001ull, word)), &pages).ok());
  // mask names one word, the head says two (and two are present)
  EXPECT_FALSE(decode(record(good + block_entry(2, 0x1, word + word)), &pages).ok());
  // a block header cut short
  EXPECT_FALSE(decode(record(good + std::vector<uint8_t>{2, 0, 0xff, 0, 0}), &pages).ok());
  // body length larger than the message
  EXPECT_FALSE(decode(record(good, 1000), &pages).ok());
  // blocks out of order: 5 then 3, and block 5 twice
  EXPECT_FALSE(decode(record(block_entry(5, 1, word) + block_entry(3, 1, word)), &pages).ok());
  EXPECT_FALSE(decode(record(block_entry(5, 1, word) + block_entry(5, 2, word)), &pages).ok());
  EXPECT_EQ(pages.home, untouched);
}

// A page of 9 words: its second block holds one word, and a mask naming a
// byte of the words it does not have is refused.
TEST(Diff, DecoderRejectsMasksPastAPartialLastBlock) {
  Pages pages;
  pages.home.assign(kPage, std::byte{0x11});
  auto untouched = pages.home;
  const std::vector<uint8_t> word(8, 0x42);
  auto decode72 = [&](const std::vector<std::byte>& msg) {
    Reader r(msg.data(), msg.size());
    MsgType type;
    EXPECT_TRUE(r.open(&type).ok());
    uint32_t p;
    size_t n;
    return apply_diff(&r, 72, &Pages::locate, &pages, &p, &n);
  };
  EXPECT_FALSE(decode72(record(block_entry(1, 0x100, word))).ok());
  EXPECT_FALSE(decode72(record(block_entry(2, 0x1, word))).ok());
  EXPECT_EQ(pages.home, untouched);
  EXPECT_TRUE(decode72(record(block_entry(1, 0x80, word))).ok());
  EXPECT_EQ(pages.home[71], std::byte{0x42});
  EXPECT_EQ(pages.home[70], std::byte{0x11});
}

// Two writers change disjoint bytes of one page (whole words, parts of
// words, both sides of lane and word edges, neighbouring bytes of one
// word); their diffs reach the home in either order, as messages or one
// merged and the other applied. Every byte of both must survive, and the
// home's own bytes elsewhere. A decoder writing the changed words whole
// (the whole-word-apply test fault) must lose some.
TEST(Diff, TwoWritersOfOnePageMergeByteExact) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<std::byte> twin(kPage), a, b, home(kPage), want(kPage);
    for (auto& x : twin) x = std::byte(static_cast<uint8_t>(rng()));
    a = b = twin;
    for (size_t i = 0; i < kPage; ++i) {
      const size_t word = i / 8;
      // Words alternate between three kinds: one writer's whole, split byte by byte, untouched.
      const unsigned kind = static_cast<unsigned>((word * 2654435761u + static_cast<unsigned>(trial)) % 3);
      const bool to_a = kind == 0 ? word % 2 == 0 : (i + static_cast<size_t>(trial)) % 2 == 0;
      if (kind == 2) continue;
      (to_a ? a : b)[i] = ~twin[i];
    }
    for (size_t i = 0; i < kPage; ++i) {
      home[i] = twin[i];
      want[i] = a[i] != twin[i] ? a[i] : b[i] != twin[i] ? b[i] : twin[i];
    }
    auto message = [&](const std::vector<std::byte>& page) {
      Writer w(MsgType::kDiff);
      encode_diff(7, page.data(), twin.data(), kPage, &w);
      return w.finish(1);
    };
    auto apply = [&](const std::vector<std::byte>& msg, std::vector<std::byte>* to, bool fault) {
      Pages pages;
      pages.home = *to;
      Reader r(msg.data(), msg.size());
      MsgType type;
      ASSERT_TRUE(r.open(&type).ok());
      uint32_t p;
      size_t n;
      ASSERT_TRUE(apply_diff(&r, kPage, &Pages::locate, &pages, &p, &n, nullptr, 0, fault).ok());
      *to = pages.home;
    };
    std::vector<std::byte> ab = home, ba = home, merged = home, broken = home;
    apply(message(a), &ab, false);
    apply(message(b), &ab, false);
    apply(message(b), &ba, false);
    apply(message(a), &ba, false);
    merge_diff(merged.data(), a.data(), twin.data(), kPage);
    apply(message(b), &merged, false);
    EXPECT_TRUE(ab == want) << "a then b, trial " << trial;
    EXPECT_TRUE(ba == want) << "b then a, trial " << trial;
    EXPECT_TRUE(merged == want) << "a merged, b applied, trial " << trial;
    apply(message(a), &broken, true);
    apply(message(b), &broken, true);
    EXPECT_FALSE(broken == want) << "whole words applied, trial " << trial;
  }
}

// The largest unit with bytes changed here and there, its last block too:
// the plain encoder's record, and the unit rebuilt on a home with other
// values in the unchanged bytes.
TEST(Diff, TheLargestUnitMatchesThePlainRecord) {
  constexpr size_t kUnit = size_t{65536} * 8;
  std::mt19937 rng(3);
  std::vector<std::byte> twin(kUnit), page;
  for (auto& x : twin) x = std::byte(static_cast<uint8_t>(rng()));
  page = twin;
  for (int i = 0; i < 3000; ++i) page[rng() % kUnit] ^= std::byte{0x24};
  for (size_t i = kUnit - 70; i < kUnit; i += 3) page[i] ^= std::byte{0x18};
  Writer w(MsgType::kDiff);
  const size_t changed = encode_diff(9, page.data(), twin.data(), kUnit, &w);
  const std::vector<std::byte> msg = w.finish(1);
  const std::vector<std::byte> want = reference_record(9, page, twin);
  ASSERT_EQ(msg.size(), sizeof(MsgHeader) + want.size());
  EXPECT_TRUE(std::equal(want.begin(), want.end(), msg.begin() + sizeof(MsgHeader)));
  struct Unit {
    std::vector<std::byte> home;
    static std::byte* locate(void* ctx, uint32_t) { return static_cast<Unit*>(ctx)->home.data(); }
  } unit{std::vector<std::byte>(kUnit, std::byte{0x77})};
  Reader r(msg.data(), msg.size());
  MsgType type;
  ASSERT_TRUE(r.open(&type).ok());
  uint32_t p = 0;
  size_t n = 0;
  ASSERT_TRUE(apply_diff(&r, kUnit, &Unit::locate, &unit, &p, &n).ok());
  EXPECT_EQ(n, changed);
  size_t wrong = 0;
  for (size_t i = 0; i < kUnit; ++i) wrong += unit.home[i] != (page[i] != twin[i] ? page[i] : std::byte{0x77});
  EXPECT_EQ(wrong, 0u);
}

TEST(Diff, DecoderRejectsPagesNotHomedHere) {
  Writer w(MsgType::kDiff);
  w.put<uint32_t>(8);  // locate() knows only page 7
  w.put<uint32_t>(0);
  auto msg = w.finish(1);
  Pages pages;
  EXPECT_FALSE(decode(msg, &pages).ok());
}

}  // namespace
}  // namespace scopedsm
