//===- keel/Sweep/PerfRun.h - one perf stat run of a variant ----*- C++ -*-===//
//
// The perf backend's side of a variant, as SimRun.h is the sim backend's:
// whether this machine has the counters, and a variant measured by one
// `perf stat` run of its command.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_SWEEP_PERFRUN_H
#define KEEL_SWEEP_PERFRUN_H

#include "keel/Sweep/EngineOptions.h"
#include "keel/Sweep/Perturb.h"
#include "keel/SweepReport/Result.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace keel {
namespace sweep {

/// The perf backend's capability check: perf_event_open for cycles on this
/// process. UnavailableError (exit 3) when the machine has no counters.
llvm::Error checkPerfCounters();

/// \p P measured by `perf stat` (the program \p Perf) on its command:
/// cycles (the cost), instructions and branch misses, user space only.
Measurement measurePerf(const ExecutorOptions &O, llvm::StringRef Perf,
                        const PreparedVariant &P);

} // namespace sweep
} // namespace keel

#endif
