//===- ModelTest.cpp - Minami et al.'s estimator against the paper --------===//
//
// Published values: Minami et al., "Performance estimation of programs by an
// extension of the Roofline model with cache effects", section 6 ("実例"),
// table 4 (cases (a)-(d)) and the worked text of section 6.1; section 5.2,
// table 1 (column Cp) for the memory/L2 mixed family.
//
//===----------------------------------------------------------------------===//
#include "keel/Roofline/Model.h"
#include "keel/Support/Diagnostics.h"

#include "gtest/gtest.h"

using namespace keel::roofline;

namespace {

KernelCounts counts(double M, double NL2, double NL1S, double NL1L,
                    double K) {
  KernelCounts KC;
  KC.M = M;
  KC.NL2 = NL2;
  KC.NL1S = NL1S;
  KC.NL1L = NL1L;
  KC.K = K;
  return KC;
}

Estimate est(const KernelCounts &KC) {
  auto E = estimate(KC, kComputerCeilings());
  EXPECT_TRUE(bool(E)) << llvm::toString(E.takeError());
  return *E;
}

constexpr double Tol = 0.002; // the tolerance on the published values

// Section 6, table 4 (a): m=5, L2=21, L1_S=12, L1_L=6, 43 flops;
// published estimate 0.236, L2-based (section 6.1: "最終的な見積り値は,
// 0.236, 23.6%").
TEST(RooflineModel, Section6CaseA) {
  Estimate E = est(counts(5, 21, 12, 6, 43));
  ASSERT_TRUE(E.Estimable);
  EXPECT_NEAR(E.Fraction, 0.236, Tol);
  EXPECT_EQ(E.BoundBy, Bound::L2);
  EXPECT_TRUE(E.UseL1); // (g): nL1_L + nL2 = 27 > 4.23 * 5
  EXPECT_TRUE(E.UseL2); // (i): nL2 = 21 > 2.17 * 5
}

// Section 6.1's text swaps the L1 counts (nL1_S=6, nL1_L=12) and works the
// L1-based value out as 1.88/((5+21+12)*8/43) = 0.266; the final estimate is
// still the L2-based 0.236.
TEST(RooflineModel, Section6CaseAText) {
  Estimate E = est(counts(5, 21, 6, 12, 43));
  EXPECT_NEAR(E.EL1, 0.266, Tol);
  EXPECT_NEAR(E.EL2, 0.236, Tol);
  EXPECT_NEAR(E.Fraction, 0.236, Tol);
  EXPECT_EQ(E.BoundBy, Bound::L2);
}

// Table 4 (b): m=13, L2=2, L1_S=12, L1_L=8, 60 flops; memory-based, 0.208.
TEST(RooflineModel, Section6CaseB) {
  Estimate E = est(counts(13, 2, 12, 8, 60));
  EXPECT_NEAR(E.Fraction, 0.208, Tol);
  EXPECT_EQ(E.BoundBy, Bound::Memory);
  EXPECT_FALSE(E.UseL1);
  EXPECT_FALSE(E.UseL2);
}

// Table 4 (c): m=11, L2=2, L1_S=0, L1_L=2, 11 flops; memory-based, 0.045.
TEST(RooflineModel, Section6CaseC) {
  Estimate E = est(counts(11, 2, 0, 2, 11));
  EXPECT_NEAR(E.Fraction, 0.045, Tol);
  EXPECT_EQ(E.BoundBy, Bound::Memory);
}

// Table 4 (d): m=3, L2=8, L1_S=8, L1_L=0, 25 flops; L2-based, 0.324.
TEST(RooflineModel, Section6CaseD) {
  Estimate E = est(counts(3, 8, 8, 0, 25));
  EXPECT_NEAR(E.Fraction, 0.324, Tol);
  EXPECT_EQ(E.BoundBy, Bound::L2);
  EXPECT_FALSE(E.UseL1);
}

// Section 5.2: the crossovers on K are n = 2.17m (L2) and n = 4.23m (L1;
// 241/46 - 1 = 4.239, which the paper truncates).
TEST(RooflineModel, Crossovers) {
  Estimate E = est(counts(3, 0, 0, 0, 2));
  EXPECT_NEAR(E.L2Crossover, 2.17, 0.005);
  EXPECT_NEAR(E.L1Crossover, 4.23, 0.01);
}

// Section 5.2, table 1, column Cp (estimate) for some mM-nL2-kF kernels,
// including the cap at 1.0 (3M-8L2-128F).
TEST(RooflineModel, Section52Table1) {
  struct Row {
    const char *Name;
    double Cp;
    Bound B;
  } Rows[] = {{"3M-2L2-2F", 0.030, Bound::Memory},
              {"3M-6L2-24F", 0.359, Bound::Memory},
              {"3M-8L2-16F", 0.207, Bound::L2},
              {"3M-14L2-28F", 0.235, Bound::L2},
              {"3M-8L2-128F", 1.000, Bound::Compute}};
  for (const Row &R : Rows) {
    auto KC = parseKernelName(R.Name);
    ASSERT_TRUE(bool(KC)) << llvm::toString(KC.takeError());
    Estimate E = est(*KC);
    EXPECT_NEAR(E.Fraction, R.Cp, Tol) << R.Name;
    EXPECT_EQ(E.BoundBy, R.B) << R.Name;
  }
}

// Rule (e): nL1_S >= 10m means the paper makes no estimate.
TEST(RooflineModel, RuleENoEstimate) {
  Estimate E = est(counts(3, 0, 30, 0, 30));
  EXPECT_FALSE(E.Estimable);
  EXPECT_NE(E.WhyNot.find("rule (e)"), std::string::npos);
  Estimate OK = est(counts(3, 0, 29, 0, 30));
  EXPECT_TRUE(OK.Estimable);
}

// The rules agree with "lowest of eM, eL2, eL1" away from the crossovers.
TEST(RooflineModel, RulesMatchMinimum) {
  for (double M : {1.0, 2.0, 3.0, 5.0})
    for (double N : {0.0, 1.0, 4.0, 9.0, 20.0})
      for (double L : {0.0, 3.0, 12.0}) {
        Estimate E = est(counts(M, N, 0, L, 7));
        double Min = std::min({E.EM, E.EL2, E.EL1, 1.0});
        EXPECT_NEAR(E.Fraction, Min, 1e-12) << M << " " << N << " " << L;
      }
}

// The additive extension: 1M-4L2-5F with Mband 10, L2band 40 GB/s: time =
// 8/10 + 32/40 = 1.6 ns per element, 5 flops -> 3.125 GFLOP/s (the paper's
// max() would give 5/max(0.8, 40/40 = 1.0) = 5 GFLOP/s).
TEST(RooflineModel, OverlapSum) {
  Ceilings C;
  C.Mband = 10;
  C.L2band = 40;
  C.L1band = 100;
  C.Ppeak = 100;
  auto Max = estimate(counts(1, 4, 0, 0, 5), C, Overlap::Max);
  auto Sum = estimate(counts(1, 4, 0, 0, 5), C, Overlap::Sum);
  ASSERT_TRUE(Max && Sum);
  EXPECT_NEAR(Max->GFlops, 5.0, 1e-9);
  EXPECT_EQ(Max->BoundBy, Bound::L2);
  EXPECT_NEAR(Sum->GFlops, 3.125, 1e-9);
  EXPECT_EQ(Sum->BoundBy, Bound::Memory); // 0.8 ns of 1.6 is memory's
  auto Cap = estimate(counts(1, 0, 0, 0, 1000), C, Overlap::Sum);
  ASSERT_TRUE(bool(Cap));
  EXPECT_EQ(Cap->BoundBy, Bound::Compute);
  EXPECT_EQ(Cap->Fraction, 1.0);
}

TEST(RooflineModel, BadInputs) {
  Estimate NoFlops = est(counts(1, 0, 0, 0, 0));
  EXPECT_FALSE(NoFlops.Estimable);
  llvm::Expected<Estimate> Neg = estimate(counts(1, 0, 0, 0, -1),
                                          kComputerCeilings());
  EXPECT_FALSE(bool(Neg));
  llvm::consumeError(Neg.takeError());
  Ceilings Z;
  llvm::Expected<Estimate> E = estimate(counts(1, 0, 0, 0, 1), Z);
  EXPECT_FALSE(bool(E));
  llvm::consumeError(E.takeError());
  auto N = parseKernelName("3X-2F");
  EXPECT_FALSE(bool(N));
  llvm::consumeError(N.takeError());
}

TEST(RooflineModel, ParseKernelsJSON) {
  auto K = parseKernels(R"({"kernels": [
    {"name": "a", "m": 5, "nL2": 21, "nL1_S": 12, "nL1_L": 6, "k": 43},
    {"name": "d", "m": 3, "nL2": 8, "k": 25, "element_bytes": 4}]})",
                        "k.json");
  ASSERT_TRUE(bool(K)) << llvm::toString(K.takeError());
  ASSERT_EQ(K->size(), 2u);
  EXPECT_EQ((*K)[0].NL1L, 6);
  EXPECT_EQ((*K)[1].ElementBytes, 4u);
  auto Bad = parseKernels("{\n  \"m\": 3,\n  \"k\": -1\n}", "bad.json");
  ASSERT_FALSE(bool(Bad));
  std::string Msg = llvm::toString(Bad.takeError());
  EXPECT_NE(Msg.find("bad.json:3"), std::string::npos) << Msg;
  auto Syntax = parseKernels("{\n \"m\": 3,,\n}", "syn.json");
  ASSERT_FALSE(bool(Syntax));
  Msg = llvm::toString(Syntax.takeError());
  EXPECT_NE(Msg.find("syn.json:2"), std::string::npos) << Msg;
}

} // namespace
