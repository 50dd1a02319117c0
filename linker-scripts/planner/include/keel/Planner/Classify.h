//===- keel/Planner/Classify.h - hot/warm/cold by coverage ------*- C++ -*-===//
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

} // namespace keel

#endif
