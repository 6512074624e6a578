#include "proto/diff_sketch.h"

#include <cstdlib>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace bench::sketch {

namespace {

constexpr size_t kMaxWords = 65536 / 8;  // pages up to 64 KiB

inline uint64_t load64(const std::byte* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

inline uint16_t load16(const std::byte* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}

inline uint32_t load32(const std::byte* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// Bit b set iff byte b of x is non-zero (the runtime's formula).
inline uint8_t nonzero_byte_mask(uint64_t x) {
  constexpr uint64_t kLow7 = 0x7f7f7f7f7f7f7f7full;
  uint64_t high = (((x & kLow7) + kLow7) | x) & ~kLow7;
  return static_cast<uint8_t>(((high >> 7) * 0x0102040810204080ull) >> 56);
}

// Copies n bytes eight at a time; may write up to 7 bytes past dst + n (the
// record buffer has that slack) and read up to 7 past src + n.
// The first eight bytes in one move (most runs are short); the rest through
// the C library (memmove: GCC may inline a variable memcpy as "rep movsq",
// which starts slowly).
inline void copy_over(std::byte* dst, const std::byte* src, size_t n) {
  std::memcpy(dst, src, 8);
  if (n > 8) std::memmove(dst + 8, src + 8, n - 8);
}

inline uint64_t popcount64(uint64_t x) {
  x = x - ((x >> 1) & 0x5555555555555555ull);
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
  return (x * 0x0101010101010101ull) >> 56;
}

// Total set bits in n mask bytes.
inline size_t mask_bits(const std::byte* masks, size_t n) {
  size_t bits = 0, i = 0;
  for (; i + 8 <= n; i += 8) bits += popcount64(load64(masks + i));
  for (; i < n; ++i) bits += popcount64(static_cast<uint8_t>(masks[i]));
  return bits;
}

inline bool all_full(const std::byte* masks, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    if (load64(masks + i) != ~0ull) return false;
  for (; i < n; ++i)
    if (static_cast<uint8_t>(masks[i]) != 0xff) return false;
  return true;
}

}  // namespace

size_t max_record_size(size_t page_size) {
  // Every other word changed, each its own run: a 4-byte header, one mask
  // byte and eight data bytes per changed word.
  const size_t words = page_size / 8;
  return 8 + words * 9 + 4 * (words / 2 + 1) + 8;  // + copy_over's slack
}

// Per-word byte masks of a page against its twin: bit b of masks[w] is set
// iff byte b of word w differs. SSE2 (part of x86-64) compares 16 bytes at a
// time; elsewhere the runtime's word formula does it.
void byte_masks(const std::byte* page, const std::byte* twin, size_t words, uint8_t* masks) {
#if defined(__SSE2__)
  for (size_t w = 0; w + 2 <= words; w += 2) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(page + w * 8));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(twin + w * 8));
    const unsigned diff = ~static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(a, b))) & 0xffffu;
    masks[w] = static_cast<uint8_t>(diff);
    masks[w + 1] = static_cast<uint8_t>(diff >> 8);
  }
  if (words % 2) masks[words - 1] = nonzero_byte_mask(load64(page + (words - 1) * 8) ^ load64(twin + (words - 1) * 8));
#else
  for (size_t w = 0; w < words; ++w) masks[w] = nonzero_byte_mask(load64(page + w * 8) ^ load64(twin + w * 8));
#endif
}

