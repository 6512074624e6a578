// The first two bytes of every fuzz input choose the receiving process's
// situation; the rest is the message as it arrived from MPI.
//
//   byte 0: bits 0-2 allocated pages, bits 3-5 ranks, bits 6-7 page size
//   byte 1: bits 0-1 locks, bits 2-3 condition variables,
//           bits 4-5 which pages the diff locator accepts (AcceptRule)
//
// Shared by the fuzz target and the corpus generator, so corpus files mean
// the same thing to both.
#pragma once

#include <cstddef>
#include <cstdint>

#include "protocol/messages.h"

namespace scopedsm::fuzz {

constexpr size_t kSetupBytes = 2;

// Pages a DIFF may name at this process (besides being below Limits::pages).
enum AcceptRule : uint8_t {
  kAcceptAll = 0,       // every allocated page is homed here
  kAcceptEven = 1,      // homes alternate between two processes
  kAcceptNone = 2,      // no page is homed here: every diff is an error
  kAcceptNotMod3Is1 = 3,
};

constexpr uint64_t kPagesTable[8] = {0, 1, 3, 16, 100, 4096, 1u << 20, 1ull << 32};
constexpr int kRanksTable[8] = {1, 2, 3, 4, 7, 16, 256, 65536};
constexpr size_t kPageSizeTable[4] = {4096, 8, 64, 16384};
// Index 0: the runtime's own limits.
constexpr int kLocksTable[4] = {kMaxLocks, 1, 8, 1 << 20};
constexpr int kCondvarsTable[4] = {kMaxCondvars, 1, 2, 4096};

struct Setup {
  Limits limits;
  size_t page_size = 4096;
  AcceptRule rule = kAcceptAll;
};

inline Setup setup_from(uint8_t a, uint8_t b) {
  Setup s;
  s.limits.pages = kPagesTable[a & 7];
  s.limits.ranks = kRanksTable[(a >> 3) & 7];
  s.page_size = kPageSizeTable[(a >> 6) & 3];
  s.limits.locks = kLocksTable[b & 3];
  s.limits.condvars = kCondvarsTable[(b >> 2) & 3];
  s.rule = static_cast<AcceptRule>((b >> 4) & 3);
  return s;
}

// The inverse of setup_from, by table index.
struct SetupIndex {
  uint8_t pages = 4, ranks = 3, page_size = 0, locks = 0, condvars = 0, rule = kAcceptAll;
};

inline void setup_bytes(const SetupIndex& i, uint8_t out[kSetupBytes]) {
  out[0] = static_cast<uint8_t>((i.pages & 7) | ((i.ranks & 7) << 3) | ((i.page_size & 3) << 6));
  out[1] = static_cast<uint8_t>((i.locks & 3) | ((i.condvars & 3) << 2) | ((i.rule & 3) << 4));
}

inline bool accepts(const Setup& s, uint32_t page) {
  if (page >= s.limits.pages) return false;
  switch (s.rule) {
    case kAcceptAll: return true;
    case kAcceptEven: return page % 2 == 0;
    case kAcceptNone: return false;
    case kAcceptNotMod3Is1: return page % 3 != 1;
  }
  return false;
}

}  // namespace scopedsm::fuzz
