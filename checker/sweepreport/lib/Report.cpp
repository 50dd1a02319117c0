//===- Report.cpp - helpers, --compare, every file ------------------------===//
//
// The number formats, tables' rows and summary lines that every renderer
// shares (ReportHelpers.h), the --compare labels and headline, and
// writeReports, which writes each named file. Every number goes through one
// of a few fixed printf formats, so the same result always renders to the
// same bytes. One file per renderer: ReportText.cpp, ReportJSON.cpp,
// ReportCSV.cpp, ReportSVG.cpp, ReportHTML.cpp.
//
//===----------------------------------------------------------------------===//

#include "keel/SweepReport/Report.h"

#include "ReportHelpers.h"

#include "keel/Support/OutputFile.h"
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

namespace report {

std::string fmt(const char *F, double X) {
  return formatv("{0}", format(F, X)).str();
}

/// Costs span seconds (time) to billions (sim): integers when large,
/// six significant digits otherwise.
std::string costText(double X) {
  return std::fabs(X) >= 1000 ? fmt("%.0f", X) : fmt("%.6g", X);
}

/// "+5.00%", "-0.0123%": percent()'s digits with a sign, at most four
/// decimals so the table's column keeps its width (the summary below the
/// table has the full precision).
std::string signedPercent(double Fraction) {
  if (Fraction == 0)
    return "+0.00%";
  std::string P = percent(std::fabs(Fraction));
  size_t Dot = P.find('.');
  if (Dot != std::string::npos && P.size() - Dot - 2 > 4)
    P = percent(std::fabs(Fraction), 4);
  return (Fraction > 0 ? "+" : "-") + P;
}

double seriesMean(ArrayRef<Measurement> Ms) {
  std::vector<double> C;
  for (const Measurement &M : Ms)
    if (!M.Failed)
      C.push_back(M.Cost);
  return mean(C);
}

double relative(const Measurement &M, double Mean) {
  return Mean > 0 ? M.Cost / Mean - 1 : 0;
}

std::map<int64_t, Row> rowsByOffset(const SweepResult &R) {
  std::map<int64_t, Row> Rows;
  for (const Measurement &M : R.Ms)
    Rows[M.V.Offset].Base = &M;
  if (R.Compare)
    for (const Measurement &M : R.Compare->Ms)
      Rows[M.V.Offset].Cmp = &M;
  return Rows;
}

/// The counters worth a column in the table, in a fixed order: cachegrind's
/// headline events for sim (and the front-end model's), the median's
/// interval for time.
std::vector<std::string> tableCounters(const SweepResult &R) {
  static const char *const Wanted[] = {
      "Ir",      "I1mr",     "ILmr",     "D1mr",     "DLmr",
      "Bcm",     "Bim",
      // keel-sim's front-end model (--cost=skylake|zen4)
      "FeWin",   "FeWinMiss", "Taken",   "BtbMiss",  "CondMiss",
      "IndMiss", "RasMiss",  "Alias4K",  "ItlbMiss", "DtlbMiss",
      "TlbWalk",
      "median_ci_low", "median_ci_high", "cycles", "instructions"};
  std::set<std::string> Have;
  for (const Measurement &M : R.Ms)
    for (const auto &KV : M.Counters)
      Have.insert(KV.first);
  std::vector<std::string> Cols;
  for (const char *W : Wanted)
    if (Have.count(W))
      Cols.push_back(W);
  return Cols;
}

std::string counterHeader(StringRef C) {
  if (C == "median_ci_low")
    return "ci_low";
  if (C == "median_ci_high")
    return "ci_high";
  return C.str();
}

std::string counterText(const Measurement &M, StringRef C) {
  auto It = M.Counters.find(C.str());
  if (It == M.Counters.end())
    return "-";
  return costText(It->second);
}

std::string titleLine(const SweepResult &R) {
  std::string T = formatv("{0} (backend {1}, axis {2}", R.Binary, R.Backend,
                          R.Axis)
                      .str();
  if (!R.GeometryPreset.empty())
    T += ", preset " + R.GeometryPreset;
  if (!R.CacheGeometry.empty())
    T += ", " + R.CacheGeometry;
  return T + ")";
}

std::string periodText(const SeriesSummary &S) {
  if (!S.Period)
    return "no clear period";
  return formatv("period {0} B (explains {1} of the variance, strength {2}): "
                 "{3}",
                 S.Period->Bytes, percent(S.Period->Explained, 0),
                 fmt("%.2f", S.Period->Strength), S.Mechanism)
      .str();
}

/// The gate's outcome in words: FAILED with the first reason, passed, or
/// that no gate was asked for (then the spread is the whole story).
std::string gateText(const GateResult &G) {
  if (G.Failed)
    return "FAILED: " + G.Reasons.front();
  if (!G.GateSet)
    return "no gate set (--max-spread=X% or --baseline=FILE sets one)";
  return "passed";
}
} // namespace report

using namespace report;

namespace {

/// Path components of \p P, last first.
std::vector<StringRef> componentsFromEnd(StringRef P) {
  SmallVector<StringRef, 8> Parts;
  P.split(Parts, '/', -1, /*KeepEmpty=*/false);
  return std::vector<StringRef>(Parts.rbegin(), Parts.rend());
}

std::string lastComponents(ArrayRef<StringRef> FromEnd, size_t N) {
  std::string T;
  for (size_t I = std::min(N, FromEnd.size()); I-- > 0;)
    T += (T.empty() ? "" : "/") + FromEnd[I].str();
  return T;
}

} // namespace

