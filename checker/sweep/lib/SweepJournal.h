//===- SweepJournal.h - a sweep's journal -----------------------*- C++ -*-===//
//
// The journal phase: the sweep's journal opened (its fingerprint must
// match, EngineOptions.h's sweepFingerprint), and what an earlier run of it
// finished kept when this grid still has it.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_SWEEP_LIB_SWEEPJOURNAL_H
#define KEEL_SWEEP_LIB_SWEEPJOURNAL_H

#include "keel/Sweep/EngineOptions.h"
#include "keel/Sweep/Journal.h"
#include "keel/SweepReport/Result.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <vector>

namespace keel {
namespace sweep {

/// Measurements found in the journal that belong to this grid, with the
/// cost recomputed under the current weights (the journal keeps counters).
std::vector<Measurement> reuseJournal(const EngineOptions &O,
                                      std::vector<Measurement> Done,
                                      const std::vector<Variant> &Grid);

/// The sweep's journal (none without a path), and in \p Done what an earlier
/// run of it finished that this grid still has.
llvm::Expected<std::unique_ptr<Journal>>
openJournal(const EngineOptions &O, llvm::ArrayRef<Variant> All,
            std::vector<Measurement> &Done);

} // namespace sweep
} // namespace keel

#endif
