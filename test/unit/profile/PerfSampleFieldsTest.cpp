//===- PerfSampleFieldsTest.cpp - the shared perf sample decoder ----------===//
#include "keel/Profile/PerfSampleFields.h"

#include "gtest/gtest.h"

#include <vector>

using namespace keel;

namespace {

/// Little-endian bytes, written byte by byte.
struct Bytes {
  std::vector<uint8_t> B;
  Bytes &u64(uint64_t V) { return put(V, 8); }
  Bytes &u32(uint32_t V) { return put(V, 4); }
  Bytes &put(uint64_t V, unsigned N) {
    for (unsigned I = 0; I < N; ++I)
      B.push_back(uint8_t(V >> (8 * I)));
    return *this;
  }
};

constexpr uint64_t AllFixed =
    PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
    PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
    PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;

/// Every fixed field in kernel order, then one trailing u64.
Bytes allFields() {
  Bytes W;
  W.u64(76)                   // identifier (ID, 77, wins)
      .u64(0x401000)          // ip
      .u32(100).u32(101)      // pid, tid
      .u64(123456789)         // time
      .u64(0x7fff0000)        // addr
      .u64(77)                // id
      .u64(78)                // stream_id
      .u32(3).u32(0xdead)     // cpu, res
      .u64(100003)            // period
      .u64(0x1122334455667788); // what follows (read, callchain, ...)
  return W;
}

/// Id, IP, Pid, Tid, Time, Addr, StreamId, CPU, Period.
std::vector<uint64_t> fields(const SampleFixedFields &F) {
  return {F.Id,   F.IP,       F.Pid, F.Tid,   F.Time,
          F.Addr, F.StreamId, F.CPU, F.Period};
}

TEST(PerfSampleFields, EveryFixedField) {
  Bytes W = allFields();
  ByteCursor C(W.B);
  SampleFixedFields F;
  ASSERT_TRUE(readSampleFixedFields(C, AllFixed, F));
  EXPECT_EQ(fields(F), (std::vector<uint64_t>{77, 0x401000, 100, 101,
                                               123456789, 0x7fff0000, 78, 3,
                                               100003}));
  EXPECT_EQ(C.offset(), 72u);
  EXPECT_EQ(C.left(), 8u);
  uint64_t Next;
  ASSERT_TRUE(C.u64(Next));
  EXPECT_EQ(Next, 0x1122334455667788u);
  EXPECT_EQ(C.left(), 0u);
}

TEST(PerfSampleFields, OnlyTheNamedFields) {
  Bytes W;
  W.u64(0x401000).u32(7).u32(8).u64(100003);
  ByteCursor C(W.B);
  SampleFixedFields F;
  ASSERT_TRUE(readSampleFixedFields(
      C, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD, F));
  EXPECT_EQ(fields(F),
            (std::vector<uint64_t>{0, 0x401000, 7, 8, 0, 0, 0, 0, 100003}));
  EXPECT_EQ(C.left(), 0u);
}

TEST(PerfSampleFields, Truncated) {
  Bytes W = allFields();
  // Cut inside the period, then inside the cpu,res pair: both fail.
  for (size_t Keep : {size_t(68), size_t(60), size_t(0)}) {
    std::vector<uint8_t> Short(W.B.begin(), W.B.begin() + Keep);
    ByteCursor C(Short);
    SampleFixedFields F;
    EXPECT_FALSE(readSampleFixedFields(C, AllFixed, F)) << Keep;
  }
}

TEST(ByteCursor, BoundsAndStrings) {
  Bytes W;
  W.u32(0x01020304);
  for (char Ch : std::string("abc\0\0\0\0\0", 8))
    W.B.push_back(uint8_t(Ch));
  ByteCursor D(W.B.data(), W.B.size());
  uint32_t U;
  ASSERT_TRUE(D.u32(U));
  EXPECT_EQ(U, 0x01020304u);
  EXPECT_EQ(D.bytes(100).size(), 8u);
  EXPECT_FALSE(D.skip(9));
  EXPECT_EQ(D.offset(), 4u);
  llvm::StringRef S;
  EXPECT_FALSE(D.str(S, 13)); // past the end
  ASSERT_TRUE(D.str(S, 12));
  EXPECT_EQ(S, "abc");
  EXPECT_EQ(D.left(), 0u);
  EXPECT_FALSE(D.u32(U));
  EXPECT_FALSE(D.str(S, 11)); // behind the cursor
}

} // namespace