SeriesLabels seriesLabels(const SweepResult &R) {
  SeriesLabels L;
  std::vector<StringRef> B = componentsFromEnd(R.Binary);
  L.Base = B.empty() ? R.Binary : B.front().str();
  if (!R.Compare)
    return L;
  std::vector<StringRef> C = componentsFromEnd(R.Compare->Binary);
  L.Compare = C.empty() ? R.Compare->Binary : C.front().str();
  if (R.Compare->Binary == R.Binary) {
    // One path for both (a --compare-relink writes the compared variants):
    // say how the compared series differs.
    L.Compare += R.Compare->Relink.empty() ? " (compare series)"
                                           : " (relinked by --compare-relink)";
    return L;
  }
  // The shortest path tails that differ: "a/interp" and "b/interp".
  for (size_t N = 1; L.Base == L.Compare && N <= std::max(B.size(), C.size());
       ++N) {
    L.Base = lastComponents(B, N);
    L.Compare = lastComponents(C, N);
  }
  if (L.Base == L.Compare) { // "./x" and "x": same tail, different spelling
    L.Base = R.Binary;
    L.Compare = R.Compare->Binary;
  }
  return L;
}

std::optional<MeanRatio> compareRatio(const SweepResult &R,
                                      const GateResult &G) {
  if (!R.Compare)
    return std::nullopt;
  auto Costs = [](ArrayRef<Measurement> Ms) {
    std::vector<double> C;
    for (const Measurement &M : Ms)
      if (!M.Failed)
        C.push_back(M.Cost);
    return C;
  };
  std::vector<double> A = Costs(R.Ms), B = Costs(R.Compare->Ms);
  if (A.empty() || B.empty())
    return std::nullopt;
  double Resolution = G.Noise.Kind == NoiseFloor::Unknown ? 0 : G.Noise.Spread;
  return meanRatio(A, B, Resolution);
}

std::optional<std::string> compareHeadline(const SweepResult &R,
                                           const GateResult &G) {
  std::optional<MeanRatio> M = compareRatio(R, G);
  if (!M)
    return std::nullopt;
  SeriesLabels L = seriesLabels(R);
  const std::string &Fast = M->BFaster ? L.Compare : L.Base;
  const std::string &Slow = M->BFaster ? L.Base : L.Compare;
  // Four decimals as hyperfine prints them, more when the +- needs them to
  // show a digit of its own.
  int Decimals = 4;
  while (Decimals < 9 && M->Error > 0 &&
         M->Error * std::pow(10.0, Decimals) < 1)
    ++Decimals;
  std::string F = "%." + std::to_string(Decimals) + "f";
  double MFast = G.Compare ? (M->BFaster ? G.Compare->Mean : G.Base.Mean) : 0;
  double MSlow = G.Compare ? (M->BFaster ? G.Base.Mean : G.Compare->Mean) : 0;
  std::string P = M->PValue < 1e-4 ? std::string("< 0.0001")
                                   : "= " + fmt("%.2g", M->PValue);
  return formatv("{0} is {1} ± {2} times faster than {3}: mean cost {4} "
                 "vs {5}; Mann-Whitney p {6}: {7}",
                 Fast, fmt(F.c_str(), M->Ratio), fmt(F.c_str(), M->Error),
                 Slow, costText(MFast), costText(MSlow), P,
                 M->Significant ? "significant"
                                : "not significant (within the ± or "
                                  "p >= 0.05)")
      .str();
}

Error checkReportFiles(const ReportFiles &F) {
  for (StringRef Path : {StringRef(F.JSON), StringRef(F.CSV), StringRef(F.SVG),
                         StringRef(F.HTML)})
    if (Error E = checkOutputPath(Path))
      return E;
  return Error::success();
}

bool textTableToStdout(const ReportFiles &F) {
  return F.JSON != "-" && F.CSV != "-";
}

Error writeReports(const SweepResult &R, const GateResult &G,
                   const ReportFiles &F) {
  using Writer = void (*)(raw_ostream &, const SweepResult &, const GateResult &);
  auto Write = [&](StringRef Path, Writer W) -> Error {
    return writeOutputIfNamed(Path, [&](raw_ostream &OS) { W(OS, R, G); });
  };
  auto CSV = [](raw_ostream &OS, const SweepResult &R, const GateResult &) {
    writeCSVReport(OS, R);
  };
  // A bad path among several outputs must not leave the others written.
  if (Error E = checkReportFiles(F))
    return E;
  if (Error E = Write(F.JSON, writeJSONReport))
    return E;
  if (Error E = Write(F.CSV, CSV))
    return E;
  if (Error E = Write(F.SVG, writeSVGPlot))
    return E;
  return Write(F.HTML, writeHTMLReport);
}

Expected<GateResult> gateAndReport(const SweepResult &R, const GateOptions &GO,
                                   const SweepResult *Baseline,
                                   const ReportFiles &F, raw_ostream *Table) {
  Expected<GateResult> G = evaluateGate(R, GO, Baseline);
  if (!G)
    return G.takeError();
  if (Error E = writeReports(R, *G, F))
    return std::move(E);
  if (Table && textTableToStdout(F))
    writeTextReport(*Table, R, *G);
  return G;
}

} // namespace sweep
} // namespace keel
