//===- Classify.cpp - hot/warm/cold by instruction coverage ---------------===//
#include "keel/Planner/Classify.h"

#include "llvm/ADT/STLExtras.h"

#include <numeric>

using namespace llvm;

namespace keel {

std::vector<Temperature> classifyByCoverage(ArrayRef<uint64_t> Weights,
                                            double Coverage) {
  std::vector<Temperature> Out(Weights.size(), Temperature::Cold);
  std::vector<size_t> ByWeight(Weights.size());
  std::iota(ByWeight.begin(), ByWeight.end(), 0);
  llvm::stable_sort(ByWeight,
                    [&](size_t A, size_t B) { return Weights[A] > Weights[B]; });
  uint64_t Total = 0;
  for (uint64_t W : Weights)
    Total += W;
  // Hot: take the heaviest until they cover the share; the function that
  // crosses the threshold is hot too (so coverage 1.0 makes every executed
  // function hot).
  long double Target = (long double)Total * Coverage;
  long double Covered = 0;
  for (size_t I : ByWeight) {
    if (Weights[I] == 0)
      break;
    Out[I] = Covered < Target ? Temperature::Hot : Temperature::Warm;
    Covered += Weights[I];
  }
  return Out;
}

} // namespace keel
