//===- Grid.cpp - the perturbation grid -----------------------------------===//
#include "keel/Sweep/Grid.h"

#include "keel/Support/Diagnostics.h"

using namespace llvm;

namespace keel {
namespace sweep {

std::vector<int64_t> Grid::offsets() const {
  std::vector<int64_t> O;
  for (int64_t X = From; X <= To; X += Step)
    O.push_back(X);
  return O;
}

Expected<Grid> gridPreset(StringRef Name) {
  if (Name == "default")
    return Grid{0, 4096, 64};
  // The grids the spacer report measured on: POWER3-II 0..16 KB in 64 B
  // steps, POWER4 0..256 KB in 1 KB (docs/references.md).
  if (Name == "16k-by-64")
    return Grid{0, 16384, 64};
  if (Name == "256k-by-1k")
    return Grid{0, 262144, 1024};
  return makeError("unknown grid preset '{0}' (known: default, 16k-by-64, "
                   "256k-by-1k)",
                   Name);
}

Error validateGrid(const Grid &G) {
  if (G.From < 0)
    return makeError("--from must not be negative (got {0})", G.From);
  if (G.Step <= 0)
    return makeError("--step must be positive (got {0})", G.Step);
  if (G.To < G.From)
    return makeError("--to ({0}) is below --from ({1})", G.To, G.From);
  uint64_t Points = static_cast<uint64_t>(G.To - G.From) / G.Step + 1;
  if (Points > MaxGridPoints)
    return makeError("the grid has {0} points (more than {1}); use a larger "
                     "--step",
                     Points, MaxGridPoints);
  return Error::success();
}

} // namespace sweep
} // namespace keel
