#include "protocol/diff.h"

#include <algorithm>
#include <array>
#include <utility>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <cstring>

#include "common/log.h"


namespace scopedsm {

namespace {

inline uint64_t load_word(const std::byte* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Bit b set iff byte b of x is non-zero.
inline uint8_t nonzero_byte_mask(uint64_t x) {
  constexpr uint64_t kLow7 = 0x7f7f7f7f7f7f7f7full;
  uint64_t high = (((x & kLow7) + kLow7) | x) & ~kLow7;  // 0x80 in each non-zero byte
  return static_cast<uint8_t>(((high >> 7) * 0x0102040810204080ull) >> 56);
}

// Bits set in a mask byte; a table, because without a popcount instruction
// in the target ISA the builtin becomes a library call.
constexpr std::array<uint8_t, 256> kBitsIn = [] {
  std::array<uint8_t, 256> t{};
  for (int i = 0; i < 256; ++i)
    for (int b = 0; b < 8; ++b) t[static_cast<size_t>(i)] = static_cast<uint8_t>(t[static_cast<size_t>(i)] + ((i >> b) & 1));
  return t;
}();

// A block of 8 words: the unit of the scan. A page (a whole number of OS
// pages) is a whole number of blocks.
constexpr size_t kBlockBytes = 64;

// Bit i set iff byte i of the 64-byte block at `a` and `b`'s differ, for
// the first `words` words only (the last block of a page of no whole
// number of blocks).
inline uint64_t partial_block_changes(const std::byte* a, const std::byte* b, size_t words) {
  uint64_t bits = 0;
  for (size_t j = 0; j < words; ++j)
    bits |= static_cast<uint64_t>(nonzero_byte_mask(load_word(a + 8 * j) ^ load_word(b + 8 * j))) << (8 * j);
  return bits;
}

// Bit i set iff byte i of the 64-byte block at `a` differs from `b`'s: the
// eight words' byte masks, word j's in bits 8j..8j+7. With SSE2 (every
// x86-64) sixteen bytes at a time, so that an unchanged block costs eight
// loads and a test; elsewhere a word at a time.
inline uint64_t block_changes(const std::byte* a, const std::byte* b) {
#if defined(__SSE2__)
  const auto at = [](const std::byte* p, int i) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p) + i); };
  const __m128i d0 = _mm_xor_si128(at(a, 0), at(b, 0));
  const __m128i d1 = _mm_xor_si128(at(a, 1), at(b, 1));
  const __m128i d2 = _mm_xor_si128(at(a, 2), at(b, 2));
  const __m128i d3 = _mm_xor_si128(at(a, 3), at(b, 3));
  const __m128i zero = _mm_setzero_si128();
  const __m128i any = _mm_or_si128(_mm_or_si128(d0, d1), _mm_or_si128(d2, d3));
  if (_mm_movemask_epi8(_mm_cmpeq_epi8(any, zero)) == 0xffff) return 0;  // the common case: unchanged
  const auto same = [&](__m128i d) {
    return static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(d, zero))));
  };
  return ~(same(d0) | same(d1) << 16 | same(d2) << 32 | same(d3) << 48);
#else
  return partial_block_changes(a, b, 8);
#endif
}

// Bits set in x (a popcount without the instruction, which the target ISA
// may lack).
inline size_t bits_in(uint64_t x) {
  x -= (x >> 1) & 0x5555555555555555ull;
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
  return static_cast<size_t>((x * 0x0101010101010101ull) >> 56);
}

// The changed words of a block: bit j iff byte j of `bits` is not zero.
inline unsigned changed_words_of(uint64_t bits) { return nonzero_byte_mask(bits); }

// For each set of changed words (bit j: word j), byte j holds word j's
// offset among the block's changed words: 8 × the changed words before it.
constexpr std::array<uint64_t, 256> kWordOffsets = [] {
  std::array<uint64_t, 256> t{};
  for (unsigned m = 0; m < 256; ++m) {
    uint64_t before = 0;
    for (unsigned j = 0; j < 8; ++j) {
      t[m] |= (8 * before) << (8 * j);
      before += (m >> j) & 1u;
    }
  }
  return t;
}();

// An entry's head: the block's number in the low 13 bits, its changed
// words less one in the high 3 (protocol/diff.h), so that the decoder
// finds the next entry without counting the mask's words first.
constexpr unsigned kBlockBits = 13;
constexpr size_t kMaxBlocks = size_t{1} << kBlockBits;
inline uint16_t entry_head(size_t block, size_t words) {
  return static_cast<uint16_t>(block | (words - 1) << kBlockBits);
}

