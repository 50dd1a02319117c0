//===- GateTest.cpp - summaries, noise floor, verdict and gate ------------===//
#include "keel/SweepReport/Gate.h"

#include "keel/Support/OutputFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <functional>
#include <map>

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
            "spread 10.53% exceeds the resolution 0.0100% (deterministic "
            "backend): a layout effect repeating every 2048 B (100% of the "
            "variance)");
  EXPECT_EQ(G->Kind, VerdictKind::Periodic);
  EXPECT_FALSE(G->WithinNoise);
  EXPECT_FALSE(G->GateSet);
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
  EXPECT_TRUE(G->GateSet);
  EXPECT_EQ(G->Reasons[0],
            "spread 10.53% exceeds --max-spread 1.00% (worst offset 0, best "
            "1024); period 2048 B (100% of the variance): I1 way size (4 KB / "
            "2 ways): hot code or data maps to the same sets");
  O.MaxSpread = 0.2;
  EXPECT_FALSE(evaluateGate(R, O, nullptr)->Failed);
}

TEST(GateTest, FlatSimIsNoEffect) {
  auto G = evaluateGate(simResult(0), GateOptions{}, nullptr);
  ASSERT_TRUE(bool(G));
  EXPECT_TRUE(G->WithinNoise);
  EXPECT_FALSE(G->Base.Period.has_value());
  EXPECT_EQ(G->Kind, VerdictKind::NoEffect);
  EXPECT_EQ(G->Verdict, "spread 0.00% is within the resolution 0.0100% of the "
                        "deterministic backend: no layout effect at this "
                        "resolution");
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
  // A result without per-series checks (an older --json): the engine's flag
  // decides between a note and information.
  SweepResult R = simResult(10);
  R.Ms[3].Instructions = 5100;
  R.InstructionsDiffer = true;
  auto G = evaluateGate(R, GateOptions{}, nullptr);
  ASSERT_TRUE(bool(G));
  ASSERT_EQ(G->Notes.size(), 1u);
  EXPECT_NE(G->Notes[0].find("not layout-independent"), std::string::npos);
  R.InstructionsDiffer = false;
  G = evaluateGate(R, GateOptions{}, nullptr);
  EXPECT_TRUE(G->Notes.empty());
  ASSERT_EQ(G->Info.size(), 1u);
  EXPECT_NE(G->Info[0].find("within the tolerance"), std::string::npos);
}

TEST(GateTest, InstructionCheckOwnCodeVersusLibraries) {
  SweepResult R = simResult(10);
  InstructionCheck C;
  C.Series = "base";
  C.Min = 5000000;
  C.Max = 5000045;
  C.MinOffset = 0;
  C.MaxOffset = 64;
  C.Tolerance = 1e-4;
  C.PerFunction = true;
  C.Other = {{"_int_malloc", 443, 460}, {"strcspn", 494, 522}};
  R.InstructionChecks = {C};
  // Only libc moved, below the tolerance: information naming the
  // functions (largest change first), no note.
  auto G = evaluateGate(R, GateOptions{}, nullptr);
  ASSERT_TRUE(bool(G));
  EXPECT_TRUE(G->Notes.empty());
  ASSERT_EQ(G->Info.size(), 1u);
  EXPECT_EQ(G->Info[0],
            "base: executed instructions differ across variants: 5000000 at "
            "offset 0 .. 5000045 at offset 64 (0.000900%), within the tolerance "
            "0.0100%, only in library and loader code (the layout moves "
            "libc's and ld.so's own paths; the program's own functions run "
            "the same instructions): strcspn (494..522), _int_malloc "
            "(443..460)");
  // The program's own function: the alarm, naming it.
  R.InstructionChecks[0].Own = {{"hash_pointer", 100, 140}};
  G = evaluateGate(R, GateOptions{}, nullptr);
  ASSERT_EQ(G->Notes.size(), 1u);
  EXPECT_TRUE(G->Info.empty());
  EXPECT_NE(G->Notes[0].find("in the program's own functions hash_pointer "
                             "(100..140): the program is not "
                             "layout-independent"),
            std::string::npos);
  // Libraries only but above the tolerance: a note, not the alarm.
  R.InstructionChecks[0].Own.clear();
  R.InstructionChecks[0].Max = 5100000;
  G = evaluateGate(R, GateOptions{}, nullptr);
  ASSERT_EQ(G->Notes.size(), 1u);
  EXPECT_EQ(G->Notes[0].find("not layout-independent"), std::string::npos);
  EXPECT_NE(G->Notes[0].find("only outside the program's own code"),
            std::string::npos);
}

