// Diffs: the bytes a writer changed in a page, relative to its twin.
//
// A diff names exactly the changed bytes, never a whole word: two processes
// may write neighbouring bytes of one word in the same interval (arrays of
// char or short split between processes), and a whole-word diff from one
// would overwrite the other's bytes at the home.
//
// Encoding of one page's diff (all integers little-endian):
//   u32 page, u32 body_bytes, body
// where body is a sequence of changed 64-byte blocks of the page, in
// increasing block order, each
//   u16 head, u64 mask, then the block's changed words
// head holds the block's number in its low 13 bits (a page has at most 8192
// blocks, 512 KiB) and the number of its changed words less one in its high
// 3. Bit i of the mask says byte i of the block changed (byte b of word j
// is bit 8j + b). A word is changed if its mask byte is not zero; the
// changed words follow, 8 bytes each, whole (their unchanged bytes too,
// which the receiver never writes). The last block of a page whose size is not a
// multiple of 64 bytes holds only the page's remaining words: its mask
// names none past the page's end. A record's work is per changed block and
// word, never per byte, except for words changed in part.
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
// written unless the whole record is well-formed; then exactly the bytes
// the masks name are written, each with a store of its own or of a whole
// changed word or block (never a load and store back of a neighbour's
// byte: another writer may be writing it). With `blocks_out`, sets bit b
// there for each block of `block_size` bytes the record wrote into (write
// vectors, memory/write_vectors.h).
//
// `whole_word_fault`: negative control only (SCOPEDSM_TEST_FAULT=whole-word-apply):
// writes each changed word whole, its unchanged bytes too.
using PageLocator = std::byte* (*)(void* ctx, uint32_t page_index);
Status apply_diff(Reader* in, size_t page_size, PageLocator locate, void* ctx, uint32_t* page_out,
                  size_t* changed_bytes_out, uint64_t* blocks_out = nullptr, size_t block_size = 0,
                  bool whole_word_fault = false);

// The most bytes encode_diff appends for a page of `page_size` bytes.
size_t max_diff_record(size_t page_size);

}  // namespace scopedsm
