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
std::vector<Measurement> reuseJournal(const MeasureOptions &O,
                                      std::vector<Measurement> Done,
                                      const std::vector<Variant> &Grid);

/// The sweep's journal (none without a path), which \p Fingerprint
/// (sweepFingerprint) identifies, and in \p Done what an earlier run of it
/// finished that this grid still has, costed with \p M's weights.
llvm::Expected<std::unique_ptr<Journal>>
openJournal(const JournalOptions &O, llvm::StringRef Fingerprint,
            const MeasureOptions &M, llvm::ArrayRef<Variant> All,
            std::vector<Measurement> &Done);

} // namespace sweep
} // namespace keel

#endif
