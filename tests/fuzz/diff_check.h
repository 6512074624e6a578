// Diff properties (protocol/diff.h) for the fuzz target.
#pragma once

#include <cstddef>

#include "fuzz_setup.h"

namespace scopedsm::fuzz {

// Applies `body` as the payload of a DIFF request, record by record, the way
// HomeServer::on(DiffMsg) does, into page buffers of exactly the page size (so
// ASan catches a write past either end). Each record must either fail and
// leave every page untouched, or succeed and change exactly what an
// independent reading of the format says, in the page it names only.
void check_diff_stream(const std::byte* body, size_t n, const Setup& s);

// The same for `body` framed as the body of one record naming an accepted
// page, so the fuzzer reaches the runs without matching the framing.
void check_diff_body(const std::byte* body, size_t n, const Setup& s);

// Builds a twin and a page from `bytes` (a pattern, then byte writes at
// offsets taken from the input); encode_diff of the two, applied to the
// twin, must give the page and count exactly the bytes that differ.
void check_diff_encoder(const std::byte* bytes, size_t n, const Setup& s);

}  // namespace scopedsm::fuzz
