//===- ReportHelpers.h - what the report renderers share --------*- C++ -*-===//
//
// The number formats, table rows and summary lines that more than one
// renderer (ReportText.cpp, ReportJSON.cpp, ReportCSV.cpp, ReportSVG.cpp,
// ReportHTML.cpp) uses, defined in Report.cpp. Private to the library: the
// names are in namespace report so they stay apart from the engine's own
// helpers.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_SWEEP_LIB_REPORTHELPERS_H
#define KEEL_SWEEP_LIB_REPORTHELPERS_H

#include "keel/SweepReport/Gate.h"
#include "keel/SweepReport/Result.h"
#include "keel/SweepReport/Stats.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace keel {
namespace sweep {
namespace report {

/// \p X through the printf format \p F.
std::string fmt(const char *F, double X);
/// A cost: an integer when large, six significant digits otherwise.
std::string costText(double X);
/// "+5.00%": a fraction as a signed percent of at most four decimals.
std::string signedPercent(double Fraction);
/// The mean cost of the measured (not failed) variants.
double seriesMean(llvm::ArrayRef<Measurement> Ms);
/// \p M's cost relative to \p Mean (0.05 is 5% above).
double relative(const Measurement &M, double Mean);

/// Base and compare measurements side by side, by offset.
struct Row {
  const Measurement *Base = nullptr, *Cmp = nullptr;
};
std::map<int64_t, Row> rowsByOffset(const SweepResult &R);

/// The counters worth a column in the table, in a fixed order.
std::vector<std::string> tableCounters(const SweepResult &R);
std::string counterHeader(llvm::StringRef C);
std::string counterText(const Measurement &M, llvm::StringRef C);

/// "BINARY (backend B, axis A, ...)".
std::string titleLine(const SweepResult &R);
/// The series' period and its mechanism, or "no clear period".
std::string periodText(const SeriesSummary &S);
/// The gate's outcome in words.
std::string gateText(const GateResult &G);

} // namespace report
} // namespace sweep
} // namespace keel

#endif
