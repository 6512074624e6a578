#include "protocol/diff.h"

#include <array>
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
  uint8_t masks[kMaxRunWords];
  std::byte bytes[kMaxRunWords * 8];
  size_t w = 0;
  while (w < words) {
    if (load_word(page + w * 8) == load_word(twin + w * 8)) {
      ++w;
      continue;
    }
    // A run of consecutive changed words, at most kMaxRunWords at a time.
    const size_t first = w;
    size_t count = 0;
    size_t nbytes = 0;
    while (w < words && count < kMaxRunWords) {
      const uint64_t x = load_word(page + w * 8) ^ load_word(twin + w * 8);
      if (x == 0) break;
      const uint8_t m = nonzero_byte_mask(x);
      masks[count++] = m;
      const std::byte* src = page + w * 8;
      if (m == 0xff) {
        std::memcpy(bytes + nbytes, src, 8);
        nbytes += 8;
      } else {
        for (int b = 0; b < 8; ++b)
          if (m & (1u << b)) bytes[nbytes++] = src[b];
      }
      ++w;
    }
    store(&at, static_cast<uint16_t>(first));
    store(&at, static_cast<uint16_t>(count));
    std::memcpy(at, masks, count);
    at += count;
    std::memcpy(at, bytes, nbytes);
    at += nbytes;
    changed += nbytes;
  }
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
  const size_t words = page_size / 8;
  size_t changed = 0;
  for (size_t w = 0; w < words; ++w) {
    const uint64_t x = load_word(page + w * 8) ^ load_word(twin + w * 8);
    if (x == 0) continue;
    const uint8_t m = nonzero_byte_mask(x);
    const std::byte* src = page + w * 8;
    std::byte* dst = home + w * 8;
    if (m == 0xff) {
      std::memcpy(dst, src, 8);
    } else {
      // Only the changed bytes: another writer may own the word's other bytes.
      for (int b = 0; b < 8; ++b)
        if (m & (1u << b)) dst[b] = src[b];
    }
    changed += kBitsIn[m];
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
        for (size_t i = 0; i < count; ++i, word += 8) {
          const uint8_t m = masks[i];
          if (m == 0xff) {
            std::memcpy(word, data, 8);
            data += 8;
            continue;
          }
          for (int b = 0; b < 8; ++b)
            if (m & (1u << b)) word[b] = *data++;
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
