//===- StatsTest.cpp - sweep statistics on data with known answers --------===//
#include "keel/SweepReport/Stats.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace keel::sweep;

namespace {

TEST(StatsTest, BasicMoments) {
  std::vector<double> V = {4, 1, 3, 2, 5};
  EXPECT_DOUBLE_EQ(mean(V), 3);
  EXPECT_DOUBLE_EQ(median(V), 3);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median({7}), 7);
  EXPECT_DOUBLE_EQ(stddev(V), std::sqrt(2.5)); // sum sq dev 10 / (n-1)
  EXPECT_DOUBLE_EQ(stddev({5}), 0);
  EXPECT_DOUBLE_EQ(coefficientOfVariation(V), std::sqrt(2.5) / 3);
  EXPECT_DOUBLE_EQ(minimum(V), 1);
  EXPECT_DOUBLE_EQ(maximum(V), 5);
  EXPECT_DOUBLE_EQ(spread(V), 4);              // 5/1 - 1
  EXPECT_DOUBLE_EQ(largestDeviation(V), 2.0 / 3); // |1-3|/3
  EXPECT_DOUBLE_EQ(quantile(V, 0.25), 2);
  EXPECT_DOUBLE_EQ(quantile({1, 2}, 0.5), 1.5);
}

TEST(StatsTest, EmptyAndDegenerate) {
  EXPECT_EQ(mean({}), 0);
  EXPECT_EQ(median({}), 0);
  EXPECT_EQ(spread({}), 0);
  EXPECT_EQ(spread({0, 1}), 0); // a zero cost has no meaningful ratio
  EXPECT_EQ(coefficientOfVariation({0, 0}), 0);
  EXPECT_FALSE(bootstrapMedianCI({1.0}).has_value());
}

TEST(StatsTest, StddevIsStableForLargeCloseValues) {
  // Naive sum-of-squares loses everything here; two-pass does not.
  std::vector<double> V = {1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16};
  EXPECT_NEAR(stddev(V), std::sqrt(30.0), 1e-6);
}

TEST(StatsTest, RngIsDeterministic) {
  Rng A(42), B(42), C(43);
  uint64_t X = A.next();
  EXPECT_EQ(X, B.next());
  EXPECT_NE(X, C.next());
}

TEST(StatsTest, BootstrapCIContainsMedianAndNarrowsWithData) {
  Rng R(1);
  auto Noisy = [&](size_t N) {
    std::vector<double> V;
    for (size_t I = 0; I < N; ++I)
      V.push_back(100 + double(R.below(1000)) / 100); // uniform 100..110
    return V;
  };
  std::vector<double> Small = Noisy(9), Large = Noisy(400);
  auto CS = bootstrapMedianCI(Small), CL = bootstrapMedianCI(Large);
  ASSERT_TRUE(CS && CL);
  EXPECT_LE(CS->Low, median(Small));
  EXPECT_GE(CS->High, median(Small));
  EXPECT_LE(CL->Low, 105.5);
  EXPECT_GE(CL->High, 104.5);
  EXPECT_LT(CL->High - CL->Low, CS->High - CS->Low);
  // Same seed, same interval.
  auto Again = bootstrapMedianCI(Small);
  EXPECT_EQ(Again->Low, CS->Low);
  EXPECT_EQ(Again->High, CS->High);
}

