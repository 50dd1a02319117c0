//===- keel/SweepReport/Gate.h - summaries, noise floor and the verdict -*- C++ -*-===//
//
// From a SweepResult to the numbers every report shows (spread, largest
// deviation, CV, period and mechanism), the noise floor the spread must
// exceed to be real and the threshold (--min-effect) it must exceed to count
// as a layout effect rather than a negligible one, and the gate (--max-spread,
// --baseline) that turns them into exit status 0 or 1 with a one-line
// reason. docs/sweep-statistics.md states every rule.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_SWEEPREPORT_GATE_H
#define KEEL_SWEEPREPORT_GATE_H

#include "keel/SweepReport/Result.h"
#include "keel/SweepReport/Stats.h"

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
  /// Named only when the spread is above the floor (resolution) and above
  /// --min-effect, and the period explains at least MinExplainedVariance of
  /// the variance.
  std::optional<PeriodEstimate> Period;
  std::string Mechanism;                ///< "" without a period
  /// The variant farthest from the median and the spread of the others
  /// (at least 4 measured variants; else OutlierOffset is unset).
  std::optional<int64_t> OutlierOffset;
  double SpreadWithoutOutlier = 0;
  /// Periods of the individual events that vary (I1mr, D1mr, Bcm, Bim, ...,
  /// cycles), by name: the cost mixes mechanisms, each event isolates one
  /// (e.g. I1 misses repeat every way size, indirect mispredicts every
  /// predictor span). Only periods at least MinPeriodStrength strong whose
  /// pattern moves the count by MinPeriodAmplitude or more, and none when
  /// the spread is within the floor or --min-effect.
  std::map<std::string, PeriodEstimate> CounterPeriods;
};

SeriesSummary summarize(llvm::ArrayRef<Measurement> Ms, llvm::StringRef Name,
                        const CacheGeometry &G);

/// How large a spread measurement noise alone produces.
struct NoiseFloor {
  enum KindT { Deterministic, Measured, Unknown } Kind = Unknown;
  /// The spread of NumVariants medians that noise alone exceeds with
  /// probability 1 - Quantile; for a deterministic backend its resolution
  /// (SimResolution).
  double Spread = 0;
  double AASpread = 0; ///< observed spread of the A/A copies' medians
  size_t Copies = 0, Rounds = 0;
};

/// The deterministic (sim) backend's resolution, a relative spread.
/// cachegrind's counts are exact, but a program's start-up (ld.so, libc
/// initialisation) takes slightly different paths when the stack,
/// environment or heap move: a few dozen instructions and a few cache misses,
/// ~1,200-1,700 cost units (docs/sweep-statistics.md). Spreads at or below
/// 0.01% are reported as "no layout effect at this resolution".
inline constexpr double SimResolution = 1e-4;

/// The smallest spread that counts as a layout effect: --min-effect's
/// default. Above the floor (resolution) but at or below it, a spread is
/// "negligible": real, repeatable, and too small to act on. 1% is above
/// every spread the start-up code alone produced in the resolution's
/// measurements and below the swings layout really causes (the bundled
/// interpreter: 22%); docs/sweep-statistics.md argues the number.
inline constexpr double DefaultMinEffect = 0.01;

/// What the verdict says about the swept series.
enum class VerdictKind {
  NoEffect,    ///< deterministic backend, spread <= resolution
  WithinNoise, ///< measured backend, spread <= noise floor
  Negligible,  ///< above the floor, at or below --min-effect
  Periodic,    ///< above --min-effect; a period explains the swings
  Outlier,     ///< above --min-effect because of one variant
  Effect,      ///< above --min-effect, no period, not one variant
  Unknown,     ///< no noise floor known, spread above --min-effect
  Single,      ///< fewer than two variants measured: no spread to judge
};
llvm::StringRef verdictKindName(VerdictKind K);

