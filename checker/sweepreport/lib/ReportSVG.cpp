//===- ReportSVG.cpp - the SVG plot ---------------------------------------===//
//
// The plot follows the spacer report's figures (docs/references.md): each
// variant's cost relative to the mean over all variants (%), against the
// offset that moved the code (or data, stack, env, heap).
//
//===----------------------------------------------------------------------===//

#include "keel/SweepReport/Report.h"

#include "ReportHelpers.h"

#include "keel/Support/Text.h"
#include "keel/SweepReport/Kinds.h"

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
  std::optional<BackendKind> K = lookupBackendKind(R.Backend);
  if (K == BackendKind::Time)
    return "cost (seconds)";
  if (K == BackendKind::Perf)
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

} // namespace sweep
} // namespace keel