// One block of the record: head, mask, then the changed words of `src`. A
// block changed whole is one copy; otherwise each of the eight words is
// stored at the offset kWordOffsets gives it (no branch per word). Room:
// kBlockEntry bytes at `at` (the eight stores of a block with seven changed
// words end there). Returns the new end.
constexpr size_t kBlockEntry = 2 + 8 + kBlockBytes;
inline std::byte* put_block(std::byte* at, size_t block, uint64_t bits, const std::byte* src) {
  std::memcpy(at + 2, &bits, 8);
  if (bits == ~uint64_t{0}) {
    const uint16_t head = entry_head(block, 8);
    std::memcpy(at, &head, 2);
    std::memcpy(at + 10, src, kBlockBytes);
    return at + kBlockEntry;
  }
  const unsigned words = changed_words_of(bits);
  const uint64_t offsets = kWordOffsets[words];
  std::byte* const data = at + 10;
  // Word j goes to its place among the changed words; an unchanged word is
  // stored where the next changed one then goes (or past the end).
#pragma GCC unroll 8
  for (size_t j = 0; j < 8; ++j) std::memcpy(data + (offsets >> (8 * j) & 0xff), src + 8 * j, 8);
  const size_t count = kBitsIn[words];
  const uint16_t head = entry_head(block, count);
  std::memcpy(at, &head, 2);
  return data + 8 * count;
}

// Writes the bytes of the word at `src` that mask `m` names to the word at `dst`.
inline void scatter_bytes(std::byte* dst, const std::byte* src, uint8_t m) {
  if (m == 0xff) {
    std::memcpy(dst, src, 8);
    return;
  }
  for (unsigned rest = m; rest != 0; rest &= rest - 1) {
    const int b = __builtin_ctz(rest);
    dst[b] = src[b];
  }
}

}  // namespace

size_t max_diff_record(size_t page_size) {
  return 8 + (page_size / 8 + 7) / 8 * kBlockEntry;
}

size_t encode_diff(uint32_t page_index, const std::byte* page, const std::byte* twin, size_t page_size,
                   Writer* out) {
  const size_t words = page_size / 8;
  const size_t whole = words / 8;
  if (whole + (words % 8 != 0) > kMaxBlocks)
    fatal("diff of a page of %zu bytes: a record numbers at most %zu blocks of %zu bytes", page_size, kMaxBlocks,
          kBlockBytes);
  const size_t start = out->size();
  size_t changed = 0;
  // The page is scanned in chunks of up to 64 blocks; the record grows by
  // the room a chunk's changed blocks may take (kBlockEntry each), filled
  // in place, and what is left over is given back. An unchanged page
  // appends nothing, so a new Writer is not grown (and cleared) to a
  // page's worst case for it.
  constexpr size_t kChunk = 64;
  uint64_t masks[kChunk];
  auto room_for = [&](size_t bytes) {
    const size_t head = out->size() == start ? 8 : 0;  // the record's head, written at the end
    std::byte* room = out->append_space(head + bytes) + head;
    return std::pair<size_t, std::byte*>{out->size() - bytes, room};
  };
  for (size_t first = 0; first < whole; first += kChunk) {
    const size_t n = std::min(kChunk, whole - first);
    size_t room = 0;
    for (size_t k = 0; k < n; ++k) {
      const uint64_t bits = block_changes(page + (first + k) * kBlockBytes, twin + (first + k) * kBlockBytes);
      masks[k] = bits;
      room += bits != 0 ? kBlockEntry : 0;
    }
    if (room == 0) continue;
    const auto [offset, base] = room_for(room);
    std::byte* at = base;
    for (size_t k = 0; k < n; ++k) {
      if (masks[k] == 0) continue;
      at = put_block(at, first + k, masks[k], page + (first + k) * kBlockBytes);
      changed += bits_in(masks[k]);
    }
    out->truncate(offset + static_cast<size_t>(at - base));
  }
  // The words after the last whole block (a page of a size no real page
  // has, but the format allows: any number of words): a block of its own,
  // its words stored one by one (eight stores would pass the page's end).
  if (const size_t rest = words - whole * 8; rest != 0) {
    const std::byte* src = page + whole * kBlockBytes;
    if (const uint64_t bits = partial_block_changes(src, twin + whole * kBlockBytes, rest); bits != 0) {
      const auto [offset, base] = room_for(kBlockEntry);
      std::byte* at = base;
      const uint16_t head = entry_head(whole, kBitsIn[changed_words_of(bits)]);
      std::memcpy(at, &head, 2);
      std::memcpy(at + 2, &bits, 8);
      at += 10;
      for (unsigned w = changed_words_of(bits); w != 0; w &= w - 1, at += 8)
        std::memcpy(at, src + 8 * static_cast<size_t>(__builtin_ctz(w)), 8);
      changed += bits_in(bits);
      out->truncate(offset + static_cast<size_t>(at - base));
    }
  }
  if (changed == 0) return 0;  // nothing changed: no record
  out->patch_u32(start, page_index);
  out->patch_u32(start + 4, static_cast<uint32_t>(out->size() - start - 8));
  return changed;
}

