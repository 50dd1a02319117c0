//===- keel/Optimize/Measure.h - the guard's measurements and decision -*- C++ -*-===//
//
// How layout-optimize measures a build (one `layout-sweep` over environment
// or code offsets, summarized as a keel::sweep::BuildSummary) and the guard
// on its own: `layout-optimize --guard-only --default=BIN
// --candidate=NAME=BIN... --workload='ARGS'` measures the default build and
// the candidates exactly as the flow's guard step does and prints the
// decision (keel/Sweep/Guard.h's rule) as JSON, so a benchmark that builds
// its own candidates makes the product's decision by calling the product.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_OPTIMIZE_MEASURE_H
#define KEEL_OPTIMIZE_MEASURE_H

#include "keel/Optimize/Options.h"
#include "keel/Sweep/Guard.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <utility>
#include <vector>

namespace keel {
namespace optimize {

/// layout-sweep's argv for \p N offsets by \p Step, from \p From, of one
/// axis of \p Bin on O.Workload, with O's backend, cost model and jobs; the
/// JSON report goes to \p JSON.
std::vector<std::string> sweepArgv(const OptimizeOptions &O, llvm::StringRef Sweep,
                                   sweep::AxisKind Axis, int64_t Step, unsigned N,
                                   llvm::StringRef JSON, llvm::StringRef Bin,
                                   int64_t From = 0);

/// The guard's sweep of \p Bin: the env axis over O.GuardVariants offsets.
std::vector<std::string> guardSweepArgv(const OptimizeOptions &O,
                                        llvm::StringRef Sweep, llvm::StringRef JSON,
                                        llvm::StringRef Bin);

/// Run \p Argv (its output in LOGDIR/LOGBASE.out and .err) and summarize
/// the JSON it wrote to \p JSON as build \p Name.
llvm::Expected<sweep::BuildSummary>
sweepSummary(llvm::StringRef Name, llvm::ArrayRef<std::string> Argv,
             llvm::StringRef JSON, llvm::StringRef LogBase, llvm::StringRef LogDir);

/// The last lines of a log, for an error message ("" if it cannot be read).
std::string tailOf(llvm::StringRef Path);

/// One build the guard judges: a name and the binary measured.
struct GuardBuild {
  std::string Name;
  std::string Binary;
};

/// The guard alone (--guard-only): \p Default and then each of \p Candidates
/// in order are measured by guardSweepArgv (JSON and logs under O.Dir); the
/// measuring stops at the first candidate that passes, as in the flow.
/// Returns the decision and every summary and command as JSON:
/// {"decision": {...}, "builds": [{"name", "binary", "guard",
/// "guard_command"}...]}.
llvm::Expected<llvm::json::Value> runGuardOnly(const OptimizeOptions &O,
                                               const GuardBuild &Default,
                                               llvm::ArrayRef<GuardBuild> Candidates,
                                               llvm::raw_ostream &Err);

} // namespace optimize
} // namespace keel

#endif