TEST(StatsTest, NormalizeByRoundRemovesSharedDrift) {
  // Three commands with true costs 1, 2, 4; every round scales all of them by
  // its own load factor.
  std::vector<double> Load = {1.0, 1.5, 0.8, 3.0, 1.1};
  std::vector<std::vector<double>> S(3);
  for (double F : Load)
    for (size_t C = 0; C < 3; ++C)
      S[C].push_back(double(1 << C) * F);
  S.push_back({7, 8}); // a different round count: left alone
  auto N = normalizeByRound(S);
  for (size_t C = 0; C < 3; ++C)
    for (double X : N[C])
      EXPECT_NEAR(X, N[C][0], 1e-12) << "command " << C;
  EXPECT_NEAR(N[1][0] / N[0][0], 2, 1e-12);
  EXPECT_NEAR(N[2][0] / N[0][0], 4, 1e-12);
  EXPECT_EQ(N[3], S[3]);
  // The overall median sets the unit: the middle command's value.
  EXPECT_NEAR(N[1][0], median({1, 1.5, 0.8, 3, 1.1, 2, 3, 1.6, 6, 2.2, 4, 6,
                               3.2, 12, 4.4}),
              1e-12);
}

TEST(StatsTest, MannWhitneyKnownValues) {
  // A entirely above B: U = nA * nB, Z > 0, small p.
  std::vector<double> A = {10, 11, 12, 13, 14, 15, 16, 17};
  std::vector<double> B = {1, 2, 3, 4, 5, 6, 7, 8};
  MannWhitneyResult R = mannWhitneyU(A, B);
  EXPECT_DOUBLE_EQ(R.U, 64);
  EXPECT_GT(R.Z, 0);
  // Exact normal approximation: mu 32, sigma sqrt(8*8*17/12), cc 0.5.
  double Z = (64 - 32 - 0.5) / std::sqrt(64.0 * 17 / 12);
  EXPECT_NEAR(R.Z, Z, 1e-12);
  EXPECT_NEAR(R.PValue, std::erfc(Z / std::sqrt(2.0)), 1e-12);
  EXPECT_LT(R.PValue, 0.001);
  // Symmetric.
  MannWhitneyResult S = mannWhitneyU(B, A);
  EXPECT_DOUBLE_EQ(S.U, 0);
  EXPECT_NEAR(S.Z, -R.Z, 1e-12);
  // Interleaved samples: no evidence.
  EXPECT_GT(mannWhitneyU({1, 3, 5, 7, 9}, {2, 4, 6, 8, 10}).PValue, 0.5);
  // All tied: p = 1, not a division by zero.
  EXPECT_EQ(mannWhitneyU({5, 5, 5}, {5, 5}).PValue, 1);
}

TEST(StatsTest, MannWhitneyTieCorrection) {
  // Ties shrink the variance: ranks of {1,1,2,2 | 2,3,3,3}.
  std::vector<double> A = {1, 1, 2, 2}, B = {2, 3, 3, 3};
  MannWhitneyResult R = mannWhitneyU(A, B);
  // Pairs a > b: none; ties a == b: 2*1 -> U = 1.
  EXPECT_DOUBLE_EQ(R.U, 1);
  // Tie groups sizes 2, 3, 3: sum t^3 - t = 6 + 24 + 24 = 54.
  double Var = 16.0 / 12 * (9 - 54.0 / (8 * 7));
  EXPECT_NEAR(R.Z, (1 - 8 + 0.5) / std::sqrt(Var), 1e-12);
}

/// A square wave of \p Period bytes over 0..Max by Step, with amplitude
/// \p Amp around 100 plus uniform noise of +-Noise.
std::pair<std::vector<int64_t>, std::vector<double>>
squareWave(int64_t Max, int64_t Step, int64_t Period, double Amp, double Noise,
           uint64_t Seed) {
  Rng R(Seed);
  std::vector<int64_t> X;
  std::vector<double> Y;
  for (int64_t O = 0; O <= Max; O += Step) {
    X.push_back(O);
    double Jitter = Noise * (double(R.below(2001)) / 1000 - 1);
    Y.push_back(100 + ((O % Period) < Period / 2 ? Amp : -Amp) + Jitter);
  }
  return {X, Y};
}

