//===- keel/Sweep/AutoSweep.h - run the automatic sweep ----------*- C++ -*-===//
//
// `layout-sweep ./bin` with no --axis, --relink, --bolt-pad or
// --false-sharing: every axis planAutoAxes (Auto.h) can move, one after the
// other, each through runSweep and evaluateGate, then one combined report.
// The phases of runAutoSweep, in order:
//   1. every requested output must be writable;
//   2. --baseline is read (a bad baseline must not cost a sweep);
//   3. the binary (and the --compare binary) must be sweepable at all;
//   4. the axes are planned (a --compare binary's axis is swept only when it
//      moves the same way); the heap axis only when one run through the heap
//      shim counts allocations;
//   5. one line announces what is swept; one variant build is timed when
//      code or data are swept, for the estimate;
//   6. each axis is swept and gated (progress on the Progress stream);
//   7. the reports are written, and the default journals removed.
// What is left to print (the text table, the notes, the failed gate) and
// the exit status come back in AutoSweepResult.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_SWEEP_AUTOSWEEP_H
#define KEEL_SWEEP_AUTOSWEEP_H

#include "keel/Sweep/AxisSweep.h"
#include "keel/Sweep/Engine.h"
#include "keel/SweepReport/AutoReport.h"
#include "keel/SweepReport/Gate.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace keel {
namespace sweep {

/// What the automatic sweep needs beyond the engine and gate options. In
/// SweepRunOptions: Reports are the combined reports; Baseline is an
/// earlier automatic or one-axis --json; without Terminal, one progress
/// line per finished axis.
struct AutoSweepOptions : SweepRunOptions {
  /// --keep-dir: each axis builds and runs in <KeepDir>/<axis> ("" = private
  /// directories, removed).
  std::string KeepDir;
};

/// Run the automatic sweep of \p Base.Binary (its grid already chosen, e.g.
/// autoGrid()) with the gate \p GO. The announcement, progress lines and an
/// axis that could not be swept go to \p Progress as they happen. An error
/// comes before any report is written (an output that cannot be written, a
/// bad baseline, a binary that cannot be swept, the first axis failing:
/// InputError, or UnavailableError as runSweep returns it) or from writing
/// one.
llvm::Expected<AutoSweepResult> runAutoSweep(const EngineOptions &Base,
                                             const GateOptions &GO,
                                             const AutoSweepOptions &AO,
                                             llvm::raw_ostream &Progress);

/// `layout-sweep --axis=code|data ./bin` with no --relink, --bolt-pad or
/// --compare-relink: relink the variants from the binary's link record
/// (and the --compare binary's from its own), as the automatic sweep does,
/// so every per-axis option (--best-pad-out, several --I1, --grid) works
/// with a layout-link'ed binary. False, \p O unchanged, for another axis,
/// a given command, or no record (runSweep then says what the axis needs);
/// an InputError naming the record when it cannot relink the binary (stale,
/// its directory gone).
llvm::Expected<bool> useLinkRecord(EngineOptions &O);

/// layout-sweep --dry-run with no axis options: the axes runAutoSweep would
/// sweep, each with its variants' relink commands and runs
/// (writeAxisDryRun, DryRun.h), and the axes it would not sweep with why;
/// nothing is built or run. Errors as runAutoSweep's before it sweeps.
llvm::Error writeAutoDryRun(llvm::raw_ostream &OS, const EngineOptions &Base,
                            const AutoSweepOptions &AO);

} // namespace sweep
} // namespace keel

#endif
