//===- keel/SweepReport/Report.h - tables, JSON, CSV, SVG and HTML -----*- C++ -*-===//
//
// Reporters only read a SweepResult and the GateResult computed from it
// (google/benchmark keeps reporters apart from measurement the same way).
// Every format is deterministic: fixed number formats, variants in Variant
// order, counters in name order. docs/sweep-statistics.md describes the
// formats; the JSON carries "version": ReportVersion (Result.h).
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_SWEEPREPORT_REPORT_H
#define KEEL_SWEEPREPORT_REPORT_H

#include "keel/SweepReport/Gate.h"
#include "keel/SweepReport/Result.h"
#include "keel/SweepReport/Stats.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace keel {
namespace sweep {

/// The text table: one row per offset (with the --compare series beside
/// it), then the summary, the verdict and the gate outcome.
void writeTextReport(llvm::raw_ostream &OS, const SweepResult &R,
                     const GateResult &G);

/// The JSON report: the SweepResult's own JSON (so --baseline can read it
/// back) plus "version", "summary" (per series), "noise", "verdict", "gate".
llvm::json::Value reportJSON(const SweepResult &R, const GateResult &G);
void writeJSONReport(llvm::raw_ostream &OS, const SweepResult &R,
                     const GateResult &G);

/// CSV: one row per measurement of every series (A/A copies included).
void writeCSVReport(llvm::raw_ostream &OS, const SweepResult &R);

/// A standalone SVG plot: cost relative to the series mean (%) against the
/// offset, one line per series, failed variants marked, title with binary,
/// backend and geometry, spread and period in the legend.
void writeSVGPlot(llvm::raw_ostream &OS, const SweepResult &R,
                  const GateResult &G);

/// One self-contained HTML page: the verdict, the SVG, the summary and the
/// per-variant table.
void writeHTMLReport(llvm::raw_ostream &OS, const SweepResult &R,
                     const GateResult &G);

/// The pieces of writeHTMLReport, for a page with several sweeps (the
/// automatic sweep's): <!DOCTYPE> through <body> with the report's styles;
/// one sweep's headline, verdict, gate, plot, summary and variant tables,
/// with \p Heading ("h2", "h3") for its subsection titles.
void writeHTMLHead(llvm::raw_ostream &OS, llvm::StringRef Title);
void writeHTMLSection(llvm::raw_ostream &OS, const SweepResult &R,
                      const GateResult &G, llvm::StringRef Heading);

/// --compare: the mean costs of the two series compared as hyperfine
/// compares two commands (meanRatio, with the backend's resolution or noise
/// floor as the least +-); std::nullopt without a compare series or with a
/// series that measured nothing.
std::optional<MeanRatio> compareRatio(const SweepResult &R, const GateResult &G);
/// Its headline: "interp.planned is 1.0018 ± 0.0001 times faster than
/// interp.default: mean cost ... vs ...; Mann-Whitney p ...: significant"
/// (docs/sweep-statistics.md, "Comparing two series").
std::optional<std::string> compareHeadline(const SweepResult &R,
                                           const GateResult &G);

/// The provenance block of an HTML report (command, relink commands, tool
/// and version, date, binary SHA-256s, backend); says so when \p P is empty.
void writeHTMLProvenance(llvm::raw_ostream &OS, const Provenance &P,
                         llvm::StringRef Backend);

/// Output files requested on the command line ("" = not wanted, "-" =
/// stdout).
struct ReportFiles {
  std::string JSON, CSV, SVG, HTML;
};

/// Check, before any work, that every requested file can be written.
llvm::Error checkReportFiles(const ReportFiles &F);

/// The text table goes to stdout unless --json or --csv took it ("-").
bool textTableToStdout(const ReportFiles &F);

/// Render and write every requested file atomically (keel::writeOutput):
/// a failure leaves no half-written file.
llvm::Error writeReports(const SweepResult &R, const GateResult &G,
                         const ReportFiles &F);

/// How reports name the two series: each by its own binary, as short as
/// keeps them apart ("interp.default" / "interp.planned"; "a/interp" /
/// "b/interp"; one path for both: "interp (relinked by --compare-relink)").
struct SeriesLabels {
  std::string Base, Compare;
};
SeriesLabels seriesLabels(const SweepResult &R);

/// One result's gate and reports, as runAxisSweep writes each geometry's
/// and layout-sweep-report a saved result's: evaluateGate against
/// \p Baseline (nullptr: none), the files \p F asks for (writeReports), then
/// the text table on \p Table (nullptr: none) unless --json or --csv write
/// to stdout.
llvm::Expected<GateResult> gateAndReport(const SweepResult &R,
                                         const GateOptions &GO,
                                         const SweepResult *Baseline,
                                         const ReportFiles &F,
                                         llvm::raw_ostream *Table);

} // namespace sweep
} // namespace keel

#endif
