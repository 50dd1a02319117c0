//===- ReportHTML.cpp - the HTML page -------------------------------------===//
//
// One self-contained page: provenance, headline, verdict, the SVG plot,
// the summary and variant tables; writeHTMLHead and writeHTMLSection also
// build the automatic sweep's page of several sweeps.
//
//===----------------------------------------------------------------------===//

#include "keel/SweepReport/Report.h"

#include "ReportHelpers.h"

#include "keel/Support/Process.h"
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

void writeHTMLProvenance(raw_ostream &OS, const Provenance &P,
                         StringRef Backend) {
  OS << "<details class=\"provenance\" open>\n<summary>provenance</summary>\n";
  if (P.empty()) {
    OS << "<p>not recorded (a result written before layout-sweep recorded "
          "its provenance)</p>\n</details>\n";
    return;
  }
  OS << "<table class=\"provenance\">\n";
  auto Row = [&](StringRef K, StringRef V) {
    OS << "<tr><th>" << K << "</th><td><code>" << escapeMarkup(V)
       << "</code></td></tr>\n";
  };
  Row("command", displayCommand(P.Command));
  if (P.Relink.empty())
    Row("relink", "none (the binary runs as it is)");
  for (const std::string &C : P.Relink)
    Row("relink", C);
  Row("tool", P.Tool + " (Keel) " + P.ToolVersion);
  Row("date", P.Date);
  Row("binary sha256", P.BinarySHA256.empty()
                           ? "none (not a file: the relink command wrote "
                             "every variant)"
                           : P.BinarySHA256);
  if (!P.CompareSHA256.empty())
    Row("compare sha256", P.CompareSHA256);
  Row("backend", Backend);
  OS << "</table>\n</details>\n";
}

namespace {

void htmlSummaryTable(raw_ostream &OS, const GateResult &G) {
  std::vector<const SeriesSummary *> S = {&G.Base};
  if (G.Compare)
    S.push_back(&*G.Compare);
  OS << "<table class=\"summary\">\n<tr><th></th>";
  for (const SeriesSummary *X : S)
    OS << "<th>" << escapeMarkup(X->Name) << "</th>";
  OS << "</tr>\n";
  auto RowOf = [&](StringRef Label, auto Get) {
    OS << "<tr><th>" << Label << "</th>";
    for (const SeriesSummary *X : S)
      OS << "<td>" << escapeMarkup(Get(*X)) << "</td>";
    OS << "</tr>\n";
  };
  RowOf("measured / failed", [](const SeriesSummary &X) {
    return formatv("{0} / {1}", X.Measured, X.Failed).str();
  });
  RowOf("mean cost", [](const SeriesSummary &X) { return costText(X.Mean); });
  RowOf("spread (max/min - 1)",
        [](const SeriesSummary &X) { return percent(X.Spread); });
  RowOf("largest deviation from the mean",
        [](const SeriesSummary &X) { return percent(X.LargestDeviation); });
  RowOf("CV", [](const SeriesSummary &X) { return percent(X.CV); });
  RowOf("best / worst offset", [](const SeriesSummary &X) {
    return formatv("{0} / {1}", X.BestOffset, X.WorstOffset).str();
  });
  RowOf("period", [](const SeriesSummary &X) { return periodText(X); });
  RowOf("event periods", [](const SeriesSummary &X) {
    std::string T;
    for (const auto &[Name, P] : X.CounterPeriods)
      T += formatv("{0}{1} {2} B", T.empty() ? "" : ", ", Name, P.Bytes).str();
    return T.empty() ? std::string("-") : T;
  });
  OS << "</table>\n";
}

void htmlVariantTable(raw_ostream &OS, const SweepResult &R) {
  std::vector<std::string> Cols = tableCounters(R);
  double BaseMean = seriesMean(R.Ms);
  double CmpMean = R.Compare ? seriesMean(R.Compare->Ms) : 0;
  OS << "<table class=\"variants\">\n<tr><th>offset</th><th>cost</th><th>vs "
        "mean</th>";
  for (const std::string &C : Cols)
    OS << "<th>" << escapeMarkup(counterHeader(C)) << "</th>";
  if (R.Compare)
    OS << "<th>compare cost</th><th>vs mean</th>";
  OS << "</tr>\n";
  auto Cells = [](const Measurement *M, double Mean) -> std::string {
    if (!M)
      return "<td>-</td><td>-</td>";
    if (M->Failed)
      return "<td class=\"failed\" colspan=\"2\">failed: " +
             escapeMarkup(M->FailReason) + "</td>";
    return "<td>" + costText(M->Cost) + "</td><td>" +
           signedPercent(relative(*M, Mean)) + "</td>";
  };
  for (const auto &[Off, Row] : rowsByOffset(R)) {
    OS << "<tr><td>" << Off << "</td>" << Cells(Row.Base, BaseMean);
    for (const std::string &C : Cols)
      OS << "<td>"
         << (Row.Base && !Row.Base->Failed ? counterText(*Row.Base, C) : "-")
         << "</td>";
    if (R.Compare)
      OS << Cells(Row.Cmp, CmpMean);
    OS << "</tr>\n";
  }
  OS << "</table>\n";
}

} // namespace

