// Checked integer arithmetic for sizes, counts, blocks and offsets that come
// from a caller or from the wire.
//
// A wrapped size is worse than a crash. `bytes + page_size - 1` wrapping
// past 2^64 rounds a request of nearly 2^64 bytes down to zero pages, and
// the allocator then hands out the address of the next allocation; a block
// of nearly 2^64 bytes rounds to zero pages and becomes a division by zero.
// Every such computation goes through these helpers, which report overflow
// (std::nullopt) instead of wrapping, so the caller can name the bad value.
#pragma once

#include <cstdint>
#include <optional>
#include <type_traits>

namespace scopedsm {

// a + b, a - b and a * b, or nullopt when the exact result does not fit T.
// One type for both operands: a mixed-sign expression would hide the
// conversion the caller has to think about.
template <typename T>
[[nodiscard]] constexpr std::optional<T> checked_add(T a, T b) {
  static_assert(std::is_integral_v<T>);
  T r{};
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

template <typename T>
[[nodiscard]] constexpr std::optional<T> checked_sub(T a, T b) {
  static_assert(std::is_integral_v<T>);
  T r{};
  if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
  return r;
}

template <typename T>
[[nodiscard]] constexpr std::optional<T> checked_mul(T a, T b) {
  static_assert(std::is_integral_v<T>);
  T r{};
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// `v` as type To, or nullopt when To cannot hold it (a size_t length handed
// to MPI's int count, a page number put on the wire as 32 bits).
template <typename To, typename From>
[[nodiscard]] constexpr std::optional<To> checked_cast(From v) {
  static_assert(std::is_integral_v<To> && std::is_integral_v<From>);
  To r{};
  if (__builtin_add_overflow(v, From{0}, &r)) return std::nullopt;
  return r;
}

// The number of whole pages of `page_size` bytes that hold `bytes` (0 for
// 0 bytes), or nullopt when page_size is 0 or when those pages would span
// more than 2^64 - 1 bytes. On success pages * page_size >= bytes and the
// product fits 64 bits, so callers may form it without a further check.
// Computed as a quotient plus one for a remainder, which cannot wrap,
// rather than (bytes + page_size - 1) / page_size, which can.
[[nodiscard]] constexpr std::optional<uint64_t> round_up_pages(uint64_t bytes, uint64_t page_size) {
  if (page_size == 0) return std::nullopt;
  const uint64_t pages = bytes / page_size + (bytes % page_size != 0 ? 1 : 0);
  if (!checked_mul(pages, page_size)) return std::nullopt;
  return pages;
}

}  // namespace scopedsm
