//===- keel/FalseShare/Findings.h - what a keelfs report says ---*- C++ -*-===//
//
// The work of `layout-falseshare report`, phase by phase: read the report
// libkeelfs.so (or `record`) wrote and open the binary that names its
// addresses (readReportInput); classify every cache line, name the global
// and the field at each offset (symbol table + DWARF), propose a fix per
// falsely shared pair, predict latent false sharing and collect plan
// `false-sharing:` entries (findSharing); write the text or JSON report
// (writeReport) and the plan (writePlanFile).
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_FALSESHARE_FINDINGS_H
#define KEEL_FALSESHARE_FINDINGS_H

#include "keel/FalseShare/Report.h"
#include "keel/Plan/Plan.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace keel {
class Binary;
struct SymbolInfo;
} // namespace keel

namespace keel::fs {

/// What `layout-falseshare report` is asked to do.
struct ReportOptions {
  std::string Input;      ///< the keelfs report
  std::string BinaryPath; ///< empty: the report's `exe` line
  bool JSON = false;      ///< JSON instead of text
  std::string Output = "-";
  std::string PlanOut;    ///< empty: no plan
  uint64_t MinAccesses = 100;
  bool NoLatent = false;
};

/// The report and, when it can be opened, the binary that names its
/// addresses.
struct ReportInput {
  std::string Path; ///< the report's file name, as given
  RawReport R;
  std::unique_ptr<Binary> Bin;
  std::string BinPath; ///< --binary, else the report's `exe` line
  /// The report's `exe` does not exist (and no --binary was given): the
  /// report names addresses instead of globals.
  bool BinaryMissing = false;

  ReportInput();
  ReportInput(ReportInput &&);
  ReportInput &operator=(ReportInput &&);
  ~ReportInput();
};

/// Reads and parses the report; opens the binary named by BinaryPath (an
/// error if it cannot be opened) or by the report (BinaryMissing when it
/// does not exist: the report is still useful with addresses).
llvm::Expected<ReportInput> readReportInput(const ReportOptions &O);

struct ThreadView {
  uint32_t Tid;
  uint64_t Reads, Writes;
  std::string ReadBytes, WriteBytes;
  std::vector<std::string> Written; ///< names of written data
  std::vector<SiteCount> Sites;
};

struct LineView {
  uint64_t Addr, LinkAddr;
  Sharing Kind;
  std::vector<std::string> Objects;
  std::vector<ThreadView> Threads;
  std::vector<std::string> Fixes;
};

struct LatentView {
  std::string A, B;
  uint32_t TidA, TidB;
  uint64_t Distance; ///< bytes from the end of A to the start of B
  std::string Fix;
};

/// What the report says: the shared lines, the latent pairs and the plan.
struct Findings {
  std::vector<LineView> Views;
  std::vector<LatentView> Latent;
  unsigned Counts[4] = {0, 0, 0, 0}; ///< shared lines by Sharing kind
  Plan P;
  std::set<std::string> Planned;

  /// A plan false-sharing: entry for global S (once per name: the first
  /// reason stays).
  void plan(const SymbolInfo *S, const std::string &Reason,
            unsigned LineSize);
};

/// Classifies every line (MinAccesses), then predicts latent pairs unless
/// NoLatent. Plan entries come in that order.
Findings findSharing(const ReportInput &In, const ReportOptions &O);

/// The text report (a header, each shared line with its threads, sites and
/// fixes, the latent pairs, a summary), or with \p JSON the same as JSON.
void writeReport(llvm::raw_ostream &OS, const ReportInput &In,
                 const Findings &F, bool JSON);

/// The plan's false-sharing: entries, with the binary's path and build id,
/// written to \p Path.
llvm::Error writePlanFile(llvm::StringRef Path, const ReportInput &In,
                          Findings &F);

} // namespace keel::fs

#endif
