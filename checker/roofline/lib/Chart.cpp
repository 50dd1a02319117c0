//===- Chart.cpp - a roofline chart as SVG --------------------------------===//
#include "keel/Roofline/Chart.h"

#include "keel/Support/Text.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace llvm;

namespace keel {
namespace roofline {

namespace {

constexpr double W = 760, H = 500, Left = 70, Right = 170, Top = 40,
                 Bottom = 50;
const char *Colors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                        "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};


struct Axes {
  double X0, X1, Y0, Y1; // log10 ranges
  double x(double V) const {
    return Left + (std::log10(V) - X0) / (X1 - X0) * (W - Left - Right);
  }
  double y(double V) const {
    return H - Bottom - (std::log10(V) - Y0) / (Y1 - Y0) * (H - Top - Bottom);
  }
};

Axes makeAxes(const ChartData &D) {
  double XMin = 1.0 / 64, XMax = 64, YMax = 1, YMin = 1e9;
  for (const auto &P : D.Peaks)
    YMax = std::max(YMax, P.GFlops);
  for (const auto &P : D.Points) {
    if (P.Intensity > 0) {
      XMin = std::min(XMin, P.Intensity / 2);
      XMax = std::max(XMax, P.Intensity * 2);
    }
    if (P.GFlops > 0)
      YMin = std::min(YMin, P.GFlops / 2);
    YMax = std::max(YMax, P.GFlops);
  }
  for (const auto &R : D.Roofs)
    if (R.GBs > 0)
      YMin = std::min(YMin, R.GBs * XMin);
  if (YMin > YMax)
    YMin = YMax / 1000;
  return Axes{std::floor(std::log10(XMin)), std::ceil(std::log10(XMax)),
              std::floor(std::log10(YMin)), std::ceil(std::log10(YMax * 1.5))};
}

} // namespace

void renderSVG(raw_ostream &OS, const ChartData &D) {
  Axes A = makeAxes(D);
  OS << formatv("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" "
                "height=\"{1}\" font-family=\"sans-serif\" font-size=\"11\">\n",
                W, H);
  OS << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  OS << formatv("<text x=\"{0}\" y=\"20\" font-size=\"14\">{1}</text>\n", Left,
                escapeMarkup(D.Title));
  // Decade grid and labels.
  for (int E = int(A.X0); E <= int(A.X1); ++E) {
    double X = A.x(std::pow(10.0, E));
    OS << formatv("<line x1=\"{0:f1}\" y1=\"{1}\" x2=\"{0:f1}\" y2=\"{2}\" "
                  "stroke=\"#ddd\"/>\n",
                  X, Top, H - Bottom);
    OS << formatv("<text x=\"{0:f1}\" y=\"{1}\" text-anchor=\"middle\">{2}"
                  "</text>\n",
                  X, H - Bottom + 15, std::pow(10.0, E));
  }
  for (int E = int(A.Y0); E <= int(A.Y1); ++E) {
    double Y = A.y(std::pow(10.0, E));
    OS << formatv("<line x1=\"{0}\" y1=\"{1:f1}\" x2=\"{2}\" y2=\"{1:f1}\" "
                  "stroke=\"#ddd\"/>\n",
                  Left, Y, W - Right);
    OS << formatv("<text x=\"{0}\" y=\"{1:f1}\" text-anchor=\"end\">{2}"
                  "</text>\n",
                  Left - 5, Y + 4, std::pow(10.0, E));
  }
  OS << formatv("<text x=\"{0:f1}\" y=\"{1}\" text-anchor=\"middle\">"
                "arithmetic intensity (flop/byte)</text>\n",
                (Left + W - Right) / 2, H - 12);
  OS << formatv("<text x=\"15\" y=\"{0:f1}\" transform=\"rotate(-90 15 {0:f1})"
                "\" text-anchor=\"middle\">GFLOP/s</text>\n",
                (Top + H - Bottom) / 2);

  double TopPeak = 0;
  for (const auto &P : D.Peaks)
    TopPeak = std::max(TopPeak, P.GFlops);
  double XLo = std::pow(10.0, A.X0), XHi = std::pow(10.0, A.X1);
  unsigned Color = 0;
  double LabelY = Top + 12;
  for (const auto &R : D.Roofs) {
    if (!(R.GBs > 0))
      continue;
    const char *Col = Colors[Color++ % 8];
    double Ridge = TopPeak > 0 ? std::min(XHi, TopPeak / R.GBs) : XHi;
    double Start = std::max(XLo, std::pow(10.0, A.Y0) / R.GBs);
    OS << formatv("<line x1=\"{0:f1}\" y1=\"{1:f1}\" x2=\"{2:f1}\" "
                  "y2=\"{3:f1}\" stroke=\"{4}\" stroke-width=\"2\"/>\n",
                  A.x(Start), A.y(R.GBs * Start), A.x(Ridge),
                  A.y(R.GBs * Ridge), Col);
    OS << formatv("<text x=\"{0}\" y=\"{1:f1}\" fill=\"{2}\">{3} {4:f1} GB/s"
                  "</text>\n",
                  W - Right + 8, LabelY, Col, escapeMarkup(R.Name), R.GBs);
    LabelY += 14;
  }
  for (const auto &P : D.Peaks) {
    double Y = A.y(P.GFlops);
    OS << formatv("<line x1=\"{0}\" y1=\"{1:f1}\" x2=\"{2}\" y2=\"{1:f1}\" "
                  "stroke=\"black\" stroke-dasharray=\"6 3\"/>\n",
                  Left, Y, W - Right);
    OS << formatv("<text x=\"{0}\" y=\"{1:f1}\">{2} {3:f1} GFLOP/s</text>\n",
                  W - Right + 8, Y + 4, escapeMarkup(P.Name), P.GFlops);
  }
  for (size_t I = 0; I < D.Points.size(); ++I) {
    const auto &P = D.Points[I];
    if (!(P.Intensity > 0 && P.GFlops > 0))
      continue;
    double X = A.x(P.Intensity), Y = A.y(P.GFlops);
    if (P.EstimateGFlops && *P.EstimateGFlops > 0) {
      double YE = A.y(*P.EstimateGFlops);
      OS << formatv("<line x1=\"{0:f1}\" y1=\"{1:f1}\" x2=\"{0:f1}\" "
                    "y2=\"{2:f1}\" stroke=\"#999\"/>\n",
                    X, Y, YE);
      OS << formatv("<rect x=\"{0:f1}\" y=\"{1:f1}\" width=\"6\" height=\"6\" "
                    "fill=\"none\" stroke=\"#555\"/>\n",
                    X - 3, YE - 3);
    }
    OS << formatv("<circle cx=\"{0:f1}\" cy=\"{1:f1}\" r=\"4\" fill=\"#d62728\""
                  "/>\n",
                  X, Y);
    OS << formatv("<text x=\"{0:f1}\" y=\"{1:f1}\" font-size=\"9\">{2}</text>\n",
                  X + 6, Y + (I % 2 ? 10 : -4), escapeMarkup(P.Label));
  }
  OS << "</svg>\n";
}

} // namespace roofline
} // namespace keel
