//===- GuardTest.cpp - the candidate is kept only if it costs less --------===//
#include "keel/Sweep/Guard.h"

#include "gtest/gtest.h"

using namespace keel;
using namespace keel::sweep;

namespace {

/// A sim result over env offsets 0..3072 by 1024 with the given costs and
/// front-end mispredicts (CondMiss + IndMiss).
SweepResult envResult(std::vector<double> Costs, double CondMiss,
                      double I1mr = 100) {
  SweepResult R;
  R.Binary = "app";
  R.Backend = "sim";
  R.Axis = "env";
  int64_t O = 0;
  for (double C : Costs) {
    Measurement M;
    M.V = Variant{"base", "env", O};
    O += 1024;
    M.Cost = C;
    M.Instructions = 5000;
    M.Counters = {{"Ir", 5000}, {"I1mr", I1mr}, {"CondMiss", CondMiss},
                  {"IndMiss", 10}, {"Bcm", 7}, {"Bim", 3}};
    R.Ms.push_back(M);
  }
  return R;
}

TEST(GuardTest, SummaryIsTheMeanOverOffsets) {
  BuildSummary S = summarizeBuild("default", envResult({1000, 1100, 900, 1000}, 40));
  EXPECT_EQ(S.Measured, 4u);
  EXPECT_DOUBLE_EQ(S.MeanCost, 1000);
  // The front-end model's events, not cachegrind's, are the mispredicts.
  EXPECT_DOUBLE_EQ(S.MeanMispredicts, 50);
  EXPECT_DOUBLE_EQ(S.MeanI1Misses, 100);
  EXPECT_NEAR(S.Spread, 1100.0 / 900 - 1, 1e-12);
  EXPECT_EQ(S.Offsets, (std::vector<int64_t>{0, 1024, 2048, 3072}));
}

TEST(GuardTest, LowerMeanCostPassesEvenWithMoreMispredicts) {
  BuildSummary D = summarizeBuild("default", envResult({1000, 1000, 1000, 1000}, 40));
  // 30% more mispredicts, but 2% less total cost: the cost decides.
  BuildSummary C = summarizeBuild("exttsp", envResult({980, 980, 980, 980}, 55));
  GuardDecision G = decideGuard(D, {C});
  EXPECT_TRUE(G.CandidateKept);
  EXPECT_EQ(G.Kept, "exttsp");
  ASSERT_EQ(G.Verdicts.size(), 1u);
  EXPECT_NEAR(G.Verdicts[0].CostChange, -0.02, 1e-12);
  EXPECT_NEAR(G.Verdicts[0].MispredictChange, 0.3, 1e-12);
  EXPECT_EQ(G.Why, "kept exttsp: mean cost 980 against the default build's "
                   "1000 (-2.00%; mispredicts +30.00%, I1 misses +0.00%, over "
                   "4 offsets): below it");
}

TEST(GuardTest, OneCheapOffsetDoesNotWinAgainstTheMean) {
  BuildSummary D = summarizeBuild("default", envResult({1000, 1000, 1000, 1000}, 40));
  // Cheaper at offset 0 alone; dearer on the mean.
  BuildSummary C = summarizeBuild("exttsp", envResult({900, 1100, 1100, 1000}, 30));
  GuardVerdict V = judgeCandidate(D, C);
  EXPECT_FALSE(V.Passed);
  EXPECT_NE(V.Reason.find("not below it"), std::string::npos) << V.Reason;
}

TEST(GuardTest, FirstPassingCandidateInOrderIsKept) {
  BuildSummary D = summarizeBuild("default", envResult({1000, 1000}, 40));
  BuildSummary Ext = summarizeBuild("exttsp", envResult({1010, 1010}, 40));
  BuildSummary Keep = summarizeBuild("keep", envResult({990, 990}, 40));
  GuardDecision G = decideGuard(D, {Ext, Keep});
  EXPECT_EQ(G.Kept, "keep");
  ASSERT_EQ(G.Verdicts.size(), 2u);
  EXPECT_FALSE(G.Verdicts[0].Passed);
  EXPECT_TRUE(G.Verdicts[1].Passed);
}

TEST(GuardTest, NoCandidatePassesKeepsTheDefaultAndNamesTheCheapest) {
  BuildSummary D = summarizeBuild("default", envResult({1000, 1000}, 40));
  BuildSummary Ext = summarizeBuild("exttsp", envResult({1030, 1030}, 40));
  BuildSummary Keep = summarizeBuild("keep", envResult({1000, 1000}, 40));
  GuardDecision G = decideGuard(D, {Ext, Keep});
  EXPECT_FALSE(G.CandidateKept);
  EXPECT_EQ(G.Kept, "default");
  // A tie is not an improvement.
  EXPECT_FALSE(G.Verdicts[1].Passed);
  EXPECT_EQ(G.Why, "kept the default build: no candidate's mean cost is below "
                   "it (the cheapest, keep, changed it by +0.00%)");
}

TEST(GuardTest, FailedVariantsOrOtherOffsetsNeverPass) {
  BuildSummary D = summarizeBuild("default", envResult({1000, 1000}, 40));
  SweepResult R = envResult({500, 500}, 40);
  R.Ms[1].Failed = true;
  R.Ms[1].FailReason = "exit code 1";
  GuardVerdict V = judgeCandidate(D, summarizeBuild("exttsp", R));
  EXPECT_FALSE(V.Passed);
  EXPECT_EQ(V.Reason, "exttsp: 1 of 2 variants failed (base/env/1024: exit code 1)");
  BuildSummary Short = summarizeBuild("exttsp", envResult({500}, 40));
  EXPECT_FALSE(judgeCandidate(D, Short).Passed);
  GuardDecision G = decideGuard(D, {});
  EXPECT_EQ(G.Kept, "default");
}

} // namespace
