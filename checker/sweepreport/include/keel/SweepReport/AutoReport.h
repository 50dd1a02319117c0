//===- keel/SweepReport/AutoReport.h - the automatic sweep's reports -*- C++ -*-===//
//
// What layout-sweep's automatic sweep (keel/Sweep/Auto.h, AutoSweep.h) and
// layout-sweep-report share: each axis as planned (AutoAxis) and each swept
// axis' outcome, the combined reports (text, JSON, CSV, SVG, HTML), reading
// a saved one back, and each axis' gate against its baseline.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_SWEEPREPORT_AUTOREPORT_H
#define KEEL_SWEEPREPORT_AUTOREPORT_H

#include "keel/SweepReport/Gate.h"
#include "keel/SweepReport/Kinds.h"
#include "keel/SweepReport/Report.h"
#include "keel/SweepReport/Result.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace keel {
namespace sweep {

/// One axis of the automatic sweep: how it is moved, or why it is not.
struct AutoAxis {
  AxisKind Axis = AxisKind::Code; ///< stack, env, heap, code or data
  bool Swept = false;
  std::string How;    ///< swept: the mechanism, one phrase
  std::string Why;    ///< not swept: the reason
  std::string Enable; ///< not swept: the flag or build change that enables it
  /// code/data from a link record: the command with {pad}/{padobj}/{out},
  /// the command for offset 0, and the value {pad} adds the offset to
  /// (RecordRelink).
  std::vector<std::string> RelinkArgv, CompareRelinkArgv;
  std::vector<std::string> RelinkZeroArgv, CompareRelinkZeroArgv;
  int64_t RelinkPadBase = 0, CompareRelinkPadBase = 0;
  std::string RelinkDir, CompareRelinkDir;
  std::string BoltFunction; ///< code through llvm-bolt
};

/// One swept axis' outcome.
struct AutoOutcome {
  const AutoAxis *A = nullptr;
  SweepResult R;
  GateResult G;
};

/// The combined text report: each swept axis' table (writeTextReport), then
/// a summary with one line per axis (swept: spread and verdict; not swept:
/// why and how to enable it).
void writeAutoTextReport(llvm::raw_ostream &OS, llvm::StringRef Binary,
                         llvm::ArrayRef<AutoAxis> Axes,
                         llvm::ArrayRef<AutoOutcome> Outcomes);

/// The combined JSON: {"version", "mode": "auto", "binary", "axis_order":
/// [every axis as planned], "axes": {axis: the one-axis --json report},
/// "not_swept": [{"axis","reason","enable"}], "gate": {"failed",
/// "failed_axes"}, "provenance": autoProvenance()}.
llvm::json::Value autoReportJSON(llvm::StringRef Binary,
                                 llvm::ArrayRef<AutoAxis> Axes,
                                 llvm::ArrayRef<AutoOutcome> Outcomes);

/// The provenance of the whole automatic sweep: the first axis' record with
/// every axis' relink commands, each named by its axis ("code: base: ...");
/// std::nullopt when nothing was swept or the results carry none.
std::optional<Provenance> autoProvenance(llvm::ArrayRef<AutoOutcome> Outcomes);

/// An automatic sweep's --json read back (layout-sweep-report): every axis
/// in the order it was planned (swept ones with their "how", the others
/// with why not and what enables them) and each swept axis' result, in the
/// same order as the swept axes.
struct SavedAutoSweep {
  std::string Binary;
  std::vector<AutoAxis> Axes;
  std::vector<SweepResult> Results;
};

/// \p Path's automatic sweep; std::nullopt when it is not one (a one-axis
/// result: readResultFile reads it). InputError for bad JSON, a newer
/// version, an axis that is not a sweep result, or an axis name that is no
/// --axis.
llvm::Expected<std::optional<SavedAutoSweep>> readAutoReport(llvm::StringRef Path);

/// --baseline of a one-axis sweep (or its saved result) on the axis named
/// \p Axis (a saved result's name, looked up here): a one-axis --json as it
/// is (evaluateGate refuses another axis), or that axis of an automatic
/// sweep's --json (InputError when it did not sweep it).
llvm::Expected<SweepResult> readBaselineAxis(llvm::StringRef Path,
                                             llvm::StringRef Axis);

/// --csv: one table of every swept axis (the one-axis CSV's columns; its
/// axis column tells them apart).
void writeAutoCSVReport(llvm::raw_ostream &OS,
                        llvm::ArrayRef<AutoOutcome> Outcomes);

/// --svg: every swept axis' plot, one below the other, in one SVG.
void writeAutoSVGPlot(llvm::raw_ostream &OS,
                      llvm::ArrayRef<AutoOutcome> Outcomes);

/// --html: one page: a table of every axis (how it moved, or why it was not
/// swept and what enables it), then each swept axis' section (the one-axis
/// report's headline, verdict, plot and tables).
void writeAutoHTMLReport(llvm::raw_ostream &OS, llvm::StringRef Binary,
                         llvm::ArrayRef<AutoAxis> Axes,
                         llvm::ArrayRef<AutoOutcome> Outcomes);

/// --baseline for the automatic sweep: an earlier automatic --json (each
/// axis' result by its kind) or a one-axis --json (that axis only);
/// InputError for an axis name that is no --axis.
llvm::Expected<std::map<AxisKind, SweepResult>>
readBaselineAxes(llvm::StringRef Path);

/// The automatic sweep's outcome, and what is left to print.
struct AutoSweepResult {
  /// Every planned axis (swept or not) and each swept axis' result; the
  /// outcomes point into Axes (a moved result keeps them valid; a copy
  /// would not, so there is none).
  std::vector<AutoAxis> Axes;
  std::vector<AutoOutcome> Outcomes;
  /// The text report for stdout; empty when --json or --csv took stdout.
  std::string Text;
  /// "<axis>: <note>" of every swept axis, for the tool to print as notes.
  std::vector<std::string> Notes;
  /// "<axis>: <reason>" of the first axis whose gate failed.
  std::optional<std::string> GateFailure;
  /// ExitOK, or ExitCheckFailed when a gate failed.
  int ExitStatus = 0;

  AutoSweepResult() = default;
  AutoSweepResult(AutoSweepResult &&) = default;
  AutoSweepResult &operator=(AutoSweepResult &&) = default;
  AutoSweepResult(const AutoSweepResult &) = delete;
  AutoSweepResult &operator=(const AutoSweepResult &) = delete;
};

/// --baseline's result of each axis (readBaselineAxes; none when \p
/// Baseline is ""), checked for mispredict counters when \p GO asks for
/// --max-mispredict-rise.
llvm::Expected<std::map<AxisKind, SweepResult>>
readAutoBaselines(llvm::StringRef Baseline, const GateOptions &GO);

/// Axis \p Axis' gate as the automatic sweep applies it (and
/// layout-sweep-report again): evaluateGate against that axis' baseline,
/// with an info line when --baseline \p BaselinePath has no such axis.
llvm::Expected<GateResult>
gateAutoAxis(const SweepResult &R, AxisKind Axis, const GateOptions &GO,
             const std::map<AxisKind, SweepResult> &Baselines,
             llvm::StringRef BaselinePath);

/// The combined reports \p F asks for, of \p R's axes and outcomes; the
/// text table into \p R.Text unless a machine-readable report takes stdout.
llvm::Error writeAutoReports(llvm::StringRef Binary, const ReportFiles &F,
                             AutoSweepResult &R);

/// \p R's notes ("<axis>: <note>"), first failed gate and exit status.
void collectAutoOutcomes(AutoSweepResult &R);

} // namespace sweep
} // namespace keel

#endif
