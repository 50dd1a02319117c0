//===- Stats.cpp - statistics over sweep measurements ---------------------===//
//
// Plain free functions over vectors (google/benchmark's statistics.cc shape).
// The period detector and the mechanism table detect the period of the
// swings and name the likely mechanism, from the address-bit effects of
// the spacer report (docs/references.md).
//
//===----------------------------------------------------------------------===//
#include "keel/SweepReport/Stats.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace llvm;

namespace keel {
namespace sweep {

double mean(ArrayRef<double> V) {
  if (V.empty())
    return 0;
  return std::accumulate(V.begin(), V.end(), 0.0) / V.size();
}

double median(ArrayRef<double> V) {
  if (V.empty())
    return 0;
  std::vector<double> C(V.begin(), V.end());
  auto Mid = C.begin() + C.size() / 2;
  std::nth_element(C.begin(), Mid, C.end());
  if (C.size() % 2 == 1)
    return *Mid;
  // Even count: the lower middle value is the largest of the lower half.
  double Lower = *std::max_element(C.begin(), Mid);
  return (Lower + *Mid) / 2;
}

double stddev(ArrayRef<double> V) {
  if (V.size() < 2)
    return 0;
  double M = mean(V), SS = 0;
  for (double X : V) // two-pass: no cancellation for large, close values
    SS += (X - M) * (X - M);
  return std::sqrt(SS / (V.size() - 1));
}

double coefficientOfVariation(ArrayRef<double> V) {
  double M = mean(V);
  return M == 0 ? 0 : stddev(V) / M;
}

double minimum(ArrayRef<double> V) {
  return V.empty() ? 0 : *std::min_element(V.begin(), V.end());
}

double maximum(ArrayRef<double> V) {
  return V.empty() ? 0 : *std::max_element(V.begin(), V.end());
}

double spread(ArrayRef<double> V) {
  double Lo = minimum(V);
  if (V.empty() || Lo <= 0)
    return 0;
  return maximum(V) / Lo - 1;
}

double largestDeviation(ArrayRef<double> V) {
  double M = mean(V), Worst = 0;
  if (M == 0)
    return 0;
  for (double X : V)
    Worst = std::max(Worst, std::fabs(X - M));
  return Worst / std::fabs(M);
}

double quantile(ArrayRef<double> V, double Q) {
  if (V.empty())
    return 0;
  std::vector<double> C(V.begin(), V.end());
  std::sort(C.begin(), C.end());
  double H = std::clamp(Q, 0.0, 1.0) * (C.size() - 1);
  size_t Lo = static_cast<size_t>(std::floor(H));
  size_t Hi = std::min(Lo + 1, C.size() - 1);
  return C[Lo] + (H - Lo) * (C[Hi] - C[Lo]);
}

uint64_t Rng::next() {
  // SplitMix64 (Steele, Lea, Flood 2014): tiny, fast, well distributed.
  uint64_t Z = (State += 0x9e3779b97f4a7c15ULL);
  Z = (Z ^ (Z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  Z = (Z ^ (Z >> 27)) * 0x94d049bb133111ebULL;
  return Z ^ (Z >> 31);
}

double Rng::normal() {
  double U1 = uniform(), U2 = uniform();
  return std::sqrt(-2 * std::log1p(-U1)) * std::cos(2 * M_PI * U2);
}

std::vector<std::vector<double>>
normalizeByRound(ArrayRef<std::vector<double>> Samples) {
  std::vector<std::vector<double>> Out(Samples.begin(), Samples.end());
  size_t Rounds = 0;
  for (const std::vector<double> &S : Samples)
    if (!S.empty()) {
      Rounds = S.size();
      break;
    }
  std::vector<double> All;
  std::vector<std::vector<double>> ByRound(Rounds);
  for (const std::vector<double> &S : Samples)
    if (S.size() == Rounds)
      for (size_t R = 0; R < Rounds; ++R) {
        ByRound[R].push_back(S[R]);
        All.push_back(S[R]);
      }
  double Scale = median(All);
  for (std::vector<double> &S : Out)
    if (S.size() == Rounds)
      for (size_t R = 0; R < Rounds; ++R) {
        double M = median(ByRound[R]);
        if (M > 0)
          S[R] = S[R] / M * Scale;
      }
  return Out;
}

std::optional<Interval> bootstrapMedianCI(ArrayRef<double> V, double Confidence,
                                          unsigned Resamples, uint64_t Seed) {
  if (V.size() < 2 || Resamples == 0)
    return std::nullopt;
  Rng R(Seed);
  std::vector<double> Medians, Sample(V.size());
  Medians.reserve(Resamples);
  for (unsigned I = 0; I < Resamples; ++I) {
    for (double &X : Sample)
      X = V[R.below(V.size())];
    Medians.push_back(median(Sample));
  }
  double Alpha = (1 - Confidence) / 2;
  return Interval{quantile(Medians, Alpha), quantile(Medians, 1 - Alpha)};
}

MeanRatio meanRatio(ArrayRef<double> A, ArrayRef<double> B,
                    double Resolution) {
  MeanRatio R;
  double MA = mean(A), MB = mean(B);
  if (A.empty() || B.empty() || MA <= 0 || MB <= 0)
    return R;
  R.BFaster = MB < MA;
  R.Ratio = R.BFaster ? MA / MB : MB / MA;
  // The relative standard error of a ratio of independent means is the
  // root sum of squares of each mean's (first-order propagation).
  auto RelSE2 = [](ArrayRef<double> V, double M) {
    double S = stddev(V) / M;
    return S * S / double(V.size());
  };
  double Rel = std::sqrt(RelSE2(A, MA) + RelSE2(B, MB));
  R.Error = R.Ratio * std::max(Resolution, Rel);
  R.PValue = mannWhitneyU(A, B).PValue;
  R.Significant = R.PValue < 0.05 && R.Ratio - 1 > R.Error;
  return R;
}

MannWhitneyResult mannWhitneyU(ArrayRef<double> A, ArrayRef<double> B) {
  MannWhitneyResult Res;
  size_t NA = A.size(), NB = B.size(), N = NA + NB;
  if (NA == 0 || NB == 0)
    return Res;
  // Rank the pooled sample; tied values share their average rank.
  std::vector<std::pair<double, bool>> All; // (value, from A)
  for (double X : A)
    All.push_back({X, true});
  for (double X : B)
    All.push_back({X, false});
  std::sort(All.begin(), All.end(),
            [](const auto &L, const auto &R) { return L.first < R.first; });
  double RankSumA = 0, TieTerm = 0;
  for (size_t I = 0; I < N;) {
    size_t J = I;
    while (J < N && All[J].first == All[I].first)
      ++J;
    double T = J - I, AvgRank = (I + 1 + J) / 2.0; // ranks I+1 .. J
    for (size_t K = I; K < J; ++K)
      if (All[K].second)
        RankSumA += AvgRank;
    TieTerm += T * T * T - T;
    I = J;
  }
  Res.U = RankSumA - NA * (NA + 1) / 2.0;
  double Mu = NA * NB / 2.0;
  double Var = NA * NB / 12.0 * ((N + 1) - TieTerm / (double(N) * (N - 1)));
  if (Var <= 0)
    return Res; // every value tied: no evidence of a difference
  double D = Res.U - Mu;
  double Corrected = D > 0 ? std::max(0.0, D - 0.5) : std::min(0.0, D + 0.5);
  Res.Z = Corrected / std::sqrt(Var);
  Res.PValue = std::erfc(std::fabs(Res.Z) / std::sqrt(2.0));
  return Res;
}

namespace {

/// Sum of squares around the least-squares line through (X[I], Y[I]): the
/// variation a slow drift (e.g. code growing with the pad) leaves to explain.
double detrendedSS(ArrayRef<double> X, ArrayRef<double> Y) {
  double MX = mean(X), MY = mean(Y), Sxy = 0, Sxx = 0;
  for (size_t I = 0; I < Y.size(); ++I) {
    Sxy += (X[I] - MX) * (Y[I] - MY);
    Sxx += (X[I] - MX) * (X[I] - MX);
  }
  double Slope = Sxx > 0 ? Sxy / Sxx : 0, SS = 0;
  for (size_t I = 0; I < Y.size(); ++I) {
    double R = Y[I] - MY - Slope * (X[I] - MX);
    SS += R * R;
  }
  return SS;
}

/// Adjusted share of the detrended variation explained by a pattern that
/// repeats every K grid steps plus a common linear drift (one mean per phase
/// and one slope, fitted by least squares within phases). \p X holds grid
/// positions (offset / step, from 0); missing positions (failed variants)
/// simply leave their phase with fewer points.
double foldScore(ArrayRef<double> X, ArrayRef<double> Y, size_t K,
                 double TrendSS) {
  std::vector<double> SumX(K, 0), SumY(K, 0), Count(K, 0);
  for (size_t I = 0; I < Y.size(); ++I) {
    size_t P = size_t(X[I]) % K;
    SumX[P] += X[I];
    SumY[P] += Y[I];
    Count[P] += 1;
  }
  auto MeanX = [&](size_t I) { return SumX[size_t(X[I]) % K] / Count[size_t(X[I]) % K]; };
  auto MeanY = [&](size_t I) { return SumY[size_t(X[I]) % K] / Count[size_t(X[I]) % K]; };
  double Sxy = 0, Sxx = 0;
  for (size_t I = 0; I < Y.size(); ++I) {
    Sxy += (X[I] - MeanX(I)) * (Y[I] - MeanY(I));
    Sxx += (X[I] - MeanX(I)) * (X[I] - MeanX(I));
  }
  double Slope = Sxx > 0 ? Sxy / Sxx : 0, SSE = 0;
  for (size_t I = 0; I < Y.size(); ++I) {
    double R = Y[I] - MeanY(I) - Slope * (X[I] - MeanX(I));
    SSE += R * R;
  }
  double N = Y.size(), Phases = 0;
  for (double C : Count)
    Phases += C > 0;
  if (N - Phases - 1 <= 0)
    return -1;
  // Adjusted R^2: more phases always fit more noise, so charge for each
  // phase mean (the line alone uses two parameters).
  return 1 - (SSE / TrendSS) * (N - 2) / (N - Phases - 1);
}

} // namespace

std::optional<PeriodEstimate> dominantPeriod(ArrayRef<int64_t> Offsets,
                                             ArrayRef<double> Values) {
  size_t N = Offsets.size();
  if (N != Values.size() || N < 4)
    return std::nullopt;
  std::vector<std::pair<int64_t, double>> Pts;
  for (size_t I = 0; I < N; ++I)
    Pts.push_back({Offsets[I], Values[I]});
  std::sort(Pts.begin(), Pts.end());
  // The grid step is the gcd of the gaps, so failed (missing) variants
  // leave holes instead of breaking the grid.
  int64_t Step = 0;
  for (size_t I = 1; I < N; ++I) {
    int64_t Gap = Pts[I].first - Pts[I - 1].first;
    if (Gap == 0)
      return std::nullopt; // two values for one offset: not one grid
    Step = std::gcd(Step, Gap);
  }
  size_t Positions = size_t((Pts.back().first - Pts.front().first) / Step) + 1;
  if (Positions > 2 * N)
    return std::nullopt; // more than half the grid missing: not a sweep grid

  std::vector<double> X, Y;
  for (const auto &P : Pts) {
    X.push_back(double((P.first - Pts.front().first) / Step));
    Y.push_back(P.second);
  }
  double Scale = std::max(std::fabs(mean(Y)), 1e-300);
  double TrendSS = detrendedSS(X, Y);
  // Residual variation below 1e-12 of the mean is rounding, not a swing.
  if (TrendSS <= 1e-24 * Scale * Scale * N)
    return std::nullopt;

  // Candidates: at least two full cycles on the grid.
  std::vector<double> Score(Positions / 2 + 1, -1);
  size_t Best = 0;
  for (size_t K = 2; K <= Positions / 2; ++K) {
    Score[K] = foldScore(X, Y, K, TrendSS);
    if (Best == 0 || Score[K] > Score[Best])
      Best = K;
  }
  if (Best == 0 || Score[Best] <= -1)
    return std::nullopt;
  // A pattern of period P repeats with 2P too: prefer the fundamental, a
  // divisor of the winner that explains nearly as much (within 10%).
  size_t Chosen = Best;
  for (size_t K = 2; K < Best; ++K)
    if (Best % K == 0 && Score[K] >= 0.9 * Score[Best]) {
      Chosen = K;
      break;
    }
  double Strength = std::clamp(Score[Chosen], 0.0, 1.0);
  // The share of the whole variance the pattern alone explains: one mean
  // per phase, no drift (adjusted R^2 of that fit). A drift is not the
  // period, so a ripple on a slope explains little.
  double TotalSS = 0, MY = mean(Y);
  for (double V : Y)
    TotalSS += (V - MY) * (V - MY);
  std::vector<double> Sum(Chosen, 0), Count(Chosen, 0);
  for (size_t I = 0; I < Y.size(); ++I) {
    Sum[size_t(X[I]) % Chosen] += Y[I];
    Count[size_t(X[I]) % Chosen] += 1;
  }
  double SSE = 0, Phases = 0;
  for (size_t I = 0; I < Y.size(); ++I) {
    size_t P = size_t(X[I]) % Chosen;
    double R = Y[I] - Sum[P] / Count[P];
    SSE += R * R;
  }
  double Lowest = 0, Highest = 0;
  bool Any = false;
  for (size_t P = 0; P < Chosen; ++P) {
    if (Count[P] == 0)
      continue;
    Phases += 1;
    double M = Sum[P] / Count[P];
    Lowest = Any ? std::min(Lowest, M) : M;
    Highest = Any ? std::max(Highest, M) : M;
    Any = true;
  }
  double NY = Y.size();
  double Explained =
      TotalSS > 0 && NY > Phases
          ? std::clamp(1 - (SSE / TotalSS) * (NY - 1) / (NY - Phases), 0.0, 1.0)
          : 0;
  return PeriodEstimate{static_cast<uint64_t>(Chosen * Step), Strength,
                        Explained, Highest - Lowest};
}

static std::string bytesText(uint64_t B) {
  if (B >= 1024 && B % 1024 == 0)
    return formatv("{0} KB", B / 1024).str();
  return formatv("{0} B", B).str();
}

static std::string levelText(StringRef Name, const CacheLevel &L) {
  return formatv("{0} {1} {2}-way", Name, bytesText(L.Size), L.Assoc).str();
}

std::string likelyMechanism(uint64_t Bytes, const CacheGeometry &G) {
  if (Bytes == 0)
    return "no clear period";
  // The simulated caches first: in the sim backend they are the only
  // address-dependent structures, so a match is (almost) certain.
  SmallVector<std::string, 3> Found;
  struct Named {
    StringRef Name;
    const CacheLevel &L;
  } Levels[] = {{"I1", G.I1}, {"D1", G.D1}, {"LL", G.LL}};
  for (const Named &N : Levels)
    if (N.L.Assoc && N.L.waySize() == Bytes)
      Found.push_back(formatv("{0} way size ({1} / {2} ways): hot code or data "
                              "maps to the same sets",
                              N.Name, bytesText(N.L.Size), N.L.Assoc)
                          .str());
  for (const Named &N : Levels)
    if (N.L.Line == Bytes && Found.empty())
      Found.push_back(formatv("{0} line size: hot code or data straddles a "
                              "cache-line boundary",
                              levelText(N.Name, N.L))
                          .str());
  if (!Found.empty())
    return join(Found, "; ");

  // The spacer report's table of address-bit effects on real processors.
  switch (Bytes) {
  case 16:
  case 32:
    return "instruction fetch/decode window alignment (16/32 B blocks)";
  case 64:
    return "cache-line split / fetch block alignment (64 B lines)";
  case 128:
    return "adjacent-line prefetch pair or 128 B lines";
  case 1024:
    return "branch predictor index (BTB/PHT indexed by low address bits)";
  case 2048:
    return "I-cache way size (e.g. 32 KB 16-way) or branch predictor index";
  case 4096:
    return "store-to-load 4K aliasing (same low 12 bits) or page boundary "
           "(iTLB/dTLB)";
  case 8192:
    return "L1 way size (e.g. 32 KB 4-way / 64 KB 8-way) or 2 pages";
  case 16384:
    return "way size of a 2-way 32 KB L1 D-cache (the spacer report)";
  case 65536:
    return "direct-mapped 64 KB L1 I-cache (POWER4 in the spacer report) or "
           "64 KB L1 way";
  default:
    break;
  }
  if (!isPowerOf2_64(Bytes))
    return "not a power of two: unlikely to be address-bit aliasing (check "
           "that the program runs the same instructions in every variant)";
  if (Bytes < 64)
    return "sub-line alignment (instruction fetch / decoder)";
  return formatv("{0} address aliasing: a cache way size or predictor table "
                 "span of {0}",
                 bytesText(Bytes))
      .str();
}

} // namespace sweep
} // namespace keel
