// The atomic operations on one word (memory/atomic_word.h): every operation
// on every type, the result a caller computes for its own copy, and the
// checks of a request.
#include <gtest/gtest.h>

#include <cstring>

#include "memory/atomic_word.h"

namespace scopedsm {
namespace {

template <typename T>
uint64_t bits(T v) {
  uint64_t b = 0;
  std::memcpy(&b, &v, sizeof v);
  return b;
}

template <typename T>
void check(AtomicType type, AtomicOp op, T start, T operand, T expected, T after) {
  alignas(8) T word = start;
  const uint64_t old = apply_atomic(&word, op, type, bits(operand), bits(expected), false);
  EXPECT_EQ(old, bits(start)) << atomic_op_name(op) << " " << atomic_type_name(type);
  EXPECT_EQ(bits(word), bits(after)) << atomic_op_name(op) << " " << atomic_type_name(type);
  EXPECT_EQ(atomic_result(op, type, bits(start), bits(operand), bits(expected)), bits(after))
      << atomic_op_name(op) << " " << atomic_type_name(type);
}

TEST(AtomicWord, EveryOperation) {
  check<int32_t>(AtomicType::kInt32, AtomicOp::kFetchAdd, 5, -7, 0, -2);
  check<uint32_t>(AtomicType::kUint32, AtomicOp::kFetchAnd, 0xf0f0u, 0xff00u, 0, 0xf000u);
  check<int64_t>(AtomicType::kInt64, AtomicOp::kFetchOr, 1, 6, 0, 7);
  check<uint64_t>(AtomicType::kUint64, AtomicOp::kFetchXor, 5, 3, 0, 6);
  check<int64_t>(AtomicType::kInt64, AtomicOp::kFetchMin, 4, -9, 0, -9);
  check<uint32_t>(AtomicType::kUint32, AtomicOp::kFetchMax, 4, 2, 0, 4);
  check<float>(AtomicType::kFloat, AtomicOp::kFetchAdd, 1.5f, 0.25f, 0, 1.75f);
  check<double>(AtomicType::kDouble, AtomicOp::kFetchAdd, -1.0, 3.5, 0, 2.5);
  check<double>(AtomicType::kDouble, AtomicOp::kFetchMax, -1.0, 3.5, 0, 3.5);
  check<float>(AtomicType::kFloat, AtomicOp::kExchange, 1.0f, 8.0f, 0, 8.0f);
  check<int64_t>(AtomicType::kInt64, AtomicOp::kCompareExchange, 3, 9, 3, 9);   // matches
  check<int64_t>(AtomicType::kInt64, AtomicOp::kCompareExchange, 3, 9, 4, 3);   // does not
  check<float>(AtomicType::kFloat, AtomicOp::kCompareExchange, -0.0f, 1.0f, 0.0f, -0.0f);  // bits differ
  check<uint64_t>(AtomicType::kUint64, AtomicOp::kLoad, 77, 1, 0, 77);
}

TEST(AtomicWord, FourByteWordsLeaveTheirNeighbourAlone) {
  alignas(8) uint32_t two[2] = {1, 0xdeadbeef};
  apply_atomic(&two[0], AtomicOp::kExchange, AtomicType::kUint32, 0xffffffffffffffffull, 0, false);
  EXPECT_EQ(two[0], 0xffffffffu);
  EXPECT_EQ(two[1], 0xdeadbeefu);
}

TEST(AtomicWord, RequestChecks) {
  EXPECT_EQ(atomic_request_error(0, 2, 8, 4096), "");
  EXPECT_NE(atomic_request_error(99, 2, 8, 4096).find("unknown atomic operation"), std::string::npos);
  EXPECT_NE(atomic_request_error(0, 99, 8, 4096).find("unknown atomic word type"), std::string::npos);
  EXPECT_NE(atomic_request_error(static_cast<uint32_t>(AtomicOp::kFetchXor), static_cast<uint32_t>(AtomicType::kDouble), 8,
                                 4096)
                .find("not defined on double"),
            std::string::npos);
  EXPECT_NE(atomic_request_error(0, 2, 4, 4096).find("not aligned"), std::string::npos);
  EXPECT_NE(atomic_request_error(0, 0, 4096, 4096).find("not aligned"), std::string::npos);
  EXPECT_EQ(atomic_request_error(0, 0, 4092, 4096), "");
}

}  // namespace
}  // namespace scopedsm
