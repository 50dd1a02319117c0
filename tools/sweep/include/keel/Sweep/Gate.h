//===- keel/Sweep/Gate.h - summaries, noise floor and the verdict -*- C++ -*-===//
//
// From a SweepResult to the numbers every report shows (spread, largest
// deviation, CV, period and mechanism), the noise floor the spread must
// exceed to count as a layout effect, and the gate (--max-spread,
// --baseline) that turns them into exit status 0 or 1 with a one-line
// reason. docs/sweep-statistics.md states every rule.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_SWEEP_GATE_H
#define KEEL_SWEEP_GATE_H

#include "keel/Sweep/Result.h"
#include "keel/Sweep/Stats.h"

#include "llvm/Support/Error.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace keel {
namespace sweep {

/// The statistics of one series (the swept binary or the --compare binary)
/// over its measured (non-failed) variants.
struct SeriesSummary {
  std::string Name;
  size_t Measured = 0, Failed = 0;
  std::string FirstFailure; ///< "base/code/128: killed by signal 11"
  double Mean = 0, Median = 0, Min = 0, Max = 0;
  double Spread = 0;           ///< max / min - 1
  double LargestDeviation = 0; ///< max |cost - mean| / mean
  double CV = 0;               ///< stddev / mean
  int64_t BestOffset = 0, WorstOffset = 0;
  /// Spread of executed instructions (0 when unknown or identical).
  double InstructionSpread = 0;
  std::optional<PeriodEstimate> Period; ///< only when Strength is high enough
  std::string Mechanism;                ///< "" without a period
  /// Periods of the individual events that vary (I1mr, D1mr, Bcm, Bim, ...,
  /// cycles), by name: the cost mixes mechanisms, each event isolates one
  /// (e.g. I1 misses repeat every way size, indirect mispredicts every
  /// predictor span). Only periods at least MinPeriodStrength strong.
  std::map<std::string, PeriodEstimate> CounterPeriods;
};

SeriesSummary summarize(llvm::ArrayRef<Measurement> Ms, llvm::StringRef Name,
                        const CacheGeometry &G);

/// How large a spread measurement noise alone produces.
struct NoiseFloor {
  enum KindT { Deterministic, Measured, Unknown } Kind = Unknown;
  /// The spread of NumVariants medians that noise alone exceeds with
  /// probability 1 - Quantile (0 for a deterministic backend).
  double Spread = 0;
  double AASpread = 0; ///< observed spread of the A/A copies' medians
  size_t Copies = 0, Rounds = 0;
};

/// Options for the noise floor simulation (time backend).
struct NoiseOptions {
  double Quantile = 0.995;
  unsigned Simulations = 5000;
  bool Smooth = true; ///< smoothed bootstrap (jitter each draw)
  uint64_t Seed = DefaultSeed;
};

/// The noise floor for \p NumVariants variants measured \p Rounds times:
/// pool the A/A copies' samples (byte-identical binaries, so any difference
/// is noise), draw NumVariants pseudo-variants of Rounds samples each from
/// the pool, take the spread of their medians; the floor is the Quantile of
/// that spread over Simulations draws, and never below the observed A/A
/// spread.
NoiseFloor simulateNoiseFloor(llvm::ArrayRef<std::vector<double>> AASamples,
                              size_t NumVariants, size_t Rounds,
                              const NoiseOptions &O = {});

/// The noise floor of a whole result: Deterministic for "sim", Measured from
/// R.NoiseFloor for a backend that recorded A/A copies, Unknown otherwise.
NoiseFloor noiseFloorOf(const SweepResult &R, const NoiseOptions &O = {});

struct GateOptions {
  std::optional<double> MaxSpread; ///< fraction (0.01 for --max-spread=1%)
  /// Extra slack (fraction) allowed over the baseline beyond noise.
  double BaselineTolerance = 0;
  /// Significance level of the Mann-Whitney test on per-variant costs.
  double Alpha = 0.01;
  /// Fail when any variant failed (crashed, non-zero exit).
  bool FailOnFailedVariants = true;
  NoiseOptions Noise;
};

struct GateResult {
  bool Failed = false;
  /// One line on the spread against the noise floor, e.g.
  /// "spread 12.34% exceeds noise floor 0.00% (deterministic backend)" or
  /// "spread 3.10% is within noise (floor 11.20%)".
  std::string Verdict;
  bool WithinNoise = false;
  /// One line per failed check; the first one is the exit message.
  std::vector<std::string> Reasons;
  /// Non-failing remarks (inconclusive gates, differing instructions).
  std::vector<std::string> Notes;
  SeriesSummary Base;
  std::optional<SeriesSummary> Compare;
  NoiseFloor Noise;
};

/// Summarise \p R, compare its spread with the noise floor, and apply
/// --max-spread and --baseline. Errors only for an unusable baseline
/// (different backend or axis, nothing measured).
llvm::Expected<GateResult> evaluateGate(const SweepResult &R,
                                        const GateOptions &O,
                                        const SweepResult *Baseline = nullptr);

/// Read a result written by --json (the report's JSON, or a bare
/// SweepResult) for --baseline; bad JSON is an InputError naming the file.
llvm::Expected<SweepResult> readResultFile(llvm::StringRef Path);

/// Parse a --max-spread / tolerance value: "1%", "0.5%" or "1" (always
/// percent) to a fraction (0.01); negative or non-numeric is an error.
llvm::Expected<double> parsePercent(llvm::StringRef Text);

/// "12.34%": the fixed format every report uses for a fraction.
std::string percent(double Fraction, unsigned Decimals = 2);

} // namespace sweep
} // namespace keel

#endif
