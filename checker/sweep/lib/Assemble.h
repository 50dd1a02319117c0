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
void noteOwnRuns(const EngineOptions &O, SweepResult &R);

/// Sort, split into series, refuse an all-failed sweep, check instructions.
/// \p Binaries: a variant's binary per series (for its symbols); without
/// one (every variant came from the journal) the binary as given.
llvm::Error finishResult(const EngineOptions &O,
                         std::vector<Measurement> Results,
                         std::map<std::string, std::string> Binaries,
                         const std::map<int64_t, std::string> &Built,
                         SweepResult &R);

} // namespace sweep
} // namespace keel

#endif
