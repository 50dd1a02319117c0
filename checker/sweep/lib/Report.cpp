//===- Report.cpp - tables, JSON, CSV, SVG and HTML -----------------------===//
//
// Every number goes through one of a few fixed printf formats, so the same
// result always renders to the same bytes. The plot follows the spacer
// report's figures (docs/references.md): each variant's cost relative to
// the mean over all variants (%), against the offset that moved the code
// (or data, stack, env, heap).
//
//===----------------------------------------------------------------------===//
#include "keel/Sweep/Report.h"

#include "keel/Support/OutputFile.h"
#include "keel/Support/Text.h"
#include "keel/Sweep/DryRun.h"

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

namespace {

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

/// Base and compare measurements side by side, by offset.
struct Row {
  const Measurement *Base = nullptr, *Cmp = nullptr;
};
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

json::Value summaryJSON(const SeriesSummary &S) {
  json::Object O{{"name", S.Name},
                 {"measured", int64_t(S.Measured)},
                 {"failed", int64_t(S.Failed)},
                 {"mean", S.Mean},
                 {"median", S.Median},
                 {"min", S.Min},
                 {"max", S.Max},
                 {"spread", S.Spread},
                 {"largest_deviation", S.LargestDeviation},
                 {"cv", S.CV},
                 {"best_offset", S.BestOffset},
                 {"worst_offset", S.WorstOffset},
                 {"instruction_spread", S.InstructionSpread}};
  if (S.Period)
    O["period"] = json::Object{{"bytes", int64_t(S.Period->Bytes)},
                               {"strength", S.Period->Strength},
                               {"explained", S.Period->Explained},
                               {"mechanism", S.Mechanism}};
  else
    O["period"] = nullptr;
  json::Object Events;
  for (const auto &[Name, P] : S.CounterPeriods)
    Events[Name] = json::Object{{"bytes", int64_t(P.Bytes)},
                                {"strength", P.Strength},
                                {"explained", P.Explained}};
  O["event_periods"] = std::move(Events);
  return O;
}

StringRef noiseKind(const NoiseFloor &N) {
  switch (N.Kind) {
  case NoiseFloor::Deterministic: return "deterministic";
  case NoiseFloor::Measured: return "measured";
  case NoiseFloor::Unknown: break;
  }
  return "unknown";
}

std::string csvField(StringRef S) {
  if (S.find_first_of(",\"\n") == StringRef::npos)
    return S.str();
  std::string Out = "\"";
  for (char C : S)
    Out += C == '"' ? std::string("\"\"") : std::string(1, C);
  return Out + "\"";
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

json::Value reportJSON(const SweepResult &R, const GateResult &G) {
  json::Object O = std::move(*toJSON(R).getAsObject());
  O["version"] = ReportVersion;
  json::Object Summary{{"base", summaryJSON(G.Base)}};
  if (G.Compare)
    Summary["compare"] = summaryJSON(*G.Compare);
  O["summary"] = std::move(Summary);
  O["noise"] = json::Object{{"kind", noiseKind(G.Noise)},
                            {"spread", G.Noise.Spread},
                            {"aa_spread", G.Noise.AASpread},
                            {"copies", int64_t(G.Noise.Copies)},
                            {"rounds", int64_t(G.Noise.Rounds)}};
  if (std::optional<MeanRatio> M = compareRatio(R, G))
    O["comparison"] = json::Object{
        {"faster", M->BFaster ? "compare" : "base"},
        {"ratio", M->Ratio},
        {"error", M->Error},
        {"p_value", M->PValue},
        {"significant", M->Significant},
        {"headline", *compareHeadline(R, G)}};
  O["verdict"] = G.Verdict;
  O["verdict_kind"] = verdictKindName(G.Kind);
  O["verdict_state"] = verdictStateName(verdictState(G.Kind));
  O["min_effect"] = G.MinEffect;
  O["within_noise"] = G.WithinNoise;
  O["info"] = json::Array(ArrayRef<std::string>(G.Info));
  O["gate"] = json::Object{
      {"failed", G.Failed},
      {"set", G.GateSet},
      {"reasons", json::Array(ArrayRef<std::string>(G.Reasons))},
      {"notes", json::Array(ArrayRef<std::string>(G.Notes))}};
  return O;
}

void writeJSONReport(raw_ostream &OS, const SweepResult &R,
                     const GateResult &G) {
  OS << formatv("{0:2}", reportJSON(R, G)) << "\n";
}

void writeCSVReport(raw_ostream &OS, const SweepResult &R) {
  std::vector<const Measurement *> All;
  for (const Measurement &M : R.Ms)
    All.push_back(&M);
  if (R.Compare)
    for (const Measurement &M : R.Compare->Ms)
      All.push_back(&M);
  for (const Measurement &M : R.NoiseFloor)
    All.push_back(&M);
  std::set<std::string> Counters;
  // Means per (series, axis), so A/A copies are relative to their own mean.
  std::map<std::pair<std::string, std::string>, std::vector<double>> Costs;
  for (const Measurement *M : All) {
    for (const auto &KV : M->Counters)
      Counters.insert(KV.first);
    if (!M->Failed)
      Costs[{M->V.Series, M->V.Axis}].push_back(M->Cost);
  }
  OS << "series,axis,offset,status,cost,relative_to_mean,instructions";
  for (const std::string &C : Counters)
    OS << "," << csvField(C);
  OS << ",reason\n";
  for (const Measurement *M : All) {
    OS << csvField(M->V.Series) << "," << csvField(M->V.Axis) << ","
       << M->V.Offset << ",";
    if (M->Failed) {
      OS << "failed,,,";
      for (size_t I = 0; I < Counters.size(); ++I)
        OS << ",";
      OS << "," << csvField(M->FailReason) << "\n";
      continue;
    }
    double Mean = mean(Costs[{M->V.Series, M->V.Axis}]);
    OS << "ok," << fmt("%.9g", M->Cost) << ","
       << fmt("%.6f", relative(*M, Mean)) << "," << M->Instructions;
    for (const std::string &C : Counters) {
      auto It = M->Counters.find(C);
      OS << "," << (It == M->Counters.end() ? "" : fmt("%.9g", It->second));
    }
    OS << ",\n";
  }
}

//===----------------------------------------------------------------------===//
// SVG plot
//===----------------------------------------------------------------------===//

namespace {

constexpr double PlotW = 960, PlotH = 540;
constexpr double Left = 90, Right = 30, Top = 84, Bottom = 64;
const char *const BaseColor = "#1f5fa8", *const CmpColor = "#e07b00",
                  *const FailColor = "#c0392b";

/// The verdict's colour, by its state: green for nothing beyond the floor,
/// red for a layout effect, grey for a negligible spread or no verdict.
StringRef verdictColor(const GateResult &G) {
  switch (verdictState(G.Kind)) {
  case VerdictState::NoEffect: return "#2e7d32";
  case VerdictState::Effect: return "#b03a2e";
  case VerdictState::Negligible:
  case VerdictState::None: break;
  }
  return "#555";
}

/// Tick step for byte offsets: a power of two giving at most 8 intervals.
int64_t offsetTickStep(int64_t Range) {
  int64_t Step = 1;
  while (Range / Step > 8)
    Step *= 2;
  return Step;
}

/// One unit for every label of the offset axis: KB when every tick is a
/// whole number of KB, else bytes ("1 KB" beside "512" mixed the two).
struct OffsetUnit {
  int64_t Bytes;
  const char *Name;
};
OffsetUnit offsetUnit(int64_t TickStep, int64_t FirstTick) {
  if (TickStep % 1024 == 0 && FirstTick % 1024 == 0)
    return {1024, "KB"};
  return {1, "bytes"};
}

/// A "nice" step (1, 2, 2.5, 5 x 10^k) giving at most 5 intervals over
/// \p Range.
double niceStep(double Range) {
  double Pow = std::pow(10.0, std::floor(std::log10(Range)) - 1);
  for (;; Pow *= 10)
    for (double M : {1.0, 2.0, 2.5, 5.0})
      if (Range / (M * Pow) <= 5 + 1e-9) // rounding must not add a tick
        return M * Pow;
}

/// The chart's coordinates. Relative plots (one series) show cost relative
/// to the series mean in percent; a --compare plot shows both series' cost
/// on one absolute scale, so a series that is cheaper is lower.
struct Axes {
  int64_t XMin, XMax;
  /// Bytes of margin on each side, so the first and last offsets sit
  /// inside the frame rather than on it.
  double XPad;
  double YLo, YHi;          ///< the frame's value range
  double TickLo, TickHi;    ///< first and last horizontal grid line
  double YStep;             ///< between grid lines
  bool Absolute;
  double x(double Off) const {
    return Left + (PlotW - Left - Right) * (Off - (XMin - XPad)) /
                      (double(XMax - XMin) + 2 * XPad);
  }
  double y(double V) const {
    return Top + (PlotH - Top - Bottom) * (YHi - V) / (YHi - YLo);
  }
  /// What a measurement is plotted as.
  double value(double Cost, double Mean) const {
    return Absolute ? Cost : (Mean > 0 ? (Cost / Mean - 1) * 100 : 0);
  }
};

std::string coord(double V) { return fmt("%.1f", V); }

void svgText(raw_ostream &OS, double X, double Y, StringRef Anchor,
             StringRef Text, StringRef Extra = "") {
  OS << "<text x=\"" << coord(X) << "\" y=\"" << coord(Y)
     << "\" text-anchor=\"" << Anchor << "\"" << Extra << ">"
     << escapeMarkup(Text) << "</text>\n";
}

/// At most \p Max characters: longer text keeps its start and end around
/// "...". The chart is 960 px wide; at the title's 17 px bold a character
/// is at most ~11 px, at 12 px ~7 px on average, so 80 and 140 characters
/// fit (report-chromium-layout.test measures them in Chromium).
std::string fitText(StringRef T, size_t Max) {
  if (T.size() <= Max)
    return T.str();
  size_t Keep = Max - 3, Head = Keep / 2;
  return (T.take_front(Head) + "..." + T.take_back(Keep - Head)).str();
}

/// A line of the chart that may be shortened; the full text is its tooltip.
void svgLine(raw_ostream &OS, double Y, StringRef Text, size_t Max,
             StringRef Extra) {
  OS << "<text x=\"" << coord(PlotW / 2) << "\" y=\"" << coord(Y)
     << "\" text-anchor=\"middle\"" << Extra << ">";
  if (Text.size() > Max)
    OS << "<title>" << escapeMarkup(Text) << "</title>";
  OS << escapeMarkup(fitText(Text, Max)) << "</text>\n";
}

void drawSeries(raw_ostream &OS, const Axes &A, ArrayRef<Measurement> Ms,
                StringRef Color, StringRef Marker) {
  double Mean = seriesMean(Ms);
  std::string Pts;
  for (const Measurement &M : Ms)
    if (!M.Failed)
      Pts += coord(A.x(M.V.Offset)) + "," +
             coord(A.y(A.value(M.Cost, Mean))) + " ";
  if (!Pts.empty()) {
    Pts.pop_back();
    OS << "<polyline fill=\"none\" stroke=\"" << Color
       << "\" stroke-width=\"1.5\" points=\"" << Pts << "\"/>\n";
  }
  for (const Measurement &M : Ms) {
    double X = A.x(M.V.Offset);
    if (M.Failed) {
      // Failed variants: a cross on the bottom axis, never a data point.
      double Y = PlotH - Bottom;
      OS << "<path d=\"M" << coord(X - 4) << "," << coord(Y - 4) << " L"
         << coord(X + 4) << "," << coord(Y + 4) << " M" << coord(X - 4) << ","
         << coord(Y + 4) << " L" << coord(X + 4) << "," << coord(Y - 4)
         << "\" stroke=\"" << FailColor << "\" stroke-width=\"2\"/>\n";
      continue;
    }
    double Y = A.y(A.value(M.Cost, Mean));
    // time backend: the median's bootstrap interval as an error bar.
    auto Lo = M.Counters.find("median_ci_low"),
         Hi = M.Counters.find("median_ci_high");
    if (Lo != M.Counters.end() && Hi != M.Counters.end() && Mean > 0)
      OS << "<line x1=\"" << coord(X) << "\" y1=\""
         << coord(A.y(A.value(Lo->second, Mean))) << "\" x2=\"" << coord(X)
         << "\" y2=\"" << coord(A.y(A.value(Hi->second, Mean)))
         << "\" stroke=\"" << Color << "\" stroke-opacity=\"0.45\"/>\n";
    if (Marker == "circle")
      OS << "<circle cx=\"" << coord(X) << "\" cy=\"" << coord(Y)
         << "\" r=\"2.5\" fill=\"" << Color << "\"/>\n";
    else
      OS << "<rect x=\"" << coord(X - 2.5) << "\" y=\"" << coord(Y - 2.5)
         << "\" width=\"5\" height=\"5\" fill=\"" << Color << "\"/>\n";
  }
}

std::string legendLine(const SeriesSummary &S, StringRef Label) {
  std::string L = formatv("{0}: spread {1}", Label, percent(S.Spread)).str();
  if (S.Period)
    L += formatv(", period {0} B", S.Period->Bytes).str();
  if (S.Failed)
    L += formatv(", {0} failed", S.Failed).str();
  return L;
}

/// As many decimals as \p Step needs: 2.5% steps print "+7.5%".
int stepDecimals(double Step) {
  int Decimals = 0;
  while (Decimals < 6 && std::fabs(Step * std::pow(10.0, Decimals) -
                                   std::round(Step * std::pow(10.0, Decimals))) >
                             1e-6)
    ++Decimals;
  return Decimals;
}

/// The y axis' title: what the value is, in the backend's unit.
std::string yTitle(const SweepResult &R, bool Absolute) {
  if (!Absolute)
    return "cost relative to the mean (%)";
  if (R.Backend == "time")
    return "cost (seconds)";
  if (R.Backend == "perf")
    return "cost (cycles)";
  return "cost (cost-model units)";
}

void drawAxes(raw_ostream &OS, const Axes &A, const SweepResult &R) {
  double X0 = Left, X1 = PlotW - Right, Y0 = Top, Y1 = PlotH - Bottom;
  // Horizontal grid and value ticks; the zero line (the mean) darker.
  int Decimals = stepDecimals(A.YStep);
  std::string F = "%." + std::to_string(Decimals) + "f";
  long N = std::lround((A.TickHi - A.TickLo) / A.YStep);
  for (long I = 0; I <= N; ++I) {
    double V = A.TickLo + I * A.YStep, Y = A.y(V);
    bool Zero = !A.Absolute && std::fabs(V) < A.YStep / 2;
    OS << "<line x1=\"" << coord(X0) << "\" y1=\"" << coord(Y) << "\" x2=\""
       << coord(X1) << "\" y2=\"" << coord(Y) << "\" stroke=\""
       << (Zero ? "#555" : "#ddd") << "\" stroke-width=\""
       << (Zero ? "1.2" : "1") << "\"/>\n";
    std::string Label =
        A.Absolute ? fmt(F.c_str(), V)
                   : (V > A.YStep / 2 ? "+" : "") +
                         fmt(F.c_str(), Zero ? 0.0 : V) + "%";
    svgText(OS, X0 - 8, Y + 4, "end", Label);
  }
  // Offset ticks, every label in one unit.
  int64_t XStep = offsetTickStep(A.XMax - A.XMin);
  int64_t First = A.XMin >= 0 ? (A.XMin + XStep - 1) / XStep * XStep
                              : -(-A.XMin / XStep * XStep);
  OffsetUnit U = offsetUnit(XStep, First);
  for (int64_t T = First; T <= A.XMax; T += XStep) {
    double X = A.x(T);
    OS << "<line x1=\"" << coord(X) << "\" y1=\"" << coord(Y1) << "\" x2=\""
       << coord(X) << "\" y2=\"" << coord(Y1 + 6)
       << "\" stroke=\"#333\"/>\n";
    svgText(OS, X, Y1 + 20, "middle", std::to_string(T / U.Bytes),
            " class=\"offset-tick\"");
  }
  OS << "<rect x=\"" << coord(X0) << "\" y=\"" << coord(Y0) << "\" width=\""
     << coord(X1 - X0) << "\" height=\"" << coord(Y1 - Y0)
     << "\" fill=\"none\" stroke=\"#333\"/>\n";
  svgText(OS, (X0 + X1) / 2, PlotH - 16, "middle",
          R.Axis + " offset (" + U.Name + ")", " font-size=\"14\"");
  svgText(OS, 0, 0, "middle", yTitle(R, A.Absolute),
          formatv(" font-size=\"14\" transform=\"translate(22,{0}) "
                  "rotate(-90)\"",
                  coord((Y0 + Y1) / 2))
              .str());
}

/// The band a spread must leave to count (docs/sweep-statistics.md): the
/// resolution of a deterministic backend or the measured noise floor,
/// +-half of it around a series' mean. 0 when neither is known.
double bandFraction(const GateResult &G) {
  if (G.Noise.Kind == NoiseFloor::Unknown)
    return 0;
  return G.Noise.Spread / 2;
}

std::string bandLegend(const GateResult &G) {
  if (G.Noise.Kind == NoiseFloor::Measured)
    return "grey band: noise floor " + percent(G.Noise.Spread) +
           " (spread of identical binaries); bars: 95% CI of each median";
  return "grey band: resolution " + percent(G.Noise.Spread) +
         " (deterministic backend: a spread within it is no layout effect)";
}

/// The band around value \p Mid (a series' mean) from \p Lo to \p Hi,
/// at least 2 px high so a band finer than a pixel still shows.
void drawBand(raw_ostream &OS, const Axes &A, double Lo, double Hi) {
  double YTop = std::max(A.y(std::min(Hi, A.YHi)), Top),
         YBot = std::min(A.y(std::max(Lo, A.YLo)), PlotH - Bottom);
  if (YBot - YTop < 2) {
    double Mid = (YTop + YBot) / 2;
    YTop = Mid - 1;
    YBot = Mid + 1;
  }
  OS << "<rect class=\"band\" x=\"" << coord(Left) << "\" y=\"" << coord(YTop)
     << "\" width=\"" << coord(PlotW - Left - Right) << "\" height=\""
     << coord(YBot - YTop) << "\" fill=\"#888\" fill-opacity=\"0.18\"/>\n";
}

/// The value range and grid of the chart for \p R's series.
Axes chartAxes(const SweepResult &R, const GateResult &G) {
  bool Absolute = R.Compare.has_value();
  int64_t XMin = INT64_MAX, XMax = INT64_MIN;
  double Lo = INFINITY, Hi = -INFINITY;
  double Band = bandFraction(G);
  Axes A{0, 1, 0.5, 0, 1, 0, 1, 1, Absolute};
  auto Scan = [&](ArrayRef<Measurement> Ms) {
    double Mean = seriesMean(Ms);
    for (const Measurement &M : Ms) {
      XMin = std::min(XMin, M.V.Offset);
      XMax = std::max(XMax, M.V.Offset);
      if (M.Failed)
        continue;
      Lo = std::min(Lo, A.value(M.Cost, Mean));
      Hi = std::max(Hi, A.value(M.Cost, Mean));
    }
    if (Absolute && Mean > 0 && Band > 0) { // the band stays in the frame
      Lo = std::min(Lo, Mean * (1 - Band));
      Hi = std::max(Hi, Mean * (1 + Band));
    }
  };
  Scan(R.Ms);
  if (R.Compare)
    Scan(R.Compare->Ms);
  if (XMin > XMax)
    XMin = XMax = 0;
  if (XMin == XMax)
    XMax = XMin + 1;
  A.XMin = XMin;
  A.XMax = XMax;
  A.XPad = std::max(0.5, double(XMax - XMin) * 0.025);
  if (!Absolute) {
    // Symmetric about the mean, with 6% headroom so the extreme variants do
    // not sit on the frame.
    double MaxAbs = std::max({std::fabs(Lo), std::fabs(Hi), 0.1});
    if (!std::isfinite(MaxAbs))
      MaxAbs = 0.1;
    A.YStep = niceStep(MaxAbs);
    double YMax = std::ceil(MaxAbs / A.YStep - 1e-9) * A.YStep;
    A.TickLo = -YMax;
    A.TickHi = YMax;
    A.YLo = -YMax * 1.06;
    A.YHi = YMax * 1.06;
    return A;
  }
  if (!std::isfinite(Lo)) // nothing measured
    Lo = Hi = 1;
  if (Hi - Lo < std::max(std::fabs(Hi), 1e-12) * 1e-6) { // flat
    double Pad = std::max(std::fabs(Hi) * 1e-4, 1e-9);
    Lo -= Pad;
    Hi += Pad;
  }
  A.YStep = niceStep((Hi - Lo) * 1.2);
  A.TickLo = std::floor(Lo / A.YStep + 1e-9) * A.YStep;
  A.TickHi = std::ceil(Hi / A.YStep - 1e-9) * A.YStep;
  double Room = (A.TickHi - A.TickLo) * 0.03;
  A.YLo = A.TickLo - Room;
  A.YHi = A.TickHi + Room;
  return A;
}

} // namespace

void writeSVGPlot(raw_ostream &OS, const SweepResult &R, const GateResult &G) {
  Axes A = chartAxes(R, G);

  // The legend goes below the chart, where it never hides a data point.
  SeriesLabels Names = seriesLabels(R);
  std::vector<std::pair<std::string, const char *>> Lines = {
      {legendLine(G.Base, "base " + fitText(Names.Base, 60)), BaseColor}};
  if (R.Compare && G.Compare)
    Lines.push_back(
        {legendLine(*G.Compare, "compare " + fitText(Names.Compare, 60)),
         CmpColor});
  if (std::optional<std::string> H = compareHeadline(R, G)) {
    // The ratio and whether it is significant; the HTML headline and the
    // text report have the means and the p-value.
    std::string Short = H->substr(0, H->find(": mean cost"));
    Short += compareRatio(R, G)->Significant ? " (significant)"
                                             : " (not significant)";
    Lines.push_back({fitText(Short, 130), nullptr});
  }
  if (G.Base.Period)
    Lines.push_back({"base period: " + G.Base.Mechanism, nullptr});
  double Band = bandFraction(G);
  if (Band > 0)
    Lines.push_back({bandLegend(G), nullptr});
  const double LH = 18;
  int W = int(PlotW), H = int(PlotH + LH * Lines.size() + 16);
  OS << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W
     << "\" height=\"" << H << "\" viewBox=\"0 0 " << W << " " << H
     << "\" font-family=\"DejaVu Sans, Arial, sans-serif\" font-size=\"12\">\n";
  OS << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  // The title names the binary by its file name (the full path is in the
  // subtitle's tooltip) so it stays inside the chart.
  std::string Title =
      R.Compare ? "layout sweep: " + fitText(Names.Base, 30) + " vs " +
                      fitText(Names.Compare, 30) + " - cost vs " + R.Axis +
                      " offset"
                : "layout sweep: " + fitText(Names.Base, 40) +
                      " - cost relative to the mean vs " + R.Axis + " offset";
  svgLine(OS, 26, Title, 80,
          " class=\"chart-title\" font-size=\"17\" font-weight=\"bold\"");
  std::string Sub = R.Binary + ": backend " + R.Backend;
  if (!R.GeometryPreset.empty())
    Sub += ", preset " + R.GeometryPreset;
  if (!R.CacheGeometry.empty())
    Sub += ", " + R.CacheGeometry;
  svgLine(OS, 46, Sub, 110, " class=\"chart-subtitle\" fill=\"#444\"");
  svgLine(OS, 66, G.Verdict, 140,
          (" class=\"chart-verdict\" fill=\"" + verdictColor(G) + "\"").str());
  drawAxes(OS, A, R);
  if (Band > 0) {
    // A spread up to the floor (resolution) is noise: shade +-half of it
    // around each series' mean.
    if (!A.Absolute)
      drawBand(OS, A, -Band * 100, Band * 100);
    else
      for (ArrayRef<Measurement> Ms :
           {ArrayRef<Measurement>(R.Ms),
            R.Compare ? ArrayRef<Measurement>(R.Compare->Ms)
                      : ArrayRef<Measurement>()})
        if (double Mean = seriesMean(Ms); !Ms.empty() && Mean > 0)
          drawBand(OS, A, Mean * (1 - Band), Mean * (1 + Band));
  }
  drawSeries(OS, A, R.Ms, BaseColor, "circle");
  if (R.Compare)
    drawSeries(OS, A, R.Compare->Ms, CmpColor, "square");

  double LX = Left, LY = PlotH + 2;
  size_t Longest = 0;
  for (const auto &L : Lines)
    Longest = std::max(Longest, L.first.size());
  OS << "<g class=\"legend\">\n";
  OS << "<rect x=\"" << coord(LX) << "\" y=\"" << coord(LY) << "\" width=\""
     << coord(std::min(PlotW - Left - Right - 20, 40 + 6.6 * Longest))
     << "\" height=\"" << coord(LH * Lines.size() + 8)
     << "\" fill=\"white\" fill-opacity=\"0.9\" stroke=\"#999\"/>\n";
  for (size_t I = 0; I < Lines.size(); ++I) {
    double Y = LY + 4 + LH * I + LH / 2;
    if (Lines[I].second)
      OS << "<line x1=\"" << coord(LX + 8) << "\" y1=\"" << coord(Y)
         << "\" x2=\"" << coord(LX + 28) << "\" y2=\"" << coord(Y)
         << "\" stroke=\"" << Lines[I].second << "\" stroke-width=\"3\"/>\n";
    svgText(OS, LX + 34, Y + 4, "start", Lines[I].first,
            Lines[I].second ? " class=\"series-label\"" : "");
  }
  OS << "</g>\n</svg>\n";
}

//===----------------------------------------------------------------------===//
// HTML report
//===----------------------------------------------------------------------===//

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

} // namespace sweep
} // namespace keel
