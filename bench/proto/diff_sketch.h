// A sketch of a fast encoder and decoder of the runtime's former diff
// record format, kept to compare that format's size and speed with the
// runtime's block records (protocol/diff.h):
//   u32 page, u32 body_bytes, body = runs of (u16 first_word, u16 word_count,
//   word_count mask bytes, changed bytes)
// It writes straight into a buffer sized once, computes each word's XOR
// once per pass, skips unchanged words four at a time, copies a run whose
// words changed entirely in one memcpy each way and counts mask bits with
// an inline SWAR popcount, eight masks at a time.
#pragma once

#include <cstddef>
#include <cstdint>

namespace bench::sketch {

// The largest record encode_diff can write for a page of page_size bytes.
size_t max_record_size(size_t page_size);

// Writes the diff record of `page` against `twin` at `out`, which has room
// for max_record_size(page_size) bytes. Returns the record's size, 0 if the
// page did not change; *changed_bytes gets the number of changed bytes.
size_t encode_diff(uint32_t page_index, const std::byte* page, const std::byte* twin, size_t page_size,
                   std::byte* out, size_t* changed_bytes);

// Validates one whole record at `rec` (n bytes available), then applies it
// to `dst`. Returns the record's size, or 0 if it is malformed (then `dst`
// is untouched).
size_t apply_diff(const std::byte* rec, size_t n, std::byte* dst, size_t page_size);

}  // namespace bench::sketch
