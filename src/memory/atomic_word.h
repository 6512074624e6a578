// Atomic operations on one word of a home page, executed in the home's
// memory with the CPU's atomic instructions (docs/MEMORY_MODEL.md, "Atomics
// at the home"). Whoever executes an atomic (the caller itself, on its own
// home page or a node peer's, or the home's server, for a caller on another
// node) calls apply_atomic on the home's memory, so every atomic on a word is
// a CPU atomic on the same memory and they are linearizable.
//
// Values travel as their bits in the low bytes of a uint64_t (a float's in
// the low four), so the wire and the C API need no type of their own.
//
// The numbering of AtomicOp and AtomicType is the C API's
// (scopedsm_atomic_op, scopedsm_atomic_type in scopedsm.h; checked in
// api/c_api.cc) and the wire's (ATOMIC, protocol/messages.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace scopedsm {

enum class AtomicOp : uint32_t {
  kFetchAdd = 0,
  kExchange,
  kCompareExchange,
  kFetchAnd,
  kFetchOr,
  kFetchXor,
  kFetchMin,
  kFetchMax,
  kLoad,
  kCount
};
enum class AtomicType : uint32_t { kInt32 = 0, kUint32, kInt64, kUint64, kFloat, kDouble, kCount };
// What an atomic orders besides itself, in scope consistency
// (docs/MEMORY_MODEL.md, "Atomics at the home"); numbered as
// scopedsm_memory_order.
enum class AtomicOrder : uint32_t { kRelaxed = 0, kAcquire, kRelease, kAcqRel, kSeqCst, kCount };
inline bool releases(AtomicOrder o) { return o == AtomicOrder::kRelease || o == AtomicOrder::kAcqRel || o == AtomicOrder::kSeqCst; }
inline bool acquires(AtomicOrder o) { return o == AtomicOrder::kAcquire || o == AtomicOrder::kAcqRel || o == AtomicOrder::kSeqCst; }

const char* atomic_op_name(AtomicOp op);      // "fetch_add", ...; "?" if out of range
const char* atomic_type_name(AtomicType t);   // "int32", ...; "?" if out of range
size_t atomic_type_size(AtomicType t);        // 4 or 8

// Empty if `op` on a `type` word at byte `offset` of a page of `page_size`
// bytes is well-formed; else why not (an op or type out of range, a bitwise
// op on a floating type, a word not aligned to its size). The caller's
// checks and the home's (of an ATOMIC request) are this one.
std::string atomic_request_error(uint32_t op, uint32_t type, uint64_t offset, size_t page_size);

// The value the word holds after `op` if it held `old` (compare_exchange:
// `operand` if old has the bits of `expected`, else old; compare_exchange
// compares bits, as the CPU's does, so a float -0.0 does not match 0.0).
uint64_t atomic_result(AtomicOp op, AtomicType type, uint64_t old, uint64_t operand, uint64_t expected);

// Applies `op` to the word at `word` (aligned, atomic_request_error empty)
// with sequentially consistent CPU atomics; returns the bits it held before.
// `torn` is a negative control only (SCOPEDSM_TEST_FAULT=atomic-torn): load,
// yield the CPU, then store, which loses concurrent updates.
uint64_t apply_atomic(void* word, AtomicOp op, AtomicType type, uint64_t operand, uint64_t expected, bool torn);

}  // namespace scopedsm
