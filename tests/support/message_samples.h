// Valid messages made field by field, from the field kinds of their
// fields() (protocol/messages.h), for the unit tests, the codec fuzz target
// and its corpus: a message added to the table gets samples everywhere with
// no code of its own here.
//
// A Source supplies the values:
//   uint64_t pick(uint64_t lo, uint64_t hi)     a number in [lo, hi]
//   std::vector<std::byte> bytes(size_t max)    at most max bytes
// SeededSource draws them from a fixed seed; LowestSource and HighestSource
// take the bounds, so every limit is met exactly once in their samples.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "protocol/messages.h"

namespace scopedsm::samples {

// Numbers from mt19937_64, whose sequence the standard fixes (unlike the
// distributions'), so make_corpus writes the same files under every compiler.
class SeededSource {
 public:
  explicit SeededSource(uint64_t seed) : rng_(seed) {}
  uint64_t pick(uint64_t lo, uint64_t hi) {
    const uint64_t span = hi - lo;
    return span == UINT64_MAX ? rng_() : lo + rng_() % (span + 1);
  }
  std::vector<std::byte> bytes(size_t max) {
    std::vector<std::byte> out(static_cast<size_t>(pick(0, std::min<size_t>(max, 64))));
    for (auto& b : out) b = static_cast<std::byte>(rng_());
    return out;
  }

 private:
  std::mt19937_64 rng_;
};

struct LowestSource {
  uint64_t pick(uint64_t lo, uint64_t) { return lo; }
  std::vector<std::byte> bytes(size_t) { return {}; }
};

struct HighestSource {
  uint64_t pick(uint64_t, uint64_t hi) { return hi; }
  std::vector<std::byte> bytes(size_t max) { return std::vector<std::byte>(max, std::byte{0xa5}); }
};

// Most notices and blobs a sample carries, and the longest blob: enough to
// have several, few enough to keep inputs small.
constexpr uint64_t kMaxSampleNotices = 40;
constexpr uint64_t kMaxSampleBlobs = 8;
constexpr size_t kMaxSampleBlob = 64;

// The fields() visitor that fills a message with values its decoder accepts
// under `l`. possible() is false when some field has no valid value (a page
// when no page is allocated). A tail points into the filler: use the
// message while the filler lives.
template <typename Source>
class ValidFiller {
 public:
  ValidFiller(const Limits& l, Source* src) : l_(l), src_(src) {}
  bool possible() const { return possible_; }

  void u32(uint32_t& x) { x = static_cast<uint32_t>(src_->pick(0, UINT32_MAX)); }
  void u64(uint64_t& x) { x = src_->pick(0, UINT64_MAX); }
  void i32(int32_t& x) { x = static_cast<int32_t>(static_cast<uint32_t>(src_->pick(0, UINT32_MAX))); }
  void epoch(uint32_t& x) { u32(x); }
  void page(uint32_t& x) {
    if (l_.pages == 0) possible_ = false;
    else x = static_cast<uint32_t>(src_->pick(0, std::min<uint64_t>(l_.pages - 1, UINT32_MAX)));
  }
  void run(uint32_t first, uint32_t& n) {
    const uint64_t room = l_.pages > first ? l_.pages - first : 1;
    n = static_cast<uint32_t>(src_->pick(1, std::min<uint64_t>(kMaxFetchPages, room)));
  }
  void lane(uint32_t& x) { x = static_cast<uint32_t>(src_->pick(0, kMaxAsyncFetches)); }
  void lock(uint32_t& x) { x = static_cast<uint32_t>(src_->pick(0, static_cast<uint64_t>(l_.locks) - 1)); }
  void cv(uint32_t& x) { x = static_cast<uint32_t>(src_->pick(0, static_cast<uint64_t>(l_.condvars) - 1)); }
  void rank(const char*, int32_t& x) { x = static_cast<int32_t>(src_->pick(0, static_cast<uint64_t>(l_.ranks) - 1)); }
  void flag(const char*, bool& b) { b = src_->pick(0, 1) == 1; }
  void notices(std::vector<WriteNotice>& v) {
    // Without pages no notice is valid, but an empty list is.
    v.resize(l_.pages == 0 ? 0 : static_cast<size_t>(src_->pick(0, kMaxSampleNotices)));
    for (WriteNotice& n : v) {
      page(n.page);
      // One past the last rank stands for "several writers".
      const auto w = static_cast<int32_t>(src_->pick(0, static_cast<uint64_t>(l_.ranks)));
      n.writer = w == l_.ranks ? kMultipleWriters : w;
    }
  }
  void text(const char*, std::string& s, uint32_t max) {
    const std::vector<std::byte> b = src_->bytes(max);
    s.assign(reinterpret_cast<const char*>(b.data()), b.size());
  }
  void blob(std::vector<std::byte>& b) { b = src_->bytes(kMaxSampleBlob); }
  void blobs(std::vector<std::vector<std::byte>>& v) {
    v.resize(static_cast<size_t>(src_->pick(0, std::min<uint64_t>(static_cast<uint64_t>(l_.ranks), kMaxSampleBlobs))));
    for (auto& b : v) blob(b);
  }
  void tail(std::span<const std::byte>& t) {
    kept_.push_back(src_->bytes(kMaxSampleBlob));
    t = kept_.back();
  }

 private:
  const Limits& l_;
  Source* const src_;
  bool possible_ = true;
  std::deque<std::vector<std::byte>> kept_;  // tails point here
};

// A fields() visitor that looks at no field: visitors that check some kinds
// derive from it and hide the kinds they check.
struct LookAtNothing {
  void u32(const auto&) {}
  void u64(const auto&) {}
  void i32(const auto&) {}
  void epoch(const auto&) {}
  void page(const auto&) {}
  void run(const auto&, const auto&) {}
  void lane(const auto&) {}
  void lock(const auto&) {}
  void cv(const auto&) {}
  void rank(const char*, const auto&) {}
  void flag(const char*, const auto&) {}
  void notices(const auto&) {}
  void text(const char*, const auto&, uint32_t) {}
  void blob(const auto&) {}
  void blobs(const auto&) {}
  void tail(const auto&) {}
};

}  // namespace scopedsm::samples
