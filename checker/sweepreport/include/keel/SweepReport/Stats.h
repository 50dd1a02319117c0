//===- keel/SweepReport/Stats.h - statistics over sweep measurements ---*- C++ -*-===//
//
// Free functions over plain vectors of doubles, in the style of
// google/benchmark's statistics: nothing here knows about variants, binaries
// or backends, so every function can be tested with synthetic data whose
// answer is known. docs/sweep-statistics.md defines each one.
//
// Conventions: an empty input gives 0 (and no interval / no period); the
// sample standard deviation of fewer than two values is 0. Every random
// choice uses a fixed-seed generator, so results repeat exactly.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_SWEEPREPORT_STATS_H
#define KEEL_SWEEPREPORT_STATS_H

#include "keel/Support/CacheGeometry.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace keel {
namespace sweep {

double mean(llvm::ArrayRef<double> V);
/// Middle value (mean of the two middle values for an even count).
double median(llvm::ArrayRef<double> V);
/// Sample standard deviation (divides by n - 1); 0 for n < 2.
double stddev(llvm::ArrayRef<double> V);
/// Coefficient of variation: stddev / mean (0 when the mean is 0).
double coefficientOfVariation(llvm::ArrayRef<double> V);
double minimum(llvm::ArrayRef<double> V);
double maximum(llvm::ArrayRef<double> V);
/// max / min - 1: the relative distance between the best and worst variant
/// (the spacer report's "max variation"). 0 when min <= 0 or V is empty.
double spread(llvm::ArrayRef<double> V);
/// max |x - mean| / mean: how far the worst outlier is from the average
/// variant. 0 when the mean is 0.
double largestDeviation(llvm::ArrayRef<double> V);
/// The q-quantile (0 <= q <= 1) with linear interpolation between order
/// statistics (type 7 of Hyndman & Fan, the R / numpy default).
double quantile(llvm::ArrayRef<double> V, double Q);

/// A fixed-seed generator (SplitMix64): the same seed gives the same numbers
/// on every platform and standard library, unlike std::*_distribution.
class Rng {
public:
  explicit Rng(uint64_t Seed) : State(Seed) {}
  uint64_t next();
  /// Uniform in [0, N) (N > 0). The modulo bias is below 2^-40 for the
  /// sizes used here.
  uint64_t below(uint64_t N) { return next() % N; }
  /// Uniform in [0, 1) with 53 random bits.
  double uniform() { return double(next() >> 11) * 0x1.0p-53; }
  /// Standard normal (Box-Muller).
  double normal();

private:
  uint64_t State;
};

inline constexpr uint64_t DefaultSeed = 0x6b65656c2d737765ULL; // "keel-swe"

/// Remove what every command of one round shares (machine load drifting
/// between rounds): Samples[c][r] is command c's value in round r; each is
/// divided by the median of round r over all commands and multiplied by the
/// median of all samples, so units stay the same. Commands with a different
/// number of rounds than the first (e.g. failed ones) are returned as given.
std::vector<std::vector<double>>
normalizeByRound(llvm::ArrayRef<std::vector<double>> Samples);

struct Interval {
  double Low = 0, High = 0;
};

/// Percentile-bootstrap confidence interval of the median: resample V with
/// replacement \p Resamples times, take the (1-C)/2 and (1+C)/2 quantiles of
/// the resampled medians. std::nullopt for fewer than two values.
std::optional<Interval> bootstrapMedianCI(llvm::ArrayRef<double> V,
                                          double Confidence = 0.95,
                                          unsigned Resamples = 2000,
                                          uint64_t Seed = DefaultSeed);

/// Two-sided Mann-Whitney U test of "A and B come from the same
/// distribution", normal approximation with tie correction and continuity
/// correction. U is A's statistic (number of pairs with a > b, ties count
/// half); Z > 0 means A tends to be larger.
struct MannWhitneyResult {
  double U = 0;
  double Z = 0;
  double PValue = 1;
};
MannWhitneyResult mannWhitneyU(llvm::ArrayRef<double> A,
                               llvm::ArrayRef<double> B);

/// Two series of costs compared as hyperfine compares two commands ("B is
/// 1.0018 +- 0.0001 times faster than A"; docs/sweep-statistics.md,
/// "Comparing two series").
struct MeanRatio {
  /// The larger mean over the smaller one (>= 1; 1 when either is empty or
  /// a mean is 0).
  double Ratio = 1;
  /// B's mean is the smaller one (B is the faster series).
  bool BFaster = false;
  /// The +- of Ratio: Ratio x the larger of \p Resolution and the relative
  /// standard error of the ratio of the means, propagated from each
  /// series' sample standard deviation over its n values
  /// (sqrt(sA^2/(nA mA^2) + sB^2/(nB mB^2))).
  double Error = 0;
  /// Two-sided Mann-Whitney U test of A against B (1 when either is empty).
  double PValue = 1;
  /// PValue < 0.05 and Ratio - 1 > Error: the difference is not noise, not
  /// below the resolution, and not layout luck of a few variants.
  bool Significant = false;
};
MeanRatio meanRatio(llvm::ArrayRef<double> A, llvm::ArrayRef<double> B,
                    double Resolution);

/// The period of the swings over an evenly spaced offset grid.
struct PeriodEstimate {
  uint64_t Bytes = 0; ///< the period, a multiple of the grid step
  /// Share of the (detrended) variance explained by a pattern repeating with
  /// this period, adjusted for the number of phases fitted: ~1 for a clean
  /// periodic signal, ~0 for noise.
  double Strength = 0;
  /// Share of the whole variance (drift included) that the periodic part
  /// explains: Strength x (variation left by the drift / total variation).
  /// A strong ripple on top of a large drift explains little of the spread;
  /// reports name a period only when this is at least MinExplainedVariance.
  double Explained = 0;
  /// Peak-to-peak amplitude of the fitted pattern: the largest minus the
  /// smallest phase mean, in the values' own units (counts, cost). A count
  /// alternating between 216 and 217 has amplitude 1 (Gate.h names an event's
  /// period only from MinPeriodAmplitude counts).
  double Amplitude = 0;
};
/// Below this strength the swings are reported as having no clear period.
inline constexpr double MinPeriodStrength = 0.5;
/// Below this share of the variance explained a period is not named.
inline constexpr double MinExplainedVariance = 0.5;
/// An event's period (I1mr, Bim, ...) is named only when its fitted pattern
/// moves the count by at least this many units peak to peak: a count of
/// events has a resolution of one, and a count alternating by one (Bim 216,
/// 217, 216, ...) is the start-up code's jitter, not a mechanism.
inline constexpr double MinPeriodAmplitude = 4;

/// Estimate the dominant period of \p Values measured at \p Offsets (bytes,
/// same length, evenly spaced, any order). Candidate periods are k * step for
/// k = 2 .. n/2 (at least two full cycles on the grid); each is scored by
/// fitting one mean per phase (offset / step mod k) plus a common linear
/// drift, and measuring how much of the variation left by the drift alone
/// the phases explain (adjusted R^2). The best
/// score wins; a divisor of the winner whose score is within 10% of it is
/// preferred, since a pattern with period P also repeats with 2P, 3P, ...
/// The step is the gcd of the gaps between offsets, so missing points (failed
/// variants) are holes in the grid rather than errors. std::nullopt for fewer
/// than 4 points, a repeated offset, a grid more than half empty, or values
/// that do not vary.
std::optional<PeriodEstimate> dominantPeriod(llvm::ArrayRef<int64_t> Offsets,
                                             llvm::ArrayRef<double> Values);

/// The cache geometry a sweep ran with, and its text form in SweepResult's
/// CacheGeometry (keel/Support/CacheGeometry.h).
using keel::CacheGeometry;
using keel::CacheLevel;
using keel::parseCacheGeometry;

/// Name the likely mechanism behind swings of period \p Bytes, as one line.
/// Heuristic (docs/sweep-statistics.md): a period equal to a simulated
/// cache's way size (size / associativity) or line size names that cache;
/// otherwise the address-bit effects of the spacer report are named by
/// period: 16/32 B fetch windows, 64 B cache-line split, 1 KB branch
/// predictor index, 4 KB store-to-load aliasing / page, 16 KB way size of a
/// 2-way 32 KB L1D, 64 KB direct-mapped 64 KB L1I. Periods that are not a
/// power of two are unlikely to be address-bit aliasing.
std::string likelyMechanism(uint64_t Bytes, const CacheGeometry &G);

} // namespace sweep
} // namespace keel

#endif
