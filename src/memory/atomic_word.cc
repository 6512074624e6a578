#include "memory/atomic_word.h"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <type_traits>

namespace scopedsm {

namespace {

template <typename T>
T from_bits(uint64_t bits) {
  T v;
  if constexpr (sizeof(T) == 4) {
    const auto b = static_cast<uint32_t>(bits);
    std::memcpy(&v, &b, 4);
  } else {
    std::memcpy(&v, &bits, 8);
  }
  return v;
}

template <typename T>
uint64_t to_bits(T v) {
  if constexpr (sizeof(T) == 4) {
    uint32_t b;
    std::memcpy(&b, &v, 4);
    return b;
  } else {
    uint64_t b;
    std::memcpy(&b, &v, 8);
    return b;
  }
}

// The new value from the old: the one definition of every op, shared by the
// CPU path (through compare-and-swap where the CPU has no instruction), the
// caller's update of its own copy, and the torn negative control.
template <typename T>
T combine(AtomicOp op, T old, T operand, T expected) {
  switch (op) {
    case AtomicOp::kFetchAdd: return static_cast<T>(old + operand);
    case AtomicOp::kExchange: return operand;
    case AtomicOp::kCompareExchange: return old == expected ? operand : old;
    case AtomicOp::kFetchMin: return std::min(old, operand);
    case AtomicOp::kFetchMax: return std::max(old, operand);
    case AtomicOp::kLoad: return old;
    default: break;
  }
  if constexpr (std::is_integral_v<T>) {
    switch (op) {
      case AtomicOp::kFetchAnd: return old & operand;
      case AtomicOp::kFetchOr: return old | operand;
      case AtomicOp::kFetchXor: return old ^ operand;
      default: break;
    }
  }
  return old;
}

template <typename T>
uint64_t apply_typed(void* word, AtomicOp op, uint64_t operand_bits, uint64_t expected_bits, bool torn) {
  std::atomic_ref<T> w(*static_cast<T*>(word));
  const T operand = from_bits<T>(operand_bits);
  const T expected = from_bits<T>(expected_bits);
  if (torn) {  // negative control: not atomic
    const T old = w.load(std::memory_order_relaxed);
    sched_yield();
    if (op != AtomicOp::kLoad) w.store(combine(op, old, operand, expected), std::memory_order_relaxed);
    return to_bits(old);
  }
  switch (op) {
    case AtomicOp::kLoad: return to_bits(w.load());
    case AtomicOp::kExchange: return to_bits(w.exchange(operand));
    case AtomicOp::kCompareExchange: {
      T e = expected;
      w.compare_exchange_strong(e, operand);
      return to_bits(e);  // the old value, whether or not it was replaced
    }
    case AtomicOp::kFetchAdd:
      if constexpr (std::is_integral_v<T>) return to_bits(w.fetch_add(operand));
      break;
    case AtomicOp::kFetchAnd:
      if constexpr (std::is_integral_v<T>) return to_bits(w.fetch_and(operand));
      break;
    case AtomicOp::kFetchOr:
      if constexpr (std::is_integral_v<T>) return to_bits(w.fetch_or(operand));
      break;
    case AtomicOp::kFetchXor:
      if constexpr (std::is_integral_v<T>) return to_bits(w.fetch_xor(operand));
      break;
    default: break;
  }
  // Floating add, min and max: a compare-and-swap loop.
  T old = w.load();
  while (!w.compare_exchange_weak(old, combine(op, old, operand, expected))) {
  }
  return to_bits(old);
}

template <typename F>
uint64_t by_type(AtomicType type, F&& f) {
  switch (type) {
    case AtomicType::kInt32: return f(int32_t{});
    case AtomicType::kUint32: return f(uint32_t{});
    case AtomicType::kInt64: return f(int64_t{});
    case AtomicType::kUint64: return f(uint64_t{});
    case AtomicType::kFloat: return f(float{});
    case AtomicType::kDouble: return f(double{});
    case AtomicType::kCount: break;
  }
  return 0;
}

bool is_bitwise(AtomicOp op) { return op == AtomicOp::kFetchAnd || op == AtomicOp::kFetchOr || op == AtomicOp::kFetchXor; }

}  // namespace

const char* atomic_op_name(AtomicOp op) {
  static const char* const names[] = {"fetch_add", "exchange", "compare_exchange", "fetch_and", "fetch_or",
                                      "fetch_xor", "fetch_min", "fetch_max",        "load"};
  const auto i = static_cast<uint32_t>(op);
  return i < static_cast<uint32_t>(AtomicOp::kCount) ? names[i] : "?";
}

const char* atomic_type_name(AtomicType t) {
  static const char* const names[] = {"int32", "uint32", "int64", "uint64", "float", "double"};
  const auto i = static_cast<uint32_t>(t);
  return i < static_cast<uint32_t>(AtomicType::kCount) ? names[i] : "?";
}

size_t atomic_type_size(AtomicType t) {
  return t == AtomicType::kInt32 || t == AtomicType::kUint32 || t == AtomicType::kFloat ? 4 : 8;
}

std::string atomic_request_error(uint32_t op, uint32_t type, uint64_t offset, size_t page_size) {
  if (op >= static_cast<uint32_t>(AtomicOp::kCount)) return "unknown atomic operation " + std::to_string(op);
  if (type >= static_cast<uint32_t>(AtomicType::kCount)) return "unknown atomic word type " + std::to_string(type);
  const auto o = static_cast<AtomicOp>(op);
  const auto t = static_cast<AtomicType>(type);
  if (is_bitwise(o) && (t == AtomicType::kFloat || t == AtomicType::kDouble))
    return std::string(atomic_op_name(o)) + " is not defined on " + atomic_type_name(t) + " words";
  const size_t size = atomic_type_size(t);
  if (offset % size != 0 || offset + size > page_size)
    return "the " + std::string(atomic_type_name(t)) + " word at byte " + std::to_string(offset) +
           " of its page is not aligned to " + std::to_string(size) + " bytes";
  return "";
}

uint64_t atomic_result(AtomicOp op, AtomicType type, uint64_t old, uint64_t operand, uint64_t expected) {
  // compare_exchange compares the bits, as the CPU's does.
  if (op == AtomicOp::kCompareExchange) {
    const uint64_t mask = atomic_type_size(type) == 4 ? 0xffffffffull : ~0ull;
    return (old & mask) == (expected & mask) ? operand & mask : old;
  }
  return by_type(type, [&](auto zero) {
    using T = decltype(zero);
    return to_bits(combine<T>(op, from_bits<T>(old), from_bits<T>(operand), from_bits<T>(expected)));
  });
}

uint64_t apply_atomic(void* word, AtomicOp op, AtomicType type, uint64_t operand, uint64_t expected, bool torn) {
  return by_type(type, [&](auto zero) {
    using T = decltype(zero);
    return apply_typed<T>(word, op, operand, expected, torn);
  });
}

}  // namespace scopedsm