TEST(StatsTest, DominantPeriodSquareWavePlusNoise) {
  // Seed 002's default grid 0..4 KB by 64 B, period 2 KB (a 2-way 4 KB I1).
  for (uint64_t Seed : {1, 2, 3, 4, 5}) {
    auto [X, Y] = squareWave(4096, 64, 2048, 5, 2, Seed);
    auto P = dominantPeriod(X, Y);
    ASSERT_TRUE(P);
    EXPECT_EQ(P->Bytes, 2048u) << "seed " << Seed;
    EXPECT_GT(P->Strength, 0.8);
  }
  // 1 KB period on the same grid; 4 KB period on 0..16 KB by 64.
  auto [X1, Y1] = squareWave(4096, 64, 1024, 5, 2, 7);
  EXPECT_EQ(dominantPeriod(X1, Y1)->Bytes, 1024u);
  auto [X4, Y4] = squareWave(16384, 64, 4096, 3, 2, 8);
  EXPECT_EQ(dominantPeriod(X4, Y4)->Bytes, 4096u);
}

TEST(StatsTest, DominantPeriodIgnoresOrderAndTrend) {
  auto [X, Y] = squareWave(4096, 64, 512, 5, 1, 9);
  for (size_t I = 0; I < Y.size(); ++I)
    Y[I] += 0.01 * X[I]; // a slow drift of 41 over the grid
  std::reverse(X.begin(), X.end());
  std::reverse(Y.begin(), Y.end());
  auto P = dominantPeriod(X, Y);
  ASSERT_TRUE(P);
  EXPECT_EQ(P->Bytes, 512u);
}

TEST(StatsTest, DominantPeriodSurvivesMissingVariants) {
  auto [X, Y] = squareWave(4096, 64, 2048, 5, 1, 12);
  // Drop every seventh point, as failed variants would be.
  std::vector<int64_t> X2;
  std::vector<double> Y2;
  for (size_t I = 0; I < X.size(); ++I)
    if (I % 7 != 3) {
      X2.push_back(X[I]);
      Y2.push_back(Y[I]);
    }
  auto P = dominantPeriod(X2, Y2);
  ASSERT_TRUE(P);
  EXPECT_EQ(P->Bytes, 2048u);
  EXPECT_GT(P->Strength, 0.8);
}

TEST(StatsTest, DominantPeriodOfNoiseIsWeak) {
  Rng R(11);
  std::vector<int64_t> X;
  std::vector<double> Y;
  for (int64_t O = 0; O <= 4096; O += 64) {
    X.push_back(O);
    Y.push_back(100 + double(R.below(1000)) / 100);
  }
  auto P = dominantPeriod(X, Y);
  ASSERT_TRUE(P);
  EXPECT_LT(P->Strength, MinPeriodStrength);
}

TEST(StatsTest, DominantPeriodRejectsBadGrids) {
  EXPECT_FALSE(dominantPeriod({0, 64, 128}, {1, 2, 3}));            // too few
  EXPECT_FALSE(dominantPeriod({0, 64, 1000, 5000}, {1, 2, 1, 2}));   // sparse
  EXPECT_FALSE(dominantPeriod({0, 64, 64, 128}, {1, 2, 1, 2}));     // repeated
  EXPECT_FALSE(dominantPeriod({0, 64, 128, 192}, {1, 2, 1}));       // sizes
  EXPECT_FALSE(dominantPeriod({0, 64, 128, 192, 256}, {3, 3, 3, 3, 3})); // flat
}

