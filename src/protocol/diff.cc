#include "protocol/diff.h"

#include <bit>
#include <cstring>
#include <vector>

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

}  // namespace

size_t encode_diff(uint32_t page_index, const std::byte* page, const std::byte* twin, size_t page_size,
                   Writer* out) {
  const size_t words = page_size / 8;
  size_t start_size = out->size();
  out->put<uint32_t>(page_index);
  size_t body_at = out->reserve_u32();
  size_t body_start = out->size();
  size_t changed = 0;
  uint8_t masks[256];
  std::byte bytes[256 * 8];
  size_t w = 0;
  while (w < words) {
    uint64_t x = load_word(page + w * 8) ^ load_word(twin + w * 8);
    if (x == 0) {
      ++w;
      continue;
    }
    // A run of consecutive changed words, at most 256 at a time (mask buffer).
    size_t first = w;
    size_t count = 0;
    size_t nbytes = 0;
    while (w < words && count < 256) {
      x = load_word(page + w * 8) ^ load_word(twin + w * 8);
      if (x == 0) break;
      uint8_t m = nonzero_byte_mask(x);
      masks[count++] = m;
      if (m == 0xff) {
        std::memcpy(bytes + nbytes, page + w * 8, 8);
        nbytes += 8;
      } else {
        for (int b = 0; b < 8; ++b)
          if (m & (1u << b)) bytes[nbytes++] = page[w * 8 + static_cast<size_t>(b)];
      }
      ++w;
    }
    out->put<uint16_t>(static_cast<uint16_t>(first));
    out->put<uint16_t>(static_cast<uint16_t>(count));
    out->put_bytes(masks, count);
    out->put_bytes(bytes, nbytes);
    changed += nbytes;
  }
  if (changed == 0) {
    out->truncate(start_size);  // nothing changed: take the record back out
    return 0;
  }
  out->patch_u32(body_at, static_cast<uint32_t>(out->size() - body_start));
  return changed;
}

Status apply_diff(Reader* in, size_t page_size, PageLocator locate, void* ctx, uint32_t* page_out,
                  size_t* changed_bytes_out) {
  uint32_t page_index = 0, body_bytes = 0;
  if (Status s = in->get(&page_index); !s.ok()) return s;
  if (Status s = in->get(&body_bytes); !s.ok()) return s;
  const std::byte* body = nullptr;
  if (Status s = in->get_bytes(body_bytes, &body); !s.ok()) return Status::Error("diff body truncated");
  std::byte* dst = locate(ctx, page_index);
  if (dst == nullptr) return Status::Error("diff names page " + std::to_string(page_index) + " which is not homed here");
  const size_t words = page_size / 8;

  // Pass 1 validates the whole record; pass 2 applies it. A bad record
  // therefore leaves the page untouched.
  for (int pass = 0; pass < 2; ++pass) {
    Reader r(body, body_bytes);
    size_t next_word = 0;
    size_t changed = 0;
    while (r.remaining() > 0) {
      uint16_t first = 0, count = 0;
      if (!r.get(&first).ok() || !r.get(&count).ok()) return Status::Error("diff run header truncated");
      if (count == 0) return Status::Error("diff run of zero words");
      if (first < next_word) return Status::Error("diff runs overlap or are out of order");
      if (static_cast<size_t>(first) + count > words) return Status::Error("diff run extends past the page end");
      const std::byte* masks = nullptr;
      if (!r.get_bytes(count, &masks).ok()) return Status::Error("diff masks truncated");
      size_t nbytes = 0;
      for (size_t i = 0; i < count; ++i) nbytes += static_cast<size_t>(std::popcount(static_cast<uint8_t>(masks[i])));
      const std::byte* data = nullptr;
      if (!r.get_bytes(nbytes, &data).ok()) return Status::Error("diff data truncated");
      if (pass == 1) {
        for (size_t i = 0; i < count; ++i) {
          uint8_t m = static_cast<uint8_t>(masks[i]);
          std::byte* word = dst + (static_cast<size_t>(first) + i) * 8;
          if (m == 0xff) {
            std::memcpy(word, data, 8);
            data += 8;
            continue;
          }
          for (int b = 0; b < 8; ++b)
            if (m & (1u << b)) word[b] = *data++;
        }
      }
      changed += nbytes;
      next_word = static_cast<size_t>(first) + count;
    }
    if (pass == 1) {
      *page_out = page_index;
      *changed_bytes_out = changed;
    }
  }
  return Status::Ok();
}

}  // namespace scopedsm
