// Cutting one transfer (a buffer, or an iovec list) into chunks whose
// shared part fits the cache, for the interposed calls that may be split
// (reads and writes of files, pipes and stream sockets, stdio).
//
// Pure arithmetic on addresses: no runtime, no system call, so the unit
// tests (tests/unit/chunks_test.cc) cover it alone.
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace scopedsm::interpose {

// The allocated shared memory, [base, end), in units of `page_size` bytes
// counted from base.
struct SharedSpan {
  uintptr_t base = 0;
  uintptr_t end = 0;
  uint64_t page_size = 4096;
};

// How many units of `s` the bytes [addr, addr + len) touch.
uint64_t units_touched(const SharedSpan& s, uintptr_t addr, size_t len);

// The units an iovec list touches, summed over its entries (a unit two
// entries share counts twice: the count bounds, never undercounts).
uint64_t units_touched(const SharedSpan& s, const struct iovec* iov, size_t n);

// Walks an iovec list (or one buffer) from the start, handing out chunks:
// consecutive pieces of the list, in order, each touching at most `budget`
// units of shared memory (budget >= 1). A piece of private memory costs
// nothing; an entry whose shared part does not fit is cut at a unit
// boundary, and the rest starts the next chunk. Empty entries are skipped.
// Every chunk is non-empty, and the chunks together are the list.
class ChunkCursor {
 public:
  ChunkCursor(const struct iovec* iov, size_t n, const SharedSpan& s, uint64_t budget);

  bool done() const { return index_ >= n_; }
  // The next chunk's pieces into `out` (replacing its contents); returns
  // its length in bytes. Call only while !done().
  size_t next(std::vector<struct iovec>* out);

 private:
  void skip_empty();

  const struct iovec* iov_;
  size_t n_;
  SharedSpan span_;
  uint64_t budget_;
  size_t index_ = 0;   // the entry the next chunk starts in
  size_t offset_ = 0;  // and the byte of it
};

}  // namespace scopedsm::interpose