/// A sim series over 0..4096 by 64 with the given cost per offset.
SweepResult simSeries(std::function<double(int64_t)> Cost) {
  SweepResult R = simResult(0);
  for (Measurement &M : R.Ms)
    M.Cost = Cost(M.V.Offset);
  return R;
}

// The verdict rule on synthetic series: exact verdicts.
TEST(VerdictRuleTest, Flat) {
  auto G = evaluateGate(simSeries([](int64_t) { return 1e6; }), {}, nullptr);
  EXPECT_EQ(G->Kind, VerdictKind::NoEffect);
  EXPECT_TRUE(G->WithinNoise);
  EXPECT_FALSE(G->Base.Period);
  EXPECT_EQ(G->Verdict, "spread 0.00% is within the resolution 0.0100% of the "
                        "deterministic backend: no layout effect at this "
                        "resolution");
}

TEST(VerdictRuleTest, PeriodicBelowResolutionHasNoPeriod) {
  // A clean 256 B pattern of 40 cost units in a million (0.004%): start-up
  // code, not worth a period or a mechanism.
  auto G = evaluateGate(
      simSeries([](int64_t O) { return 1e6 + ((O / 64) % 4 == 0 ? 40 : 0); }),
      {}, nullptr);
  EXPECT_EQ(G->Kind, VerdictKind::NoEffect);
  EXPECT_FALSE(G->Base.Period);
  EXPECT_TRUE(G->Base.Mechanism.empty());
  EXPECT_EQ(G->Verdict, "spread 0.00400% is within the resolution 0.0100% of "
                        "the deterministic backend: no layout effect at this "
                        "resolution");
}

TEST(VerdictRuleTest, Periodic) {
  auto G = evaluateGate(
      simSeries([](int64_t O) { return 1e6 * ((O % 2048) < 1024 ? 1.05 : 0.95); }),
      {}, nullptr);
  EXPECT_EQ(G->Kind, VerdictKind::Periodic);
  ASSERT_TRUE(G->Base.Period);
  EXPECT_EQ(G->Base.Period->Bytes, 2048u);
  EXPECT_NEAR(G->Base.Period->Explained, 1, 1e-9);
  EXPECT_EQ(G->Verdict, "spread 10.53% exceeds the resolution 0.0100% "
                        "(deterministic backend): a layout effect repeating "
                        "every 2048 B (100% of the variance)");
}

TEST(VerdictRuleTest, NoisyWithoutPeriod) {
  // Deterministic but irregular swings of up to 2%: an effect, no period.
  Rng R(11);
  std::map<int64_t, double> Cost;
  for (int64_t O = 0; O <= 4096; O += 64)
    Cost[O] = 1e6 * (1 + 0.02 * R.uniform());
  auto G = evaluateGate(simSeries([&](int64_t O) { return Cost[O]; }), {},
                        nullptr);
  EXPECT_EQ(G->Kind, VerdictKind::Effect);
  EXPECT_FALSE(G->Base.Period);
  EXPECT_NE(G->Verdict.find(": a layout effect without a clear period"),
            std::string::npos);
  EXPECT_EQ(G->Verdict.find("spread 1.9"), 0u) << G->Verdict;
}

TEST(VerdictRuleTest, NoisyTimeWithinNoise) {
  auto G = evaluateGate(timeResult(16, 0, 5), GateOptions{}, nullptr);
  EXPECT_EQ(G->Kind, VerdictKind::WithinNoise);
  EXPECT_FALSE(G->Base.Period);
  EXPECT_FALSE(G->Base.Mechanism.size());
}

TEST(VerdictRuleTest, SingleOutlier) {
  auto G = evaluateGate(
      simSeries([](int64_t O) { return O == 1024 ? 1.05e6 : 1e6; }), {},
      nullptr);
  EXPECT_EQ(G->Kind, VerdictKind::Outlier);
  EXPECT_FALSE(G->Base.Period);
  EXPECT_EQ(G->Verdict, "spread 5.00% exceeds the resolution 0.0100% "
                        "(deterministic backend): one variant (offset 1024) "
                        "makes the spread; the others are within 0.00%");
}

