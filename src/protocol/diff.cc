#include "protocol/diff.h"

#include <array>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <cstring>

#include "common/checked.h"

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

constexpr size_t kMaxRunWords = 256;

// A block of 8 words: the unit of the scan. A page (a whole number of OS
// pages) is a whole number of blocks.
constexpr size_t kBlockBytes = 64;

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
  uint64_t bits = 0;
  for (int j = 0; j < 8; ++j)
    bits |= static_cast<uint64_t>(nonzero_byte_mask(load_word(a + 8 * j) ^ load_word(b + 8 * j))) << (8 * j);
  return bits;
#endif
}

// Copies the bytes of the word at `src` that mask `m` names, in order, to
// `out`; returns their number.
inline size_t gather_bytes(const std::byte* src, uint8_t m, std::byte* out) {
  if (m == 0xff) {
    std::memcpy(out, src, 8);
    return 8;
  }
  size_t n = 0;
  for (unsigned rest = m; rest != 0; rest &= rest - 1) out[n++] = src[__builtin_ctz(rest)];
  return n;
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

template <typename T>
void store(std::byte** at, T v) {
  std::memcpy(*at, &v, sizeof v);
  *at += sizeof v;
}

template <typename T>
bool take(const std::byte** at, const std::byte* end, T* v) {
  if (static_cast<size_t>(end - *at) < sizeof(T)) return false;
  std::memcpy(v, *at, sizeof(T));
  *at += sizeof(T);
  return true;
}

}  // namespace

