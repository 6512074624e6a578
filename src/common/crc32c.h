// CRC-32C (Castagnoli), the checksum of every checkpoint file and page
// (runtime/checkpoint.h). The CPU's crc32 instruction where it has one
// (SSE4.2), a table otherwise; both give the same value.
#pragma once

#include <cstddef>
#include <cstdint>

namespace scopedsm {

// The CRC-32C of `n` bytes at `data`, continuing from `crc` (0 to start):
// crc32c(b, crc32c(a)) == crc32c(a followed by b).
uint32_t crc32c(const void* data, size_t n, uint32_t crc = 0);

}  // namespace scopedsm