TEST(VerdictRuleTest, RippleOnDriftIsNotNamed) {
  // A 2% linear drift with a 0.05% 512 B ripple: the ripple is a clean
  // pattern (strong) but explains almost none of the variance. (2%: the
  // spread must be above --min-effect's 1% for a period to be named at all.)
  auto G = evaluateGate(simSeries([](int64_t O) {
                          return 1e6 * (1 + 0.02 * O / 4096.0 +
                                        ((O / 64) % 8 < 4 ? 0.0005 : 0));
                        }),
                        {}, nullptr);
  EXPECT_EQ(G->Kind, VerdictKind::Effect);
  EXPECT_FALSE(G->Base.Period);
}

TEST(VerdictRuleTest, FlatCompareSeriesHasNoPeriod) {
  SweepResult R = simResult(50);
  Series C;
  C.Name = "compare";
  C.Binary = "app.planned";
  for (Measurement M : R.Ms) {
    M.V.Series = "compare";
    // 3 cost units in a million, repeating every 128 B.
    M.Cost = 1e6 + ((M.V.Offset / 64) % 2 ? 3 : 0);
    C.Ms.push_back(M);
  }
  R.Compare = C;
  auto G = evaluateGate(R, {}, nullptr);
  ASSERT_TRUE(G->Compare);
  EXPECT_FALSE(G->Compare->Period);
  EXPECT_TRUE(G->Compare->CounterPeriods.empty());
  EXPECT_TRUE(G->Base.Period);
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
                           "noise (0.0100%)");
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

/// simResult(5) whose variants count \p Cond and \p Ind mispredicts under
/// the events \p CondName and \p IndName.
SweepResult withMispredicts(double Cond, double Ind,
                            std::string CondName = "Bcm",
                            std::string IndName = "Bim") {
  SweepResult R = simResult(5);
  for (Measurement &M : R.Ms) {
    M.Counters[CondName] = Cond;
    M.Counters[IndName] = Ind;
  }
  return R;
}

TEST(GateTest, MispredictRise) {
  GateOptions O;
  O.MaxMispredictRise = 0.02;
  SweepResult Base = withMispredicts(1000, 100);
  // 1100 -> 1122: 2% (a hair over in floating point; within the 0.01%
  // resolution the deterministic backend adds), allowed; 1100 -> 1144: 4%,
  // fails.
  auto Same = evaluateGate(withMispredicts(1012, 110), O, &Base);
  ASSERT_TRUE(bool(Same));
  EXPECT_FALSE(Same->Failed);
  auto Worse = evaluateGate(withMispredicts(1040, 104), O, &Base);
  ASSERT_TRUE(bool(Worse));
  ASSERT_TRUE(Worse->Failed);
  ASSERT_EQ(Worse->Reasons.size(), 1u);
  EXPECT_EQ(Worse->Reasons[0],
            "branch mispredicts 4.00% above the baseline's (Bcm+Bim 1144 "
            "against 1100 per variant), over --max-mispredict-rise 2.00% + "
            "noise 0.0100%");
  // Fewer mispredicts never fail; without the option the rise is not checked.
  EXPECT_FALSE(evaluateGate(withMispredicts(500, 50), O, &Base)->Failed);
  EXPECT_FALSE(
      evaluateGate(withMispredicts(1040, 104), GateOptions{}, &Base)->Failed);
  // The front-end model's events are preferred where counted.
  SweepResult FeBase = withMispredicts(1000, 0, "CondMiss", "IndMiss");
  SweepResult Fe = withMispredicts(1100, 0, "CondMiss", "IndMiss");
  for (SweepResult *R : {&FeBase, &Fe})
    for (Measurement &M : R->Ms)
      M.Counters["Bcm"] = 7; // cachegrind's, also counted: ignored
  EXPECT_EQ(mispredictEvents(Fe),
            (std::vector<std::string>{"CondMiss", "IndMiss"}));
  auto F = evaluateGate(Fe, O, &FeBase);
  ASSERT_TRUE(bool(F));
  ASSERT_TRUE(F->Failed);
  EXPECT_EQ(F->Reasons[0].find("branch mispredicts 10.00% above the "
                               "baseline's (CondMiss+IndMiss 1100 against "
                               "1000"),
            0u);
  // Different events on the two sides, or none: errors, not verdicts.
  auto Mixed = evaluateGate(withMispredicts(1000, 0), O, &FeBase);
  ASSERT_FALSE(bool(Mixed));
  EXPECT_NE(toString(Mixed.takeError()).find("the baseline counts "
                                             "CondMiss+IndMiss, this sweep "
                                             "Bcm+Bim: not comparable"),
            std::string::npos);
  // A variant without the events (a perf event not counted) is an error, not
  // a zero in the mean.
  SweepResult Gap = withMispredicts(1000, 100);
  Gap.Ms[3].Counters.erase("Bim");
  auto G3 = evaluateGate(Gap, O, &Base);
  ASSERT_FALSE(bool(G3));
  EXPECT_NE(toString(G3.takeError()).find("this sweep's variant base/code/192 "
                                          "did not count Bim"),
            std::string::npos);
  SweepResult None = simResult(5);
  EXPECT_TRUE(mispredictEvents(None).empty());
  EXPECT_FALSE(bool(checkMispredictBaseline(Base, "b.json")));
  llvm::Error NB = checkMispredictBaseline(None, "b.json");
  ASSERT_TRUE(bool(NB));
  EXPECT_NE(toString(std::move(NB)).find("b.json: --max-mispredict-rise: the "
                                         "baseline counts no branch mispredicts"),
            std::string::npos);
  auto N = evaluateGate(None, O, &Base);
  ASSERT_FALSE(bool(N));
  EXPECT_NE(toString(N.takeError()).find("counts no branch mispredicts"),
            std::string::npos);
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
  // Below 1%: three significant digits.
  EXPECT_EQ(percent(0.001234), "0.123%");
  EXPECT_EQ(percent(1e-6), "0.000100%");
  // Two numbers that differ never print alike.
  EXPECT_EQ(percentPair(0.1234, 1e-4),
            std::make_pair(std::string("12.34%"), std::string("0.0100%")));
  EXPECT_EQ(percentPair(0.012341, 0.012349),
            std::make_pair(std::string("1.234%"), std::string("1.235%")));
  EXPECT_EQ(percentPair(1e-6, 1e-6),
            std::make_pair(std::string("0.000100%"), std::string("0.000100%")));
}

} // namespace

