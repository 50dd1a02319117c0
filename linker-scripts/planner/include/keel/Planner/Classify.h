//===- keel/Planner/Classify.h - hot/warm/cold          ------*- C++ -*-===//
//
// A function is hot when it belongs to the smallest set of heaviest
// functions that together cover a share (default 99%) of all executed
// instructions; cold when it never executed; warm otherwise.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_PLANNER_CLASSIFY_H
#define KEEL_PLANNER_CLASSIFY_H

#include "keel/Plan/Plan.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <vector>

namespace keel {

/// Classify items of weight \p Weights. Ties in weight are broken by index,
/// so the result is deterministic. \p Coverage is in (0, 1].
std::vector<Temperature> classifyByCoverage(llvm::ArrayRef<uint64_t> Weights,
                                            double Coverage);

/// Hot by density under a cache budget: executed items are taken densest
/// first (weight per byte, \p Sizes; a size of 0 counts as 1 byte; ties by
/// index) while their bytes stay within \p Budget and, before each, the
/// taken ones cover less than \p Coverage of the weight. The densest item
/// is hot even when it alone exceeds the budget. The hot set is a prefix of
/// the density order: the first item that does not fit ends it, and every
/// other executed item is warm; never-executed items are cold.
std::vector<Temperature> classifyByDensity(llvm::ArrayRef<uint64_t> Weights,
                                           llvm::ArrayRef<uint64_t> Sizes,
                                           uint64_t Budget, double Coverage);

} // namespace keel

#endif
