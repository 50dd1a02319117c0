//===- KeelSimSweep.h - keel-sim's shared runs ------------------*- C++ -*-===//
//
// The sim backend with keel-sim: one run of a series' first variant also
// simulates every variant of that series whose binary is an address map of
// it (VariantMap.h); the rest run on their own binaries.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_SWEEP_LIB_KEELSIMSWEEP_H
#define KEEL_SWEEP_LIB_KEELSIMSWEEP_H

#include "Recorder.h"
#include "keel/Sweep/EngineOptions.h"
#include "keel/Sweep/Perturb.h"
#include "keel/Sweep/SimRun.h"

#include "llvm/ADT/StringRef.h"

#include <vector>

namespace keel {
namespace sweep {

/// Can variants of this sweep be address maps of one run? Only when they
/// differ in their bytes' addresses alone: pads (code, data), and every
/// variant started by one name (--exec-as=fd; with path each has its own
/// argv[0]).
bool keelSimMaps(AxisKind Axis, const ExecutorOptions &X);

/// Measure \p Work with keel-sim's shared runs, recording each variant in
/// every one of \p Recs (one per geometry of \p O: Geometry, then
/// MoreGeometries).
void measureWithKeelSim(const EngineOptions &O, Perturber &P, const SimTools &T,
                        llvm::StringRef WorkDir, std::vector<Recorder *> Recs,
                        const Todo &Work);

} // namespace sweep
} // namespace keel

#endif
