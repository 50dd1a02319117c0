//===- ReportText.cpp - the text table and summary ------------------------===//
//
// The table layout-sweep prints: one row per offset, then each series'
// summary, the --compare headline, the verdict and the gate.
//
//===----------------------------------------------------------------------===//

#include "keel/SweepReport/Report.h"

#include "ReportHelpers.h"

#include "keel/Support/Text.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

using namespace llvm;

namespace keel {
namespace sweep {

using namespace report;

namespace {

void writeSummaryText(raw_ostream &OS, const SeriesSummary &S) {
  if (S.Measured == 1) { // one point: its cost, no spread to speak of
    OS << formatv("{0}: 1 measured, {1} failed; cost {2} at offset {3}\n",
                  S.Name, S.Failed, costText(S.Mean), S.BestOffset);
    return;
  }
  OS << formatv("{0}: {1} measured, {2} failed; mean {3}, spread {4}, largest "
                "deviation {5}, CV {6}\n",
                S.Name, S.Measured, S.Failed, costText(S.Mean),
                percent(S.Spread), percent(S.LargestDeviation), percent(S.CV));
  if (S.Measured)
    OS << formatv("  best offset {0}, worst offset {1}; {2}\n", S.BestOffset,
                  S.WorstOffset, periodText(S));
  if (!S.CounterPeriods.empty()) {
    OS << "  event periods (strength):";
    ListSeparator Sep(",");
    for (const auto &[Name, P] : S.CounterPeriods)
      OS << Sep
         << formatv(" {0} {1} B ({2})", Name, P.Bytes, fmt("%.2f", P.Strength));
    OS << "\n";
  }
  if (S.InstructionSpread > 0)
    OS << "  executed instructions spread " << percent(S.InstructionSpread)
       << "\n";
}

} // namespace

static void renderTextReport(raw_ostream &OS, const SweepResult &R,
                             const GateResult &G);

// The binary's path and the command come from the user: a control or bidi
// character in them is escaped, as in every message (keel/Support/Text.h).
void writeTextReport(raw_ostream &OS, const SweepResult &R,
                     const GateResult &G) {
  std::string S;
  raw_string_ostream SS(S);
  renderTextReport(SS, R, G);
  OS << printableText(S);
}

static void renderTextReport(raw_ostream &OS, const SweepResult &R,
                             const GateResult &G) {
  OS << "layout-sweep: " << titleLine(R) << "\n\n";
  std::vector<std::string> Cols = tableCounters(R);
  double BaseMean = seriesMean(R.Ms);
  double CmpMean = R.Compare ? seriesMean(R.Compare->Ms) : 0;
  OS << formatv("{0,10} {1,14} {2,9}", "offset", "cost", "vs mean");
  for (const std::string &C : Cols)
    OS << formatv(" {0,12}", counterHeader(C));
  if (R.Compare)
    OS << formatv(" | {0,14} {1,9}", "compare", "vs mean");
  OS << "\n";
  auto Cell = [](const Measurement *M, double Mean) {
    if (!M)
      return formatv("{0,14} {1,9}", "-", "-").str();
    if (M->Failed)
      return formatv("{0,14} {1,9}", "FAILED", "-").str();
    return formatv("{0,14} {1,9}", costText(M->Cost),
                   signedPercent(relative(*M, Mean)))
        .str();
  };
  for (const auto &[Off, Row] : rowsByOffset(R)) {
    OS << formatv("{0,10} ", Off) << Cell(Row.Base, BaseMean);
    for (const std::string &C : Cols)
      OS << formatv(" {0,12}", Row.Base && !Row.Base->Failed
                                   ? counterText(*Row.Base, C)
                                   : std::string("-"));
    if (R.Compare)
      OS << " | " << Cell(Row.Cmp, CmpMean);
    if (Row.Base && Row.Base->Failed)
      OS << "  (" << Row.Base->FailReason << ")";
    OS << "\n";
  }
  OS << "\n";
  writeSummaryText(OS, G.Base);
  if (G.Compare)
    writeSummaryText(OS, *G.Compare);
  if (std::optional<std::string> H = compareHeadline(R, G))
    OS << "compare: " << *H << "\n";
  if (G.Noise.Kind == NoiseFloor::Measured)
    OS << formatv("noise: floor {0} for {1} variants x {2} rounds, A/A spread "
                  "{3} over {4} copies\n",
                  percent(G.Noise.Spread), G.Base.Measured, G.Noise.Rounds,
                  percent(G.Noise.AASpread), G.Noise.Copies);
  OS << (G.Kind == VerdictKind::Single ? "measurement: " : "verdict: ")
     << G.Verdict << "\n";
  for (const std::string &I : G.Info)
    OS << "info: " << I << "\n";
  for (const std::string &N : G.Notes)
    OS << "note: " << N << "\n";
  OS << "gate: " << gateText(G) << "\n";
}

} // namespace sweep
} // namespace keel