size_t merge_diff(std::byte* home, const std::byte* page, const std::byte* twin, size_t page_size) {
  size_t changed = 0;
  const size_t whole = page_size / kBlockBytes * kBlockBytes;
  for (size_t off = whole; off + 8 <= page_size; off += 8) {  // words after the last whole block
    const uint8_t m = nonzero_byte_mask(load_word(page + off) ^ load_word(twin + off));
    scatter_bytes(home + off, page + off, m);
    changed += kBitsIn[m];
  }
  for (size_t off = 0; off < whole; off += kBlockBytes) {
    const uint64_t bits = block_changes(page + off, twin + off);
    if (bits == 0) continue;
    if (bits == ~uint64_t{0}) {
      std::memcpy(home + off, page + off, kBlockBytes);
      changed += kBlockBytes;
      continue;
    }
    // Only the changed bytes: another writer may own the words' other bytes.
    for (size_t j = 0; j < 8; ++j) {
      const auto m = static_cast<uint8_t>(bits >> (8 * j));
      if (m == 0) continue;
      scatter_bytes(home + off + 8 * j, page + off + 8 * j, m);
      changed += kBitsIn[m];
    }
  }
  return changed;
}

Status apply_diff(Reader* in, size_t page_size, PageLocator locate, void* ctx, uint32_t* page_out,
                  size_t* changed_bytes_out, uint64_t* blocks_out, size_t block_size, bool whole_word_fault) {
  uint32_t page_index = 0, body_bytes = 0;
  if (Status s = in->get(&page_index); !s.ok()) return s;
  if (Status s = in->get(&body_bytes); !s.ok()) return s;
  const std::byte* body = nullptr;
  if (Status s = in->get_bytes(body_bytes, &body); !s.ok()) return Status::Error("diff body truncated");
  std::byte* dst = locate(ctx, page_index);
  if (dst == nullptr) return Status::Error("diff names page " + std::to_string(page_index) + " which is not homed here");
  const size_t words = page_size / 8;
  const size_t blocks = (words + 7) / 8;
  if (blocks > kMaxBlocks) return Status::Error("diff of a page of more than 8192 blocks");
  // The mask bits a block may set: all, but in a last block of fewer words
  // only those of its words.
  const size_t last_words = words % 8;
  const uint64_t last_allowed = last_words == 0 ? ~uint64_t{0} : (uint64_t{1} << (8 * last_words)) - 1;
  const std::byte* const end = body + body_bytes;

  // Pass 1 validates the whole record; pass 2 applies it. A bad record
  // therefore leaves the page untouched.
  size_t changed = 0, next = 0;
  for (const std::byte* at = body; at < end;) {
    if (end - at < 10) return Status::Error("diff block header truncated");
    uint16_t head = 0;
    uint64_t bits = 0;
    std::memcpy(&head, at, 2);
    std::memcpy(&bits, at + 2, 8);
    at += 10;
    const size_t block = head & (kMaxBlocks - 1);
    const size_t data = 8 * ((head >> kBlockBits) + 1u);
    if (block >= blocks) return Status::Error("diff block past the page end");
    if (block < next) return Status::Error("diff blocks overlap or are out of order");
    if (bits == 0) return Status::Error("diff block with no changed byte");
    if (block == blocks - 1 && (bits & ~last_allowed) != 0) return Status::Error("diff mask names bytes past the page end");
    if (data != 8 * kBitsIn[changed_words_of(bits)]) return Status::Error("diff block's word count differs from its mask");
    if (static_cast<size_t>(end - at) < data) return Status::Error("diff data truncated");
    at += data;
    changed += bits_in(bits);
    next = block + 1;
  }
  for (const std::byte* at = body; at < end;) {
    uint16_t head = 0;
    uint64_t bits = 0;
    std::memcpy(&head, at, 2);
    std::memcpy(&bits, at + 2, 8);
    const size_t block = head & (kMaxBlocks - 1);
    const std::byte* const next_entry = at + 10 + 8 * ((head >> kBlockBits) + 1u);
    const std::byte* data = at + 10;
    std::byte* const to = dst + block * kBlockBytes;
    if (blocks_out != nullptr) {
      const size_t first = block * kBlockBytes + static_cast<size_t>(__builtin_ctzll(bits));
      const size_t last = block * kBlockBytes + 63 - static_cast<size_t>(__builtin_clzll(bits));
      for (size_t b = first / block_size; b <= last / block_size; ++b) *blocks_out |= uint64_t{1} << b;
    }
    if (bits == ~uint64_t{0}) {
      std::memcpy(to, data, kBlockBytes);  // the whole block: one copy
    } else {
      for (unsigned w = changed_words_of(bits); w != 0; w &= w - 1, data += 8) {
        const auto j = static_cast<size_t>(__builtin_ctz(w));
        scatter_bytes(to + 8 * j, data, whole_word_fault ? uint8_t{0xff} : static_cast<uint8_t>(bits >> (8 * j)));
      }
    }
    at = next_entry;
  }
  *page_out = page_index;
  *changed_bytes_out = changed;
  return Status::Ok();
}

}  // namespace scopedsm
