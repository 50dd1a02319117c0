//===- GateTest.cpp - summaries, noise floor, verdict and gate ------------===//
#include "keel/Sweep/Gate.h"

#include "keel/Support/OutputFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace keel;
using namespace keel::sweep;

namespace {

/// A sim result over 0..4096 by 64 whose cost is a 2 KB square wave of
/// +-Amp around 1000 (what a 2-way 4 KB I1 does to a hot loop).
SweepResult simResult(double Amp) {
  SweepResult R;
  R.Binary = "app";
  R.Backend = "sim";
  R.Axis = "code";
  R.CacheGeometry = "I1=4096,2,64 D1=32768,8,64 LL=262144,8,64";
  for (int64_t O = 0; O <= 4096; O += 64) {
    Measurement M;
    M.V = Variant{"base", "code", O};
    M.Cost = 1000 + ((O % 2048) < 1024 ? Amp : -Amp);
    M.Instructions = 5000;
    R.Ms.push_back(M);
  }
  return R;
}

/// N samples of noise around Center (uniform +-Width), from Rng \p R.
std::vector<double> noisy(Rng &R, size_t N, double Center, double Width) {
  std::vector<double> V;
  for (size_t I = 0; I < N; ++I)
    V.push_back(Center + Width * (double(R.below(2001)) / 1000 - 1));
  return V;
}

/// A time result: Variants medians shifted by Shift(i) relative, AA copies.
SweepResult timeResult(size_t Variants, double ShiftEvery, uint64_t Seed) {
  Rng R(Seed);
  SweepResult T;
  T.Binary = "app";
  T.Backend = "time";
  T.Axis = "code";
  for (size_t I = 0; I < Variants; ++I) {
    Measurement M;
    M.V = Variant{"base", "code", int64_t(I * 64)};
    double Center = 0.1 * (1 + (I % 2 ? ShiftEvery : 0));
    M.Samples = noisy(R, 11, Center, 0.005);
    M.Cost = median(M.Samples);
    T.Ms.push_back(M);
  }
  for (size_t I = 0; I < 3; ++I) {
    Measurement M;
    M.V = Variant{"base", "aa", int64_t(I)};
    M.Samples = noisy(R, 11, 0.1, 0.005);
    M.Cost = median(M.Samples);
    T.NoiseFloor.push_back(M);
  }
  return T;
}

TEST(GateTest, SimSummaryFindsPeriodAndMechanism) {
  SweepResult R = simResult(50);
  auto G = evaluateGate(R, GateOptions{}, nullptr);
  ASSERT_TRUE(bool(G));
  EXPECT_FALSE(G->Failed);
  EXPECT_EQ(G->Base.Measured, 65u);
  EXPECT_NEAR(G->Base.Spread, 1050.0 / 950 - 1, 1e-12);
  EXPECT_EQ(G->Base.WorstOffset, 0);
  EXPECT_EQ(G->Base.BestOffset, 1024);
  ASSERT_TRUE(G->Base.Period.has_value());
  EXPECT_EQ(G->Base.Period->Bytes, 2048u);
  EXPECT_NE(G->Base.Mechanism.find("I1 way size"), std::string::npos);
  EXPECT_EQ(G->Verdict,
            "spread 10.53% exceeds noise floor 0.00% (deterministic backend)");
  EXPECT_FALSE(G->WithinNoise);
  EXPECT_TRUE(G->Notes.empty());
}

TEST(GateTest, EventPeriodsSeparateMechanisms) {
  // I1 misses repeat every 2 KB, indirect mispredicts every 512 B, Ir is
  // constant (left out), Bcm varies without a period worth naming.
  SweepResult R = simResult(50);
  Rng Noise(4);
  for (Measurement &M : R.Ms) {
    int64_t O = M.V.Offset;
    M.Counters["Ir"] = 5000;
    M.Counters["I1mr"] = (O % 2048) < 1024 ? 300 : 100;
    M.Counters["Bim"] = (O % 512) < 256 ? 40 : 10;
    M.Counters["Bcm"] = 100 + double(Noise.below(1000)) / 100;
  }
  auto G = evaluateGate(R, GateOptions{}, nullptr);
  ASSERT_TRUE(bool(G));
  const auto &P = G->Base.CounterPeriods;
  ASSERT_EQ(P.count("I1mr"), 1u);
  EXPECT_EQ(P.at("I1mr").Bytes, 2048u);
  ASSERT_EQ(P.count("Bim"), 1u);
  EXPECT_EQ(P.at("Bim").Bytes, 512u);
  EXPECT_EQ(P.count("Ir"), 0u);
  EXPECT_EQ(P.count("Bcm"), 0u);
}

TEST(GateTest, MaxSpreadFailsWithOneLineReason) {
  SweepResult R = simResult(50);
  GateOptions O;
  O.MaxSpread = 0.01;
  auto G = evaluateGate(R, O, nullptr);
  ASSERT_TRUE(bool(G));
  EXPECT_TRUE(G->Failed);
  ASSERT_EQ(G->Reasons.size(), 1u);
  EXPECT_EQ(G->Reasons[0], "spread 10.53% exceeds --max-spread 1.00% (worst "
                           "offset 0, best 1024)");
  O.MaxSpread = 0.2;
  EXPECT_FALSE(evaluateGate(R, O, nullptr)->Failed);
}

TEST(GateTest, FlatSimIsNoEffect) {
  auto G = evaluateGate(simResult(0), GateOptions{}, nullptr);
  ASSERT_TRUE(bool(G));
  EXPECT_TRUE(G->WithinNoise);
  EXPECT_FALSE(G->Base.Period.has_value());
  EXPECT_EQ(G->Verdict, "spread 0.00%: no layout effect (deterministic backend)");
}

TEST(GateTest, FailedVariantsFailTheGateAndStayOutOfStatistics) {
  SweepResult R = simResult(0);
  R.Ms[2].Failed = true;
  R.Ms[2].FailReason = "killed by signal 11";
  R.Ms[2].Cost = 1e9; // must be ignored
  auto G = evaluateGate(R, GateOptions{}, nullptr);
  ASSERT_TRUE(bool(G));
  EXPECT_TRUE(G->Failed);
  EXPECT_EQ(G->Base.Spread, 0);
  EXPECT_EQ(G->Reasons[0],
            "1 of 65 variants failed (first: base/code/128: killed by signal 11)");
}

TEST(GateTest, DifferingInstructionsAreNoted) {
  SweepResult R = simResult(10);
  R.Ms[3].Instructions = 5100;
  auto G = evaluateGate(R, GateOptions{}, nullptr);
  ASSERT_TRUE(bool(G));
  ASSERT_EQ(G->Notes.size(), 1u);
  EXPECT_NE(G->Notes[0].find("not layout-independent"), std::string::npos);
}

TEST(GateTest, NoiseFloorSimulation) {
  Rng R(3);
  NoiseOptions Fast;
  Fast.Simulations = 500;
  std::vector<std::vector<double>> AA = {noisy(R, 11, 1, 0.05),
                                         noisy(R, 11, 1, 0.05)};
  NoiseFloor A = simulateNoiseFloor(AA, 8, 11, Fast);
  NoiseFloor B = simulateNoiseFloor(AA, 8, 11, Fast);
  EXPECT_EQ(A.Spread, B.Spread); // fixed seed
  EXPECT_GE(A.Spread, A.AASpread);
  EXPECT_GT(A.Spread, 0);
  // More variants, more chances for an extreme median: a higher floor.
  EXPECT_GT(simulateNoiseFloor(AA, 64, 11, Fast).Spread, A.Spread);
  // More rounds per variant, tighter medians: a lower floor.
  EXPECT_LT(simulateNoiseFloor(AA, 8, 101, Fast).Spread,
            simulateNoiseFloor(AA, 8, 3, Fast).Spread);
  // Identical samples: no noise.
  EXPECT_EQ(simulateNoiseFloor({{2, 2, 2}, {2, 2}}, 8, 5).Spread, 0);
}

TEST(GateTest, TimeVerdictWithinNoiseAndBeyond) {
  // Identical distributions: within noise.
  auto Same = evaluateGate(timeResult(16, 0, 5), GateOptions{}, nullptr);
  ASSERT_TRUE(bool(Same));
  EXPECT_TRUE(Same->WithinNoise) << Same->Verdict;
  EXPECT_EQ(Same->Noise.Kind, NoiseFloor::Measured);
  EXPECT_EQ(Same->Verdict.find("spread "), 0u);
  EXPECT_NE(Same->Verdict.find("is within noise (floor"), std::string::npos);
  // Every other variant 20% slower: far beyond +-5% noise.
  auto Slow = evaluateGate(timeResult(16, 0.2, 5), GateOptions{}, nullptr);
  ASSERT_TRUE(bool(Slow));
  EXPECT_FALSE(Slow->WithinNoise);
  EXPECT_NE(Slow->Verdict.find("exceeds noise floor"), std::string::npos);
  // A --max-spread below the noise is inconclusive, not a failure.
  GateOptions O;
  O.MaxSpread = 0.0001;
  auto Inc = evaluateGate(timeResult(16, 0, 5), O, nullptr);
  EXPECT_FALSE(Inc->Failed);
  ASSERT_FALSE(Inc->Notes.empty());
  EXPECT_EQ(Inc->Notes[0].find("inconclusive"), 0u);
}

/// A/A simulation: V variants and C copies, R rounds of 3% Gaussian noise
/// where a share \p Spikes of the runs is 30-80% slow (preempted); every
/// other variant is \p Shift slower. Returns how many of \p Trials verdicts
/// said "exceeds".
unsigned exceedCount(unsigned V, unsigned C, unsigned R, unsigned Trials,
                     double Shift, double Spikes, uint64_t Seed) {
  Rng G(Seed);
  unsigned Exceeds = 0;
  for (unsigned T = 0; T < Trials; ++T) {
    SweepResult S;
    S.Binary = "x";
    S.Backend = "time";
    S.Axis = "code";
    std::vector<std::vector<double>> All;
    for (unsigned I = 0; I < V + C; ++I) {
      std::vector<double> Samples;
      for (unsigned K = 0; K < R; ++K) {
        double X = 1 + 0.03 * G.normal();
        if (G.uniform() < Spikes)
          X *= 1.3 + 0.5 * G.uniform();
        Samples.push_back(X * (I < V && I % 2 ? 1 + Shift : 1));
      }
      All.push_back(Samples);
    }
    std::vector<std::vector<double>> Norm = normalizeByRound(All);
    for (unsigned I = 0; I < V + C; ++I) {
      Measurement M;
      M.V = Variant{"base", I < V ? "code" : "aa",
                    int64_t(I < V ? I * 64 : I - V)};
      M.Samples = All[I];
      M.Cost = median(Norm[I]); // as the time backend computes it
      (I < V ? S.Ms : S.NoiseFloor).push_back(M);
    }
    GateOptions O;
    O.Noise.Simulations = 1000; // the default 5000 only steadies the tail
    Exceeds += !evaluateGate(S, O, nullptr)->WithinNoise;
  }
  return Exceeds;
}

TEST(GateTest, NoiseFloorIsCalibrated) {
  // Nothing differs: few verdicts may say "exceeds", with or without spikes
  // (fixed seeds, so this is deterministic).
  EXPECT_LE(exceedCount(8, 3, 9, 60, 0, 0.1, 21), 2u);
  EXPECT_LE(exceedCount(8, 3, 9, 60, 0, 0, 23), 1u);
  // Half the variants 10% slower under 3% noise: found every time.
  EXPECT_GE(exceedCount(8, 3, 9, 20, 0.1, 0, 22), 19u);
}

TEST(GateTest, NoAAMeansUnknownNoise) {
  SweepResult R = timeResult(4, 0, 1);
  R.Backend = "perf";
  R.NoiseFloor.clear();
  auto G = evaluateGate(R, GateOptions{}, nullptr);
  EXPECT_NE(G->Verdict.find("noise floor unknown"), std::string::npos);
}

TEST(GateTest, BaselineComparison) {
  SweepResult Good = simResult(5), Bad = simResult(50);
  // Worse spread than the baseline: fail.
  auto G = evaluateGate(Bad, GateOptions{}, &Good);
  ASSERT_TRUE(bool(G));
  EXPECT_TRUE(G->Failed);
  EXPECT_EQ(G->Reasons[0], "spread 10.53% is worse than baseline 1.01% beyond "
                           "noise (0.00%)");
  // Better or equal: pass.
  EXPECT_FALSE(evaluateGate(Good, GateOptions{}, &Bad)->Failed);
  EXPECT_FALSE(evaluateGate(Good, GateOptions{}, &Good)->Failed);
  // Tolerance absorbs small regressions.
  GateOptions Loose;
  Loose.BaselineTolerance = 0.2;
  EXPECT_FALSE(evaluateGate(Bad, Loose, &Good)->Failed);
  // Higher cost everywhere with the same spread: the mean-cost check.
  SweepResult Slower = simResult(5);
  for (Measurement &M : Slower.Ms)
    M.Cost *= 1.05;
  auto S = evaluateGate(Slower, GateOptions{}, &Good);
  ASSERT_TRUE(bool(S));
  ASSERT_EQ(S->Reasons.size(), 1u);
  EXPECT_EQ(S->Reasons[0].find("mean cost 5.00% higher than baseline"), 0u);
  // Different backend: an error, not a verdict.
  SweepResult T = timeResult(4, 0, 1);
  auto E = evaluateGate(Good, GateOptions{}, &T);
  ASSERT_FALSE(bool(E));
  EXPECT_NE(toString(E.takeError()).find("not comparable"), std::string::npos);
}

TEST(GateTest, ReadResultFileRoundTripAndErrors) {
  auto Dir = makePrivateTempDir("keel-gate-test");
  ASSERT_TRUE(bool(Dir));
  std::string P = *Dir + "/r.json", Bad = *Dir + "/bad.json";
  SweepResult R = simResult(5);
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(P, EC);
    llvm::json::Object O = *toJSON(R).getAsObject();
    O["version"] = 1; // extra keys (the report's) are ignored
    OS << llvm::json::Value(std::move(O));
    llvm::raw_fd_ostream B(Bad, EC);
    B << "{\"binary\": 3}";
  }
  auto Back = readResultFile(P);
  ASSERT_TRUE(bool(Back));
  EXPECT_EQ(Back->Ms.size(), R.Ms.size());
  EXPECT_EQ(Back->Ms[5].Cost, R.Ms[5].Cost);
  auto E = readResultFile(Bad);
  ASSERT_FALSE(bool(E));
  EXPECT_NE(toString(E.takeError()).find("bad.json"), std::string::npos);
  llvm::sys::fs::remove_directories(*Dir);
}

TEST(GateTest, PercentFormat) {
  EXPECT_EQ(percent(0.1234), "12.34%");
  EXPECT_EQ(percent(0.5, 0), "50%");
  EXPECT_EQ(percent(0), "0.00%");
}

} // namespace
