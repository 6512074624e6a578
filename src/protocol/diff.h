// Diffs: the bytes a writer changed in a page, relative to its twin.
//
// A diff names exactly the changed bytes, never a whole word: two processes
// may write neighbouring bytes of one word in the same interval (arrays of
// char or short split between processes), and a whole-word diff from one
// would overwrite the other's bytes at the home.
//
// Encoding of one page's diff (all integers little-endian):
//   u32 page, u32 body_bytes, body
// where body is a sequence of runs of consecutive 8-byte words that differ:
//   u16 first_word, u16 word_count, word_count mask bytes, changed bytes
// Bit b of a word's mask says byte b of that word changed; the changed bytes
// follow in order. Runs are in increasing word order and do not overlap.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/status.h"
#include "transport/wire.h"

namespace scopedsm {

// Appends the diff of `page` (current contents) against `twin` to `out`.
// Returns the number of changed bytes (0: nothing was appended).
size_t encode_diff(uint32_t page_index, const std::byte* page, const std::byte* twin, size_t page_size,
                   Writer* out);

// Writes the bytes of `page` that differ from `twin` straight into `home`
// (the home's memory of the same page, mapped from a process on the same
// node), exactly those bytes and no others. Returns their number. The same
// bytes encode_diff would send, without encoding them.
size_t merge_diff(std::byte* home, const std::byte* page, const std::byte* twin, size_t page_size);

// Decodes one page diff from `in` and applies it. `locate` maps a page index
// to its writable memory, or returns nullptr (the page is not one this
// process may accept diffs for), which makes the diff an error. Nothing is
// written unless the whole record is well-formed. With `blocks_out`, sets
// bit b there for each block of `block_size` bytes the record wrote into
// (write vectors, memory/write_vectors.h).
using PageLocator = std::byte* (*)(void* ctx, uint32_t page_index);
Status apply_diff(Reader* in, size_t page_size, PageLocator locate, void* ctx, uint32_t* page_out,
                  size_t* changed_bytes_out, uint64_t* blocks_out = nullptr, size_t block_size = 0);

}  // namespace scopedsm
