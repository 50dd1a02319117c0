//===- keel/Sweep/Grid.h - the perturbation grid ------------------*- C++ -*-===//
//
// Which offsets a sweep visits: From..To (inclusive) by Step bytes. Presets
// reproduce the evaluation grids of the spacer report (docs/references.md):
// POWER3-II 0..16 KB by 64 B, POWER4 0..256 KB by 1 KB.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_SWEEP_GRID_H
#define KEEL_SWEEP_GRID_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace keel {
namespace sweep {

struct Grid {
  int64_t From = 0, To = 4096, Step = 64; ///< bytes; the default code grid

  std::vector<int64_t> offsets() const;
};

/// The variant count above which a grid is refused (a typo like --step=1
/// over 256 KB would otherwise queue 262144 valgrind runs).
inline constexpr size_t MaxGridPoints = 10000;

/// "default" (0..4096 by 64), "16k-by-64" (0..16384 by 64), "256k-by-1k"
/// (0..262144 by 1024). Error names the known presets.
llvm::Expected<Grid> gridPreset(llvm::StringRef Name);

/// From >= 0, Step > 0, To >= From, at most MaxGridPoints points.
llvm::Error validateGrid(const Grid &G);

} // namespace sweep
} // namespace keel

#endif
