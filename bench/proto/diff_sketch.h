// A sketch of a faster diff encoder and decoder, for comparison with the
// runtime's (protocol/diff.h). It reads and writes exactly the runtime's
// record format, so its output can be checked byte for byte against
// encode_diff and fed to apply_diff:
//   u32 page, u32 body_bytes, body = runs of (u16 first_word, u16 word_count,
//   word_count mask bytes, changed bytes)
// What it does differently, and why it is faster:
//   - writes straight into a buffer sized once (no per-field vector growth);
//   - computes each word's XOR once per pass and skips unchanged words
//     four at a time;
//   - a run whose words changed entirely is one memcpy each way;
//   - counts mask bits with an inline SWAR popcount, eight masks at a time
//     (the runtime's std::popcount becomes a libgcc call without -mpopcnt).
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
