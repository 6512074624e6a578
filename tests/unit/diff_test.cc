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
// 65536 words) written whole, and its last byte alone: 16-bit word numbers
// and run lengths still name every word.
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

// The record format written out plainly (protocol/diff.h), a word at a
// time, against which the encoder's faster scan is checked byte for byte.
std::vector<std::byte> reference_record(uint32_t page_index, const std::vector<std::byte>& page,
                                        const std::vector<std::byte>& twin) {
  std::vector<uint8_t> body;
  const size_t words = page.size() / 8;
  size_t w = 0;
  while (w < words) {
    auto mask_of = [&](size_t word) {
      uint8_t m = 0;
      for (int b = 0; b < 8; ++b) m = static_cast<uint8_t>(m | (page[word * 8 + b] != twin[word * 8 + b]) << b);
      return m;
    };
    if (mask_of(w) == 0) {
      ++w;
      continue;
    }
    const size_t first = w;
    std::vector<uint8_t> masks, bytes;
    while (w < words && masks.size() < 256 && mask_of(w) != 0) {
      masks.push_back(mask_of(w));
      for (int b = 0; b < 8; ++b)
        if (masks.back() >> b & 1) bytes.push_back(static_cast<uint8_t>(page[w * 8 + b]));
      ++w;
    }
    for (const uint16_t v : {static_cast<uint16_t>(first), static_cast<uint16_t>(masks.size())}) {
      body.push_back(static_cast<uint8_t>(v));
      body.push_back(static_cast<uint8_t>(v >> 8));
    }
    body.insert(body.end(), masks.begin(), masks.end());
    body.insert(body.end(), bytes.begin(), bytes.end());
  }
  std::vector<std::byte> out;
  if (body.empty()) return out;
  for (const uint32_t v : {page_index, static_cast<uint32_t>(body.size())})
    for (int i = 0; i < 4; ++i) out.push_back(std::byte(static_cast<uint8_t>(v >> (8 * i))));
  for (const uint8_t b : body) out.push_back(std::byte(b));
  return out;
}

// Pages changed in the shapes the scan treats apart: untouched 64-byte
// blocks, blocks changed whole, words changed in part, runs that cross
// block boundaries and reach the 256-word limit, in pages of 1 and 2 OS
// pages and in sizes that end in part of a block. Several records go into one message, as a DIFF carries them, so
// room given back by one is reused by the next. The records must be the
// plain encoder's, byte for byte, and merge_diff must write what applying
// them writes.
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
        switch (rng() % 6) {
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

TEST(Diff, DecoderRejectsMalformedRecordsWithoutWriting) {
  Pages pages;
  pages.home.assign(kPage, std::byte{0x11});
  auto untouched = pages.home;
  // run past the end of the page: first_word 511, 2 words
  EXPECT_FALSE(decode(record({0xff, 0x01, 0x02, 0x00, 0xff, 0xff}), &pages).ok());
  // zero-length run
  EXPECT_FALSE(decode(record({0x00, 0x00, 0x00, 0x00}), &pages).ok());
  // mask says 8 bytes, only 2 present
  EXPECT_FALSE(decode(record({0x01, 0x00, 0x01, 0x00, 0xff, 1, 2}), &pages).ok());
  // body length larger than the message
  EXPECT_FALSE(decode(record({0x01, 0x00}, 1000), &pages).ok());
  // runs out of order: word 5 then word 3; the first run is valid but nothing may be applied
  EXPECT_FALSE(decode(record({0x05, 0x00, 0x01, 0x00, 0x01, 0x42, 0x03, 0x00, 0x01, 0x00, 0x01, 0x43}), &pages).ok());
  EXPECT_EQ(pages.home, untouched);
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
