//===- Classify.cpp - hot/warm/cold by instruction coverage ---------------===//
#include "keel/Planner/Classify.h"

#include "llvm/ADT/STLExtras.h"

#include <cassert>
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

std::vector<Temperature> classifyByDensity(ArrayRef<uint64_t> Weights,
                                           ArrayRef<uint64_t> Sizes,
                                           uint64_t Budget, double Coverage) {
  assert(Weights.size() == Sizes.size() && "one size per weight");
  std::vector<Temperature> Out(Weights.size(), Temperature::Cold);
  std::vector<size_t> Executed;
  uint64_t Total = 0;
  for (size_t I = 0; I < Weights.size(); ++I)
    if (Weights[I]) {
      Executed.push_back(I);
      Total += Weights[I];
      Out[I] = Temperature::Warm;
    }
  auto SizeOf = [&](size_t I) { return std::max<uint64_t>(Sizes[I], 1); };
  // Denser first: W_a / S_a > W_b / S_b, compared exactly.
  llvm::stable_sort(Executed, [&](size_t A, size_t B) {
    return (unsigned __int128)Weights[A] * SizeOf(B) >
           (unsigned __int128)Weights[B] * SizeOf(A);
  });
  long double Target = (long double)Total * Coverage;
  long double Covered = 0;
  uint64_t Bytes = 0;
  for (size_t K = 0; K < Executed.size(); ++K) {
    size_t I = Executed[K];
    if (K > 0 && (Covered >= Target || Bytes + Sizes[I] > Budget))
      break;
    Out[I] = Temperature::Hot;
    Covered += Weights[I];
    Bytes += Sizes[I];
  }
  return Out;
}

} // namespace keel