void writeHTMLHead(raw_ostream &OS, StringRef Title) {
  OS << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
     << "<title>" << escapeMarkup(Title) << "</title>\n"
     << "<style>\n"
        "body { font-family: 'DejaVu Sans', Arial, sans-serif; margin: 24px; "
        "color: #222; }\n"
        "table { border-collapse: collapse; margin: 12px 0; }\n"
        "th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: right; "
        "}\n"
        "table.summary th { text-align: left; }\n"
        "table.axes td, table.axes th { text-align: left; }\n"
        ".failed { color: #b03a2e; }\n"
        ".headline { font-size: 26px; font-weight: bold; margin: 8px 0; }\n"
        ".headline .cmp { font-size: 16px; font-weight: normal; }\n"
        ".verdict { font-size: 18px; font-weight: bold; }\n"
        ".verdict.no-effect { color: #2e7d32; } .verdict.effect { color: "
        "#b03a2e; } .verdict.negligible, .verdict.none { color: #555; }\n"
        ".pass { color: #2e7d32; } .fail { color: #b03a2e; } "
        ".none { color: #555; }\n"
        "svg { max-width: 100%; height: auto; }\n"
        "details.provenance { margin: 8px 0; }\n"
        "table.provenance th, table.provenance td { text-align: left; }\n"
        "table.provenance code { white-space: pre-wrap; "
        "word-break: break-all; }\n"
        ".compare-headline { font-size: 18px; margin: 6px 0; }\n"
        "</style>\n</head>\n<body>\n";
}

void writeHTMLSection(raw_ostream &OS, const SweepResult &R,
                      const GateResult &G, StringRef H) {
  SeriesLabels Names = seriesLabels(R);
  OS << "<p>" << escapeMarkup(titleLine(R)) << "</p>\n";
  // The headline is the spread (the number a person came for); the verdict
  // says what it means, the gate whether anything was asked of it.
  if (G.Base.Measured == 1) // one point has a cost, not a spread
    OS << "<p class=\"headline\">cost " << escapeMarkup(costText(G.Base.Mean));
  else
    OS << "<p class=\"headline\">spread "
       << escapeMarkup(percent(G.Base.Spread));
  if (G.Compare)
    OS << " <span class=\"cmp\">(compare " << escapeMarkup(Names.Compare) << ": "
       << escapeMarkup(percent(G.Compare->Spread)) << ")</span>";
  OS << "</p>\n";
  if (std::optional<std::string> CH = compareHeadline(R, G))
    OS << "<p class=\"compare-headline\">" << escapeMarkup(*CH) << "</p>\n";
  OS << "<p class=\"verdict " << verdictStateName(verdictState(G.Kind))
     << "\">" << escapeMarkup(G.Verdict) << "</p>\n";
  if (G.Failed)
    OS << "<p class=\"gate fail\">gate FAILED: "
       << escapeMarkup(G.Reasons.front()) << "</p>\n";
  else if (!G.GateSet)
    OS << "<p class=\"gate none\">no gate set (--max-spread=X% or "
          "--baseline=FILE sets one)</p>\n";
  else
    OS << "<p class=\"gate pass\">gate passed</p>\n";
  for (const std::string &I : G.Info)
    OS << "<p class=\"info\">info: " << escapeMarkup(I) << "</p>\n";
  for (const std::string &N : G.Notes)
    OS << "<p class=\"note\">note: " << escapeMarkup(N) << "</p>\n";
  writeSVGPlot(OS, R, G);
  OS << "<" << H << ">Summary</" << H << ">\n";
  htmlSummaryTable(OS, G);
  if (G.Noise.Kind == NoiseFloor::Measured)
    OS << "<p>noise floor " << percent(G.Noise.Spread) << " from "
       << G.Noise.Copies << " A/A copies (their spread "
       << percent(G.Noise.AASpread) << ")</p>\n";
  OS << "<" << H << ">Variants</" << H << ">\n";
  htmlVariantTable(OS, R);
}

void writeHTMLReport(raw_ostream &OS, const SweepResult &R,
                     const GateResult &G) {
  writeHTMLHead(OS, "layout sweep: " + R.Binary);
  SeriesLabels Names = seriesLabels(R);
  OS << "<h1>layout sweep: " << escapeMarkup(Names.Base) << "</h1>\n";
  writeHTMLProvenance(OS, R.Prov, R.Backend);
  writeHTMLSection(OS, R, G, "h2");
  OS << "</body>\n</html>\n";
}

} // namespace sweep
} // namespace keel
