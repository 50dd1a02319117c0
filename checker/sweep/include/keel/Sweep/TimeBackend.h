//===- keel/Sweep/TimeBackend.h - wall/CPU time with a noise floor -*- C++ -*-===//
//
// The `time` backend: run every variant's command Rounds times in
// interleaved rounds whose order is shuffled with a fixed seed, on one pinned
// CPU, after warm-up rounds; each variant's cost is the median of its
// samples, with a bootstrap confidence interval. Byte-identical copies of
// the baseline binary (at paths as long as the variants'; with ExecFile all
// run as /dev/fd/100 under one argv[0], since a program may hash its own
// path) run in the same rounds: their samples are the A/A noise floor that
// tells a layout effect from noise (Gate.h).
//
// Interleaving and shuffling spread slow drifts (other load, thermal state)
// over all variants instead of biasing whichever ran last (google/benchmark
// --benchmark_enable_random_interleaving does the same for repetitions).
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_SWEEP_TIMEBACKEND_H
#define KEEL_SWEEP_TIMEBACKEND_H

#include "keel/SweepReport/Result.h"
#include "keel/SweepReport/Stats.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace keel {
namespace sweep {

/// One command to time: argv (argv[0] is the variant's binary), an optional
/// full environment, and the variant it measures.
struct TimedCommand {
  Variant V;
  std::vector<std::string> Argv;
  std::optional<std::vector<std::string>> Env; ///< nullopt: inherit
  /// Non-empty: the binary to run, put on descriptor VariantExecFd and
  /// executed as "/dev/fd/100" (Perturb.h); Argv[0] is then only the name
  /// the program sees (the same for every variant and copy).
  std::string ExecFile;
};

struct TimeOptions {
  unsigned Rounds = 11;  ///< measured rounds (samples per variant)
  unsigned Warmup = 1;   ///< unmeasured rounds first (page cache, CPU clock)
  unsigned AACopies = 3; ///< byte-identical copies of the baseline binary
  /// CPU to pin to; -1 picks the highest CPU this process may use (CPU 0
  /// usually takes most interrupts); -2 disables pinning.
  int Cpu = -1;
  enum MetricKind { CPUTime, WallTime } Metric = CPUTime;
  uint64_t Seed = DefaultSeed;
  unsigned Resamples = 2000; ///< bootstrap resamples for the median's CI
  double Confidence = 0.95;
  unsigned TimeoutSeconds = 0; ///< per run; 0 = none
  /// Directory for the copies and the programs' stdout/stderr ("" = a
  /// private temporary directory, removed afterwards).
  std::string WorkDir;
  /// Called after every run: (runs done, runs in total).
  std::function<void(size_t, size_t)> Progress;
};

struct TimeResult {
  std::vector<Measurement> Ms;         ///< one per variant, input order
  std::vector<Measurement> NoiseFloor; ///< the A/A copies (Axis "aa")
  int PinnedCpu = -1;                  ///< -1: not pinned
  std::vector<std::string> Notes;      ///< e.g. why pinning failed
};

/// Times commands. Measurement::Cost is the median in seconds of the chosen
/// metric, Samples holds every round's value (round order), and Counters
/// holds "median_ci_low"/"median_ci_high" (seconds) and the medians of both
/// metrics ("cpu_s", "wall_s"). A run that exits non-zero or is killed marks
/// its variant Failed (never a measurement) and the variant is not run again.
class TimeBackend {
public:
  explicit TimeBackend(TimeOptions O) : Opts(std::move(O)) {}

  /// Measure \p Variants, and Opts.AACopies copies of \p Baseline's binary
  /// (its ExecFile, which each copy replaces; without one argv[0], and every
  /// argv word equal to it is replaced by the copy's path).
  /// Errors: nothing to run, a command that cannot be started, copies that
  /// cannot be made.
  llvm::Expected<TimeResult> measure(llvm::ArrayRef<TimedCommand> Variants,
                                     const TimedCommand &Baseline);

private:
  TimeOptions Opts;
};

/// The order of one round: a permutation of 0..N-1 from (Seed, Round)
/// (Fisher-Yates with Rng), exposed for tests.
std::vector<size_t> roundOrder(size_t N, uint64_t Seed, unsigned Round);

/// A path for A/A copy \p Index of \p Binary whose length is exactly \p Len,
/// inside \p Dir ("<Dir>/aa<Index>" padded with '_'); std::nullopt if \p Dir
/// is too long for that.
std::optional<std::string> sameLengthCopyPath(llvm::StringRef Dir,
                                              unsigned Index, size_t Len);

} // namespace sweep
} // namespace keel

#endif