/// The verdict's state, which reports colour by (JSON "verdict_state"):
/// nothing beyond the floor (green), negligible (grey), a layout effect
/// (red), or no verdict at all (one variant, an unknown floor; grey).
enum class VerdictState { NoEffect, Negligible, Effect, None };
VerdictState verdictState(VerdictKind K);
/// "no-effect", "negligible", "effect", "none".
llvm::StringRef verdictStateName(VerdictState S);

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
  /// --min-effect (fraction): the spread a layout effect must exceed; a
  /// smaller one above the floor is negligible. It changes the verdict and
  /// which periods are named, never the gate.
  double MinEffect = DefaultMinEffect;
  /// Extra slack (fraction) allowed over the baseline beyond noise.
  double BaselineTolerance = 0;
  /// With a baseline: fail when the mean branch mispredicts per variant rise
  /// by more than this fraction (0.02 for --max-mispredict-rise=2%) over the
  /// baseline's, beyond noise. The events are the measuring backend's
  /// (mispredictEvents); both results must count the same ones.
  std::optional<double> MaxMispredictRise;
  /// Significance level of the Mann-Whitney test on per-variant costs.
  double Alpha = 0.01;
  /// Fail when any variant failed (crashed, non-zero exit).
  bool FailOnFailedVariants = true;
  NoiseOptions Noise;
};

struct GateResult {
  bool Failed = false;
  /// One line on the spread against the noise floor (resolution), e.g.
  /// "spread 12.34% exceeds the resolution 0.0100% (deterministic backend):
  /// a layout effect repeating every 2048 B (97% of the variance)" or
  /// "spread 3.10% is within noise (floor 11.20% from 3 A/A copies)".
  std::string Verdict;
  VerdictKind Kind = VerdictKind::Unknown;
  /// NoEffect or WithinNoise.
  bool WithinNoise = false;
  /// The --min-effect the verdict was judged with (fraction).
  double MinEffect = DefaultMinEffect;
  /// A gate was asked for (--max-spread or --baseline); without one only
  /// failed variants fail, and reports say "no gate set".
  bool GateSet = false;
  /// One line per failed check; the first one is the exit message.
  std::vector<std::string> Reasons;
  /// Non-failing remarks (inconclusive gates, the program's own code
  /// executing different instructions in different layouts).
  std::vector<std::string> Notes;
  /// Information that needs no action (library and loader code taking
  /// address-dependent paths, below the tolerance).
  std::vector<std::string> Info;
  SeriesSummary Base;
  std::optional<SeriesSummary> Compare;
  NoiseFloor Noise;
};

/// The branch-mispredict counters of \p R's measurements: the front-end
/// model's CondMiss and IndMiss (sim with --cost=skylake|zen4), else
/// cachegrind's Bcm and Bim (sim), else perf's branch-misses; empty when the
/// first measured variant counts none of them.
std::vector<std::string> mispredictEvents(const SweepResult &R);

/// --max-mispredict-rise needs a baseline that counts mispredicts: an error
/// naming \p Path where \p B counts none (a time result, an older one).
llvm::Error checkMispredictBaseline(const SweepResult &B, llvm::StringRef Path);

/// Summarise \p R, compare its spread with the noise floor, and apply
/// --max-spread, --baseline and --max-mispredict-rise. Errors only for an
/// unusable baseline (different backend or axis, nothing measured, other or
/// missing mispredict counters) or variants without the mispredict counters.
llvm::Expected<GateResult> evaluateGate(const SweepResult &R,
                                        const GateOptions &O,
                                        const SweepResult *Baseline = nullptr);

/// Read a result written by --json (the report's JSON, or a bare
/// SweepResult) for --baseline; bad JSON is an InputError naming the file.
llvm::Expected<SweepResult> readResultFile(llvm::StringRef Path);

/// Parse a --max-spread / tolerance value: "1%", "0.5%" or "1" (always
/// percent) to a fraction (0.01); negative or non-numeric is an error.
llvm::Expected<double> parsePercent(llvm::StringRef Text);

/// A fraction as percent with a fixed number of decimals: "12.34%".
std::string percent(double Fraction, unsigned Decimals);
/// A fraction as percent with enough digits to mean something: two
/// decimals from 1% up, three significant digits below ("0.0123%"), "0.00%"
/// for zero.
std::string percent(double Fraction);
/// Two fractions with the same number of decimals, enough (up to 10) that
/// they print differently when they differ: never "0.00% exceeds 0.00%".
std::pair<std::string, std::string> percentPair(double A, double B);

} // namespace sweep
} // namespace keel

#endif
