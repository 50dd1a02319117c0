//===- Chart.h - a roofline chart as SVG ------------------------*- C++ -*-===//
#ifndef KEEL_ROOFLINE_CHART_H
#define KEEL_ROOFLINE_CHART_H

#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace keel {
namespace roofline {

struct ChartData {
  std::string Title;
  struct Roof {
    std::string Name;
    double GBs;
  };
  struct Peak {
    std::string Name;
    double GFlops;
  };
  struct Point {
    std::string Label;
    double Intensity; ///< flops per byte (of the level the label names)
    double GFlops;    ///< achieved
    std::optional<double> EstimateGFlops; ///< the model's estimate, if any
  };
  std::vector<Roof> Roofs;
  std::vector<Peak> Peaks;
  std::vector<Point> Points;
};

/// Log-log roofline: bandwidth roofs (GFLOP/s = GB/s x flop/byte, up to the
/// highest peak), horizontal peaks, points with a line to their estimate.
/// Deterministic text for the same data.
void renderSVG(llvm::raw_ostream &OS, const ChartData &D);

} // namespace roofline
} // namespace keel

#endif
