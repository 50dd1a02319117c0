//===- Assemble.h - measurements into a SweepResult -------------*- C++ -*-===//
//
// The last phase: the measurements sorted and split into series, an
// all-failed sweep refused, and what the variants' binaries and counts say
// (code moved by a data pad, executed instructions that differ, keel-sim's
// fallbacks) added as notes.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_SWEEP_LIB_ASSEMBLE_H
#define KEEL_SWEEP_LIB_ASSEMBLE_H

#include "keel/Sweep/EngineOptions.h"
#include "keel/SweepReport/Result.h"

#include "llvm/Support/Error.h"

#include <map>
#include <string>
#include <vector>

namespace keel {
namespace sweep {

/// keel-sim measured a code or data sweep without maps: say why every pad
/// had its own run.
void noteOwnRuns(AxisKind Axis, const ExecutorOptions &X, SweepResult &R);

/// Sort, split into series, refuse an all-failed sweep, check instructions.
/// \p Binaries: a variant's binary per series (for its symbols); without
/// one (every variant came from the journal) the binary as given.
/// \p O, \p P and \p M say what was swept and how it was measured; \p A
/// what the instruction check tolerates.
llvm::Error finishResult(const SweepTarget &O, const PerturbOptions &P,
                         const MeasureOptions &M, const AssembleOptions &A,
                         std::vector<Measurement> Results,
                         std::map<std::string, std::string> Binaries,
                         const std::map<int64_t, std::string> &Built,
                         SweepResult &R);

} // namespace sweep
} // namespace keel

#endif
