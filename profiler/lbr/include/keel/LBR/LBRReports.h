//===- keel/LBR/LBRReports.h - layout-profile blocks/timeline -*- C++ -*-===//
//
// The two LBR time analyses as layout-profile runs them: read the samples,
// build the block table (Yamamoto et al.) or the time line (Ono et al.),
// compare with a layout-lbrgen truth file when one is given, write the
// JSON/CSV/SVG/HTML outputs and return the text report.
// docs/lbr-analyses.md.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_LBR_LBRREPORTS_H
#define KEEL_LBR_LBRREPORTS_H

#include "keel/Profile/Formats.h"
#include "keel/Support/Diagnostics.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace keel {

class Binary;

/// Where each report goes: a path, "-" for stdout, "" for nowhere.
struct LBRReportOutputs {
  std::string Json, Csv;
  std::string Svg, Html; ///< timeline only
  /// Whether one of them is stdout (then the text report is not printed).
  bool stdoutTaken() const;
};

struct LBRReportOptions {
  std::string Input;      ///< keel-samples, perf.data or perf script text
  PerfScriptOptions Perf; ///< for perf script text
  std::string Truth;      ///< layout-lbrgen truth file ("" = none)
  LBRReportOutputs Out;
  unsigned Top = 10;      ///< rows in the text report (0: all)
  // blocks
  double CPI = 0;         ///< CPI for samples without counters (0: default)
  bool PerSample = false; ///< every block of every sample
  // timeline
  std::string Method = "sample"; ///< the method of the SVG
  unsigned Windows = 200;        ///< sample windows in SVG/HTML (0: all)
  unsigned Sequence = 0;         ///< call sequences printed
  unsigned Rows = 12;            ///< function rows in SVG/HTML
};

/// What is left for the tool to print.
struct LBRReport {
  std::string Text;        ///< the text report (for stdout)
  uint64_t NumEntries = 0; ///< LBR entries read (the quality summary's total)
};

/// layout-profile blocks: the block table of \p Opts.Input.
llvm::Expected<LBRReport> runBlocksReport(const LBRReportOptions &Opts,
                                          const Binary &Bin,
                                          QualityReport &Quality);
/// layout-profile timeline: the time line of \p Opts.Input.
llvm::Expected<LBRReport> runTimelineReport(const LBRReportOptions &Opts,
                                            const Binary &Bin,
                                            QualityReport &Quality);

} // namespace keel

#endif