size_t encode_diff(uint32_t page_index, const std::byte* page, const std::byte* twin, size_t page_size,
                   Writer* out) {
  const size_t words = page_size / 8;
  // Room for the worst case (every other word changed, partially), filled
  // in place; what is left over is given back at the end.
  const size_t start = out->size();
  const size_t worst = 8 + (words / 2 + 1) * 4 + words + page_size;
  std::byte* const base = out->append_space(worst);
  std::byte* at = base + 8;
  size_t changed = 0;
  // The run being built: words [first, first + count) changed.
  uint8_t masks[kMaxRunWords];
  std::byte bytes[kMaxRunWords * 8];
  size_t first = 0, count = 0, nbytes = 0;
  auto end_run = [&] {
    store(&at, static_cast<uint16_t>(first));
    store(&at, static_cast<uint16_t>(count));
    if (count == 1 && nbytes == 8) {  // the common short run, in fixed-size copies
      *at++ = static_cast<std::byte>(masks[0]);
      std::memcpy(at, bytes, 8);
    } else {
      std::memcpy(at, masks, count);
      at += count;
      std::memcpy(at, bytes, nbytes);
    }
    at += nbytes;
    changed += nbytes;
    count = 0;
    nbytes = 0;
  };
  // Adds changed word `w` (byte mask `m`) to the run, which it continues
  // or, after a gap, replaces.
  auto add_word = [&](size_t w, uint8_t m) {
    if (count != 0 && first + count != w) end_run();
    if (count == 0) first = w;
    masks[count++] = m;
    nbytes += gather_bytes(page + w * 8, m, bytes + nbytes);
    if (count == kMaxRunWords) end_run();  // a long run goes out in pieces
  };
  for (size_t block = 0; block < words / 8; ++block) {
    const uint64_t bits = block_changes(page + block * kBlockBytes, twin + block * kBlockBytes);
    if (bits == 0) continue;
    if (bits == ~uint64_t{0} && count + 8 <= kMaxRunWords) {  // every byte changed: one copy
      if (count != 0 && first + count != block * 8) end_run();
      if (count == 0) first = block * 8;
      std::memset(masks + count, 0xff, 8);
      std::memcpy(bytes + nbytes, page + block * kBlockBytes, kBlockBytes);
      count += 8;
      nbytes += kBlockBytes;
      if (count == kMaxRunWords) end_run();
      continue;
    }
    // The changed words of the block, bit j for word j (byte j of `bits` is its mask).
    for (unsigned changed_words = nonzero_byte_mask(bits); changed_words != 0; changed_words &= changed_words - 1) {
      const auto j = static_cast<size_t>(__builtin_ctz(changed_words));
      add_word(block * 8 + j, static_cast<uint8_t>(bits >> (8 * j)));
    }
  }
  // Words after the last whole block (a page of a size no real page has,
  // but the format allows: any number of words), one at a time.
  for (size_t w = words / 8 * 8; w < words; ++w)
    if (const uint8_t m = nonzero_byte_mask(load_word(page + w * 8) ^ load_word(twin + w * 8)); m != 0) add_word(w, m);
  if (count != 0) end_run();
  if (changed == 0) {
    out->truncate(start);  // nothing changed: no record
    return 0;
  }
  std::byte* head = base;
  store(&head, page_index);
  store(&head, static_cast<uint32_t>(at - (base + 8)));
  out->truncate(start + static_cast<size_t>(at - base));
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
                  size_t* changed_bytes_out, uint64_t* blocks_out, size_t block_size) {
  uint32_t page_index = 0, body_bytes = 0;
  if (Status s = in->get(&page_index); !s.ok()) return s;
  if (Status s = in->get(&body_bytes); !s.ok()) return s;
  const std::byte* body = nullptr;
  if (Status s = in->get_bytes(body_bytes, &body); !s.ok()) return Status::Error("diff body truncated");
  std::byte* dst = locate(ctx, page_index);
  if (dst == nullptr) return Status::Error("diff names page " + std::to_string(page_index) + " which is not homed here");
  const size_t words = page_size / 8;
  const std::byte* const end = body + body_bytes;

  // Pass 1 validates the whole record; pass 2 applies it. A bad record
  // therefore leaves the page untouched.
  size_t changed = 0;
  for (int pass = 0; pass < 2; ++pass) {
    const std::byte* at = body;
    size_t next_word = 0;
    changed = 0;
    while (at < end) {
      uint16_t first = 0, count = 0;
      if (!take(&at, end, &first) || !take(&at, end, &count)) return Status::Error("diff run header truncated");
      if (count == 0) return Status::Error("diff run of zero words");
      if (first < next_word) return Status::Error("diff runs overlap or are out of order");
      const std::optional<size_t> run_end = checked_add<size_t>(first, count);
      if (!run_end || *run_end > words) return Status::Error("diff run extends past the page end");
      if (static_cast<size_t>(end - at) < count) return Status::Error("diff masks truncated");
      const uint8_t* masks = reinterpret_cast<const uint8_t*>(at);
      at += count;
      size_t nbytes = 0;
      for (size_t i = 0; i < count; ++i) nbytes += kBitsIn[masks[i]];
      if (static_cast<size_t>(end - at) < nbytes) return Status::Error("diff data truncated");
      if (pass == 1) {
        if (blocks_out != nullptr)
          for (size_t b = static_cast<size_t>(first) * 8 / block_size; b <= (*run_end * 8 - 1) / block_size; ++b)
            *blocks_out |= uint64_t{1} << b;
        const std::byte* data = at;
        std::byte* word = dst + static_cast<size_t>(first) * 8;
        // Every byte of a long run changed: one copy (a short one is
        // copied a word at a time, which costs less than a call of memcpy).
        const size_t per_word = count >= 8 && nbytes == static_cast<size_t>(count) * 8 ? 0 : count;
        if (per_word == 0) std::memcpy(word, data, nbytes);
        for (size_t i = 0; i < per_word; ++i, word += 8) {
          const uint8_t m = masks[i];
          if (m == 0xff) {
            std::memcpy(word, data, 8);
            data += 8;
            continue;
          }
          for (unsigned rest = m; rest != 0; rest &= rest - 1) word[__builtin_ctz(rest)] = *data++;
        }
      }
      at += nbytes;
      changed += nbytes;
      next_word = *run_end;
    }
  }
  *page_out = page_index;
  *changed_bytes_out = changed;
  return Status::Ok();
}

}  // namespace scopedsm
