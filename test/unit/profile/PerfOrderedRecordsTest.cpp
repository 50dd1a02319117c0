//===- PerfOrderedRecordsTest.cpp - perf's ordered-events queue -----------===//
#include "keel/Profile/PerfOrderedRecords.h"

#include "llvm/ADT/StringExtras.h"

#include "gtest/gtest.h"

#include <functional>

#include <string>
#include <vector>

using namespace keel;
using namespace keel::perfdata;
using namespace llvm;

namespace {

/// A queue whose records are the bytes of their names ("a", "b", ...) and
/// whose deliveries are collected.
struct Fixture {
  OrderedRecords Q;
  std::vector<std::string> Out;
  std::function<Error(const OrderedRecords::Entry &, ArrayRef<uint8_t>)>
      Collect = [this](const OrderedRecords::Entry &E, ArrayRef<uint8_t> R) {
        Out.push_back(std::string(R.begin(), R.end()) + "@" +
                      std::to_string(E.Time) + "#" +
                      std::to_string(E.From.Offset));
        return Error::success();
      };
  explicit Fixture(uint64_t Limit = OrderedRecords::DefaultLimit) : Q(Limit) {}

  OrderedRecords::DeliverFn deliver() { return Collect; }
  void push(uint64_t Time, StringRef Name, uint64_t Offset = 0) {
    OrderedRecords::Origin O;
    O.Offset = Offset;
    ASSERT_FALSE(errorToBool(Q.push(Time, arrayRefFromStringRef(Name), O,
                                    deliver())));
  }
  void round() { ASSERT_FALSE(errorToBool(Q.finishRound(deliver()))); }
  void end() { ASSERT_FALSE(errorToBool(Q.flushAll(deliver()))); }
  std::string out() const {
    std::string S;
    for (const std::string &X : Out)
      S += (S.empty() ? "" : " ") + X;
    return S;
  }
};

TEST(PerfOrderedRecords, EndDeliversAllInTimeOrderStably) {
  Fixture F;
  F.push(30, "c", 1);
  F.push(10, "a", 2);
  F.push(20, "b", 3);
  F.push(10, "a2", 4); // equal times keep the order they came in
  F.push(30, "c2", 5);
  EXPECT_EQ(F.out(), "");
  EXPECT_EQ(F.Q.size(), 5u);
  F.end();
  EXPECT_EQ(F.out(), "a@10#2 a2@10#4 b@20#3 c@30#1 c2@30#5");
  EXPECT_EQ(F.Q.size(), 0u);
  EXPECT_EQ(F.Q.bytes(), 0u);
}

TEST(PerfOrderedRecords, RoundDeliversUpToThePreviousRoundsMaximum) {
  Fixture F;
  // Round 1: CPU 1's buffer (t 50, 60), then CPU 0's (t 40).
  F.push(50, "s1");
  F.push(60, "s2");
  F.push(40, "mmap");
  F.round(); // the first round only sets the limit: 60
  EXPECT_EQ(F.out(), "");
  // Round 2: the records up to 60 go, in time order; 70 stays.
  F.push(55, "s3");
  F.push(70, "s4");
  F.round();
  EXPECT_EQ(F.out(), "mmap@40#0 s1@50#0 s3@55#0 s2@60#0");
  EXPECT_EQ(F.Q.size(), 1u);
  EXPECT_EQ(F.Q.outOfOrder(), 0u);
  F.end();
  EXPECT_EQ(F.Out.back(), "s4@70#0");
}

TEST(PerfOrderedRecords, LateRecordsAreCountedAndDeliveredNext) {
  Fixture F;
  F.push(10, "a");
  F.round();
  F.push(20, "b");
  F.round(); // delivers a (<= 10); the limit becomes 20
  EXPECT_EQ(F.out(), "a@10#0");
  F.push(5, "late"); // older than what was delivered: perf delivers it late
  EXPECT_EQ(F.Q.outOfOrder(), 1u);
  F.round();
  EXPECT_EQ(F.out(), "a@10#0 late@5#0 b@20#0");
}

TEST(PerfOrderedRecords, AnEmptyRoundLeavesTheLimit) {
  Fixture F;
  F.push(10, "a");
  F.round();
  F.round(); // delivers a; the limit stays 10 (the largest time queued)
  EXPECT_EQ(F.out(), "a@10#0");
  F.round(); // empty: nothing changes
  F.push(30, "c");
  F.push(8, "b");
  F.round(); // up to 10: b; the limit becomes 30
  EXPECT_EQ(F.out(), "a@10#0 b@8#0");
  F.round();
  EXPECT_EQ(F.out(), "a@10#0 b@8#0 c@30#0");
}

TEST(PerfOrderedRecords, TheLimitDeliversTheOlderHalf) {
  // Records of 4 bytes, at most 16 bytes queued: the fifth push delivers
  // the records up to the middle of [first, last pushed].
  Fixture F(16);
  F.push(100, "r100");
  F.push(400, "r400");
  F.push(200, "r200");
  F.push(300, "r300");
  EXPECT_EQ(F.Q.halfFlushes(), 0u);
  F.push(500, "r500"); // middle of [100, 300]: 200
  EXPECT_EQ(F.Q.halfFlushes(), 1u);
  EXPECT_EQ(F.out(), "r100@100#0 r200@200#0");
  EXPECT_LE(F.Q.bytes(), 16u);
  F.end();
  EXPECT_EQ(F.out(),
            "r100@100#0 r200@200#0 r300@300#0 r400@400#0 r500@500#0");
  // However the times come, the queue stays within its limit and every
  // record comes out once.
  Fixture G(40);
  for (unsigned I = 0; I < 200; ++I) {
    G.push(1 + (I * 7919) % 97, "x");
    EXPECT_LE(G.Q.bytes(), 40u);
  }
  G.end();
  EXPECT_EQ(G.Out.size(), 200u);
}

TEST(PerfOrderedRecords, ADeliveryErrorStopsTheFlush) {
  OrderedRecords Q;
  OrderedRecords::Origin O;
  unsigned N = 0;
  auto Fail = [&](const OrderedRecords::Entry &, ArrayRef<uint8_t>) -> Error {
    if (++N == 2)
      return createStringError(inconvertibleErrorCode(), "bad record");
    return Error::success();
  };
  for (uint64_t T : {3, 1, 2})
    ASSERT_FALSE(errorToBool(Q.push(T, arrayRefFromStringRef("r"), O, Fail)));
  Error E = Q.flushAll(Fail);
  EXPECT_EQ(toString(std::move(E)), "bad record");
  EXPECT_EQ(N, 2u);
}

TEST(PerfOrderedRecords, ClearStartsAfresh) {
  Fixture F;
  F.push(10, "a");
  F.round();
  F.Q.clear();
  EXPECT_EQ(F.Q.size(), 0u);
  F.push(5, "b");
  F.round(); // a first round again: nothing goes
  EXPECT_EQ(F.out(), "");
  EXPECT_EQ(F.Q.outOfOrder(), 0u);
}

} // namespace
