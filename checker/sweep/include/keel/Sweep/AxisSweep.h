//===- keel/Sweep/AxisSweep.h - run a one-axis sweep and report it -*- C++ -*-===//
//
// `layout-sweep --axis=... ./bin` (or --relink, --bolt-pad,
// --false-sharing): one axis, in one or several I1 geometries. The phases
// of runAxisSweep, in order:
//   1. --baseline is read (a bad file must not cost a sweep), and what
//      cannot be combined is refused (--max-mispredict-rise with the time
//      backend; --best-pad-out, --baseline or another backend than sim or
//      cachegrind with several geometries);
//   2. every output and journal must be writable;
//   3. runSweeps (Engine.h), progress on a terminal;
//   4. for each geometry: evaluateGate, its reports (writeReports, the
//      text table), --best-pad-out, its notes and a failed gate;
//   5. the default journals are removed.
// Unlike runAutoSweep it writes as it goes, to the streams it is given: a
// later step's error (--best-pad-out with no variant measured) comes after
// what the earlier steps printed.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_SWEEP_AXISSWEEP_H
#define KEEL_SWEEP_AXISSWEEP_H

#include "keel/Sweep/Engine.h"
#include "keel/SweepReport/Gate.h"
#include "keel/SweepReport/Report.h"
#include "keel/SweepReport/Result.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace keel {
namespace sweep {

/// What both runAxisSweep and runAutoSweep need beyond the engine and gate
/// options.
struct SweepRunOptions {
  /// The reports ("" = not wanted, "-" = stdout).
  ReportFiles Reports;
  /// --baseline: an earlier --json ("" = none).
  std::string Baseline;
  /// The journals were not asked for (JournalOptions::JournalPath is the
  /// default one beside the first output): remove them when the sweep
  /// completes.
  bool RemoveJournals = false;
  /// The progress stream is a terminal: progress on one rewritten line.
  bool Terminal = false;
  /// The name progress lines and messages start with.
  std::string Tool = "layout-sweep";
  /// The command line as given (argv), for the reports' provenance.
  std::vector<std::string> Command;
};

/// The provenance of a sweep of \p O run by \p RO's command
/// (docs/formats/sweep-result.md): tool and version, date
/// (provenanceDate()), argv, the relink commands of \p O.Perturb, the
/// SHA-256 of the binary and of the --compare binary.
llvm::Expected<Provenance> sweepProvenance(const EngineOptions &O,
                                           const SweepRunOptions &RO);

/// What a one-axis sweep needs beyond them: with several geometries each
/// geometry's report path is geometryPath() of Reports.
struct AxisSweepOptions : SweepRunOptions {
  /// --best-pad-out ("" = not wanted).
  std::string BestPadOut;
};

/// Several geometries (\p Several): the report (or, \p AtEnd, the journal)
/// of geometry \p G goes to \p Path with ".i1-SIZE-ASSOC-LINE" before its
/// extension (or at its end); one geometry, "" or "-": \p Path unchanged.
std::string geometryPath(llvm::StringRef Path, const CacheGeometry &G,
                         bool Several, bool AtEnd = false);

/// The swept binary's cheapest offset (ties: the smallest), for
/// --best-pad-out. Failed variants never win; nullptr when none was
/// measured.
const Measurement *bestVariant(const SweepResult &R);

/// Run the sweep \p O asks for (one axis; MeasureOptions::MoreGeometries:
/// several I1 geometries) with the gate \p GO, writing the reports asked
/// for, the text tables to \p Out and progress, the best pad, notes and
/// failed gates to \p Err. Returns the exit status: ExitOK, or
/// ExitCheckFailed when a gate failed.
llvm::Expected<int> runAxisSweep(const EngineOptions &O, const GateOptions &GO,
                                 const AxisSweepOptions &AO,
                                 llvm::raw_ostream &Out,
                                 llvm::raw_ostream &Err);

} // namespace sweep
} // namespace keel

#endif