size_t encode_diff(uint32_t page_index, const std::byte* page, const std::byte* twin, size_t page_size,
                   std::byte* out, size_t* changed_bytes) {
  const size_t words = page_size / 8;
  uint8_t masks[kMaxWords + 8];  // copy_over may read 7 past the last mask
  uint64_t changed_words[kMaxWords / 64 + 1];
  if (words > kMaxWords) std::abort();
  std::memset(changed_words, 0, (words / 64 + 1) * sizeof(uint64_t));
  byte_masks(page, twin, words, masks);
  // One bit per changed word, eight words at a time.
  for (size_t w = 0; w + 8 <= words; w += 8)
    changed_words[w / 64] |= static_cast<uint64_t>(nonzero_byte_mask(load64(reinterpret_cast<std::byte*>(masks + w))))
                             << (w % 64);
  for (size_t w = words - words % 8; w < words; ++w)
    if (masks[w]) changed_words[w / 64] |= 1ull << (w % 64);

  std::byte* p = out + 8;
  size_t changed = 0;
  size_t w = 0;
  while (w < words) {
    // The next changed word, from the bitmap.
    uint64_t bits = changed_words[w / 64] >> (w % 64);
    if (bits == 0) {
      w = (w / 64 + 1) * 64;
      continue;
    }
    w += static_cast<size_t>(__builtin_ctzll(bits));
    // The run: consecutive changed words, at most 256 (the runtime's limit).
    const size_t first = w;
    for (;;) {
      const uint64_t unchanged = ~changed_words[w / 64] >> (w % 64);
      if (unchanged != 0) {
        w += static_cast<size_t>(__builtin_ctzll(unchanged));
        break;
      }
      w = (w / 64 + 1) * 64;  // the rest of this bitmap word changed
      if (w >= words) break;
    }
    if (w > words) w = words;
    if (w - first > 256) w = first + 256;
    const size_t count = w - first;
    const uint16_t hdr[2] = {static_cast<uint16_t>(first), static_cast<uint16_t>(count)};
    std::memcpy(p, hdr, 4);
    copy_over(p + 4, reinterpret_cast<const std::byte*>(masks + first), count);
    std::byte* data = p + 4 + count;
    const std::byte* src = page + first * 8;
    if (all_full(reinterpret_cast<const std::byte*>(masks + first), count)) {
      copy_over(data, src, count * 8);
      changed += count * 8;
      p = data + count * 8;
      continue;
    }
    for (size_t i = 0; i < count; ++i, src += 8) {
      const uint8_t m = masks[first + i];
      if (m == 0xff) {
        std::memcpy(data, src, 8);
        data += 8;
        continue;
      }
      for (unsigned b = m; b != 0; b &= b - 1) *data++ = src[__builtin_ctz(b)];
    }
    changed += static_cast<size_t>(data - (p + 4 + count));
    p = data;
  }
  *changed_bytes = changed;
  if (changed == 0) return 0;
  const uint32_t body = static_cast<uint32_t>(p - (out + 8));
  std::memcpy(out, &page_index, 4);
  std::memcpy(out + 4, &body, 4);
  return 8 + body;
}

size_t apply_diff(const std::byte* rec, size_t n, std::byte* dst, size_t page_size) {
  if (n < 8) return 0;
  const size_t body = load32(rec + 4);
  if (body > n - 8) return 0;
  const size_t words = page_size / 8;
  const std::byte* const begin = rec + 8;
  const std::byte* const end = begin + body;
  // Pass 1: validate the whole record; nothing is written unless it is good.
  size_t next_word = 0;
  for (const std::byte* p = begin; p != end;) {
    if (end - p < 4) return 0;
    const size_t first = load16(p), count = load16(p + 2);
    if (count == 0 || first < next_word || first + count > words) return 0;
    if (static_cast<size_t>(end - p - 4) < count) return 0;
    const size_t nbytes = mask_bits(p + 4, count);
    if (static_cast<size_t>(end - p - 4) - count < nbytes) return 0;
    p += 4 + count + nbytes;
    next_word = first + count;
  }
  // Pass 2: apply.
  for (const std::byte* p = begin; p != end;) {
    const size_t first = load16(p), count = load16(p + 2);
    const std::byte* masks = p + 4;
    const std::byte* data = masks + count;
    std::byte* out = dst + first * 8;
    if (all_full(masks, count)) {
      std::memcpy(out, data, count * 8);
      p = data + count * 8;
      continue;
    }
    for (size_t i = 0; i < count; ++i, out += 8) {
      const uint8_t m = static_cast<uint8_t>(masks[i]);
      if (m == 0xff) {
        std::memcpy(out, data, 8);
        data += 8;
        continue;
      }
      for (unsigned bits = m; bits != 0; bits &= bits - 1) out[__builtin_ctz(bits)] = *data++;
    }
    p = data;
  }
  return 8 + body;
}

}  // namespace bench::sketch