namespace {

/// The automatic sweep's grid (0..960 by 64, 16 variants) on the stack axis,
/// with \p Cost and an indirect-mispredict count \p Bim per offset.
SweepResult autoGridSeries(std::function<double(int64_t)> Cost,
                           std::function<double(int64_t)> Bim) {
  SweepResult R;
  R.Binary = "gzip";
  R.Backend = "sim";
  R.Axis = "stack";
  R.CacheGeometry = "I1=32768,8,64 D1=32768,8,64 LL=8388608,16,64";
  for (int64_t O = 0; O <= 960; O += 64) {
    Measurement M;
    M.V = Variant{"base", "stack", O};
    M.Cost = Cost(O);
    M.Instructions = 5000000;
    M.Counters["Bim"] = Bim(O);
    M.Counters["Ir"] = 5000000;
    R.Ms.push_back(M);
  }
  return R;
}

} // namespace

// Above the resolution but below --min-effect: negligible, with no period
// and no mechanism, whatever shape the ripple has (the gzip stack axis'
// 0.0138% once read "exceeds the resolution ... a layout effect").
TEST(VerdictRuleTest, NegligibleAboveResolution) {
  auto G = evaluateGate(
      autoGridSeries(
          [](int64_t O) { return 1e7 + ((O / 64) % 4 < 2 ? 1380 : 0); },
          [](int64_t O) { return (O / 64) % 2 ? 217 : 216; }),
      {}, nullptr);
  EXPECT_EQ(G->Kind, VerdictKind::Negligible);
  EXPECT_EQ(verdictState(G->Kind), VerdictState::Negligible);
  EXPECT_FALSE(G->WithinNoise);
  EXPECT_FALSE(G->Base.Period);
  EXPECT_TRUE(G->Base.Mechanism.empty());
  EXPECT_TRUE(G->Base.CounterPeriods.empty());
  EXPECT_EQ(G->MinEffect, DefaultMinEffect);
  EXPECT_EQ(G->Verdict, "spread 0.0138% exceeds the resolution 0.0100% "
                        "(deterministic backend) but is below the 1.00% "
                        "effect threshold (--min-effect): negligible");
  // --min-effect=0: every spread above the floor is an effect again.
  GateOptions Zero;
  Zero.MinEffect = 0;
  auto Z = evaluateGate(
      autoGridSeries(
          [](int64_t O) { return 1e7 + ((O / 64) % 4 < 2 ? 1380 : 0); },
          [](int64_t O) { return (O / 64) % 2 ? 217 : 216; }),
      Zero, nullptr);
  EXPECT_EQ(Z->Kind, VerdictKind::Periodic);
  EXPECT_EQ(verdictState(Z->Kind), VerdictState::Effect);
  ASSERT_TRUE(Z->Base.Period);
  EXPECT_EQ(Z->Base.Period->Bytes, 256u);
  // The Bim alternation is no period even then: a count of one event.
  EXPECT_FALSE(Z->Base.CounterPeriods.count("Bim"));
}

