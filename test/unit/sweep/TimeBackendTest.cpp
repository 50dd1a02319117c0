//===- TimeBackendTest.cpp - the time backend's schedule and runner -------===//
//
// Never asserts on a time: only on the schedule, the structure of what is
// recorded, failures, pinning and the copies.
//
//===----------------------------------------------------------------------===//
#include "keel/Sweep/TimeBackend.h"
#include "SweepTestDir.h"

#include "keel/Support/OutputFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <set>

using namespace keel;
using namespace keel::sweep;

namespace {

TEST(TimeBackendTest, RoundOrderIsADeterministicShuffle) {
  std::vector<size_t> A = roundOrder(10, 7, 0), B = roundOrder(10, 7, 0);
  EXPECT_EQ(A, B);
  std::vector<size_t> S = A;
  std::sort(S.begin(), S.end());
  for (size_t I = 0; I < 10; ++I)
    EXPECT_EQ(S[I], I);
  // Different rounds get different orders (10! permutations: a repeat in
  // these few rounds would mean the round is ignored).
  std::set<std::vector<size_t>> Seen;
  for (unsigned R = 0; R < 5; ++R)
    Seen.insert(roundOrder(10, 7, R));
  EXPECT_EQ(Seen.size(), 5u);
}

TEST(TimeBackendTest, SameLengthCopyPath) {
  EXPECT_EQ(*sameLengthCopyPath("/tmp/d", 3, 16), "/tmp/d/aa3______");
  EXPECT_EQ(sameLengthCopyPath("/tmp/d", 3, 16)->size(), 16u);
  EXPECT_EQ(*sameLengthCopyPath("/tmp/d", 12, 11), "/tmp/d/aa12");
  EXPECT_FALSE(sameLengthCopyPath("/tmp/d", 12, 10));
}

struct TimeBackendRun : SweepTestDir {
  TimeBackendRun() : SweepTestDir("keel-time-test") {}
};

TEST_F(TimeBackendRun, MeasuresVariantsAndAACopies) {
  std::vector<TimedCommand> Cmds;
  for (int I = 0; I < 3; ++I)
    Cmds.push_back({Variant{"base", "code", I * 64},
                    {trueCopy("v" + std::to_string(I) + "_long_name")}, {}});
  TimeOptions O;
  O.Rounds = 5;
  O.Warmup = 1;
  O.AACopies = 2;
  size_t Calls = 0, LastTotal = 0;
  O.Progress = [&](size_t Done, size_t Total) {
    ++Calls;
    LastTotal = Total;
    EXPECT_EQ(Done, Calls);
  };
  auto R = TimeBackend(O).measure(Cmds, Cmds[0]);
  ASSERT_TRUE(bool(R)) << toString(R.takeError());
  EXPECT_EQ(Calls, (5u + 1u) * 5u);
  EXPECT_EQ(LastTotal, Calls);
  ASSERT_EQ(R->Ms.size(), 3u);
  ASSERT_EQ(R->NoiseFloor.size(), 2u);
  // Costs are medians after removing the round-to-round drift shared by
  // every command (variants then copies, the schedule's order).
  std::vector<std::vector<double>> All;
  for (const Measurement &M : R->Ms)
    All.push_back(M.Samples);
  for (const Measurement &M : R->NoiseFloor)
    All.push_back(M.Samples);
  std::vector<std::vector<double>> Norm = normalizeByRound(All);
  for (size_t I = 0; I < R->Ms.size(); ++I)
    EXPECT_EQ(R->Ms[I].Cost, median(Norm[I]));
  EXPECT_EQ(R->NoiseFloor[1].Cost, median(Norm[4]));
  for (const Measurement &M : R->Ms) {
    EXPECT_FALSE(M.Failed);
    EXPECT_EQ(M.Samples.size(), 5u);
    EXPECT_LE(M.Counters.at("median_ci_low"), M.Cost);
    EXPECT_GE(M.Counters.at("median_ci_high"), M.Cost);
    EXPECT_TRUE(M.Counters.count("wall_s"));
  }
  EXPECT_EQ(R->Ms[1].V.Offset, 64);
  EXPECT_EQ(R->NoiseFloor[1].V.Axis, "aa");
  EXPECT_EQ(R->NoiseFloor[1].V.Offset, 1);
  EXPECT_EQ(R->NoiseFloor[1].Samples.size(), 5u);
  // The copies are gone afterwards; the variants are untouched.
  std::error_code EC;
  size_t Files = 0;
  for (llvm::sys::fs::directory_iterator I(Dir, EC), E; I != E && !EC;
       I.increment(EC))
    ++Files;
  EXPECT_EQ(Files, 3u);
}

TEST_F(TimeBackendRun, FailingVariantsAreNotMeasurements) {
  std::string Ok = trueCopy("ok_binary");
  std::vector<TimedCommand> Cmds = {
      {Variant{"base", "code", 0}, {Ok}, {}},
      {Variant{"base", "code", 64}, {"/bin/false"}, {}},
      {Variant{"base", "code", 128}, {"/bin/sh", "-c", "kill -SEGV $$"}, {}}};
  TimeOptions O;
  O.Rounds = 3;
  O.AACopies = 1;
  auto R = TimeBackend(O).measure(Cmds, Cmds[0]);
  ASSERT_TRUE(bool(R)) << toString(R.takeError());
  EXPECT_FALSE(R->Ms[0].Failed);
  EXPECT_TRUE(R->Ms[1].Failed);
  EXPECT_EQ(R->Ms[1].FailReason, "exit code 1");
  EXPECT_TRUE(R->Ms[1].Samples.empty());
  EXPECT_TRUE(R->Ms[2].Failed);
  EXPECT_FALSE(R->Ms[2].FailReason.empty());
}

TEST_F(TimeBackendRun, PinsTheChildToOneCpu) {
  std::string Out = Dir + "/cpus.txt";
  std::string Sh = trueCopy("unused_binary");
  std::vector<TimedCommand> Cmds = {
      {Variant{"base", "code", 0},
       {"/bin/sh", "-c", "grep Cpus_allowed_list /proc/self/status > " + Out},
       {}}};
  TimeOptions O;
  O.Rounds = 1;
  O.Warmup = 0;
  O.AACopies = 0; // /bin/sh is too short a path for a same-length copy
  TimedCommand Base{Variant{}, {Sh}, {}};
  auto R = TimeBackend(O).measure(Cmds, Base);
  ASSERT_TRUE(bool(R)) << toString(R.takeError());
  ASSERT_GE(R->PinnedCpu, 0);
  auto Text = llvm::MemoryBuffer::getFile(Out);
  ASSERT_TRUE(bool(Text));
  EXPECT_EQ((*Text)->getBuffer().trim(),
            "Cpus_allowed_list:\t" + std::to_string(R->PinnedCpu));
}

TEST_F(TimeBackendRun, Errors) {
  TimeOptions O;
  std::string Ok = trueCopy("x");
  EXPECT_FALSE(bool(TimeBackend(O).measure({}, {Variant{}, {Ok}, {}})));
  // A program that cannot be found is an error, not a failed variant.
  auto R = TimeBackend(O).measure({{Variant{}, {Dir + "/missing"}, {}}},
                                  {Variant{}, {Ok}, {}});
  EXPECT_FALSE(bool(R));
  llvm::consumeError(R.takeError());
  // A variant path too short for a copy anywhere.
  auto S = TimeBackend(O).measure({{Variant{}, {"true"}, {}}},
                                  {Variant{}, {"true"}, {}});
  ASSERT_FALSE(bool(S));
  EXPECT_NE(toString(S.takeError()).find("A/A copy"), std::string::npos);
}

} // namespace