TEST(StatsTest, CacheGeometryAndMechanism) {
  CacheGeometry G =
      parseCacheGeometry("I1=4096,2,64 D1=32768,8,64 LL=262144,8,64");
  EXPECT_EQ(G.I1.Size, 4096u);
  EXPECT_EQ(G.I1.waySize(), 2048u);
  EXPECT_EQ(G.D1.waySize(), 4096u);
  EXPECT_EQ(G.LL.Line, 64u);
  // The simulated I1's way size is named before any generic table entry.
  EXPECT_NE(likelyMechanism(2048, G).find("I1 way size (4 KB / 2 ways)"),
            std::string::npos);
  EXPECT_NE(likelyMechanism(4096, G).find("D1 way size"), std::string::npos);
  EXPECT_NE(likelyMechanism(64, G).find("line size"), std::string::npos);
  CacheGeometry None;
  EXPECT_NE(likelyMechanism(4096, None).find("4K aliasing"), std::string::npos);
  EXPECT_NE(likelyMechanism(1024, None).find("branch predictor"),
            std::string::npos);
  EXPECT_NE(likelyMechanism(65536, None).find("64 KB L1 I-cache"),
            std::string::npos);
  EXPECT_NE(likelyMechanism(192, None).find("not a power of two"),
            std::string::npos);
  EXPECT_EQ(likelyMechanism(0, None), "no clear period");
  // Malformed parts are ignored.
  EXPECT_EQ(parseCacheGeometry("I1=abc D1=1,2").I1.Size, 0u);
}

TEST(StatsTest, MeanRatioAsHyperfineStatesIt) {
  // B costs 1% less at every offset, both with the same 2% swing: B is
  // faster, the ratio is 1.01 and its +- the propagated standard error.
  std::vector<double> A, B;
  for (int I = 0; I < 16; ++I) {
    double Swing = I % 2 ? 1.02 : 0.98;
    A.push_back(1000 * Swing);
    B.push_back(1000 / 1.01 * Swing);
  }
  MeanRatio M = meanRatio(A, B, 1e-4);
  EXPECT_TRUE(M.BFaster);
  EXPECT_NEAR(M.Ratio, 1.01, 1e-9);
  double Rel = std::sqrt(2 * std::pow(stddev(A) / mean(A), 2) / 16);
  EXPECT_NEAR(M.Error, 1.01 * Rel, 1e-9);
  EXPECT_LT(M.PValue, 0.05);
  EXPECT_TRUE(M.Significant);
  // The other way round: A is faster by the same ratio.
  MeanRatio Back = meanRatio(B, A, 1e-4);
  EXPECT_FALSE(Back.BFaster);
  EXPECT_NEAR(Back.Ratio, 1.01, 1e-9);
  // Identical series: no difference; the +- is at least the resolution.
  MeanRatio Same = meanRatio(A, A, 1e-4);
  EXPECT_DOUBLE_EQ(Same.Ratio, 1);
  EXPECT_FALSE(Same.Significant);
  std::vector<double> Flat(8, 500);
  MeanRatio Exact = meanRatio(Flat, Flat, 1e-4);
  EXPECT_DOUBLE_EQ(Exact.Error, 1e-4);
  // A difference below the resolution is not significant, however regular.
  std::vector<double> Tiny(8, 500 * (1 + 5e-5));
  EXPECT_FALSE(meanRatio(Tiny, Flat, 1e-4).Significant);
  EXPECT_DOUBLE_EQ(meanRatio({}, Flat, 1e-4).Ratio, 1);
}

} // namespace

TEST(StatsTest, DominantPeriodAmplitudeIsPeakToPeak) {
  // A count alternating between 216 and 217 over 16 offsets: a perfectly
  // regular 128 B pattern of amplitude 1 (Gate.h does not name it).
  std::vector<int64_t> X;
  std::vector<double> Y, Z;
  for (int64_t O = 0; O <= 960; O += 64) {
    X.push_back(O);
    Y.push_back((O / 64) % 2 ? 217 : 216);
    Z.push_back((O / 64) % 8 < 4 ? 260 : 200);
  }
  auto P = dominantPeriod(X, Y);
  ASSERT_TRUE(P);
  EXPECT_EQ(P->Bytes, 128u);
  EXPECT_NEAR(P->Amplitude, 1, 1e-12);
  EXPECT_LT(P->Amplitude, MinPeriodAmplitude);
  auto Q = dominantPeriod(X, Z);
  ASSERT_TRUE(Q);
  EXPECT_EQ(Q->Bytes, 512u);
  EXPECT_NEAR(Q->Amplitude, 60, 1e-12);
}