// A count alternating by one (Bim 216, 217, 216, ... over 16 offsets) is the
// start-up code's jitter: no event period, even when the cost itself swings
// far above the threshold.
TEST(VerdictRuleTest, EventAlternatingByOneIsNoPeriod) {
  auto G = evaluateGate(
      autoGridSeries(
          [](int64_t O) { return 1e7 * ((O / 64) % 4 < 2 ? 1.05 : 1.0); },
          [](int64_t O) { return (O / 64) % 2 ? 217 : 216; }),
      {}, nullptr);
  EXPECT_EQ(G->Kind, VerdictKind::Periodic);
  ASSERT_TRUE(G->Base.Period);
  EXPECT_EQ(G->Base.Period->Bytes, 256u);
  EXPECT_FALSE(G->Base.CounterPeriods.count("Bim"));
}

// A real event period still gets named: Bim 200 and 260 every 512 B.
TEST(VerdictRuleTest, EventWithRealPeriodIsNamed) {
  auto G = evaluateGate(
      autoGridSeries(
          [](int64_t O) { return 1e7 * ((O / 64) % 8 < 4 ? 1.05 : 1.0); },
          [](int64_t O) { return (O / 64) % 8 < 4 ? 260 : 200; }),
      {}, nullptr);
  EXPECT_EQ(G->Kind, VerdictKind::Periodic);
  ASSERT_TRUE(G->Base.CounterPeriods.count("Bim"));
  EXPECT_EQ(G->Base.CounterPeriods.at("Bim").Bytes, 512u);
  EXPECT_NEAR(G->Base.CounterPeriods.at("Bim").Amplitude, 60, 1e-9);
}

// One variant: its measurement, no spread and no verdict.
TEST(VerdictRuleTest, OnePointHasNoVerdict) {
  SweepResult R = simResult(0);
  R.Ms.resize(1);
  R.Ms[0].Cost = 347889586;
  auto G = evaluateGate(R, {}, nullptr);
  EXPECT_EQ(G->Kind, VerdictKind::Single);
  EXPECT_EQ(verdictState(G->Kind), VerdictState::None);
  EXPECT_FALSE(G->WithinNoise);
  EXPECT_EQ(G->Verdict, "offset 0: cost 347889586; no spread and no verdict "
                        "from one point (sweep two or more offsets for one)");
  EXPECT_EQ(G->Verdict.find("within"), std::string::npos);
  EXPECT_FALSE(G->Failed);
}

// Without a noise floor, a spread at or below --min-effect is negligible
// whatever the noise; above it the verdict stays unknown.
TEST(VerdictRuleTest, UnknownFloorBelowThresholdIsNegligible) {
  SweepResult R = simResult(2); // spread 0.401%
  R.Backend = "perf";
  auto G = evaluateGate(R, {}, nullptr);
  EXPECT_EQ(G->Kind, VerdictKind::Negligible);
  EXPECT_NE(G->Verdict.find("noise floor unknown"), std::string::npos);
  EXPECT_NE(G->Verdict.find("negligible"), std::string::npos);
  EXPECT_FALSE(G->Base.Period);
  auto Big = evaluateGate(
      [] {
        SweepResult B = simResult(50);
        B.Backend = "perf";
        return B;
      }(),
      {}, nullptr);
  EXPECT_EQ(Big->Kind, VerdictKind::Unknown);
  EXPECT_EQ(verdictState(Big->Kind), VerdictState::None);
  EXPECT_TRUE(Big->Base.Period);
}

// The gate is the same with any threshold: --max-spread fails a negligible
// spread it is set below.
TEST(VerdictRuleTest, MinEffectLeavesTheGateAlone) {
  GateOptions O;
  O.MaxSpread = 0.001;
  auto G = evaluateGate(simResult(2), O, nullptr); // spread 0.401%
  EXPECT_EQ(G->Kind, VerdictKind::Negligible);
  EXPECT_TRUE(G->Failed);
  ASSERT_FALSE(G->Reasons.empty());
  EXPECT_EQ(G->Reasons[0].find("spread 0.401% exceeds --max-spread 0.100%"),
            0u)
      << G->Reasons[0];
}
