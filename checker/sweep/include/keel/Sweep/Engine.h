//===- keel/Sweep/Engine.h - perturb x measure x journal ----------*- C++ -*-===//
//
// runSweep() is the whole sweep as a library call (the CLI only parses
// options and prints): prepare every variant of the grid (Perturb.h), measure
// it with a backend (sim: keel-sim, one run for every variant that is an
// address map of another; cachegrind: one run per variant; time:
// TimeBackend.h; perf: perf_event counters), append it to the journal as soon as it finishes (Journal.h),
// and return a SweepResult sorted by variant. A variant that cannot be built,
// crashes, or exits non-zero is a failed Measurement, never a cost.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_SWEEP_ENGINE_H
#define KEEL_SWEEP_ENGINE_H

#include "keel/Sweep/EngineOptions.h"
#include "keel/SweepReport/Result.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace keel {
namespace sweep {

/// Run the sweep. Errors: bad options (InputError / plain error, exit 2),
/// missing valgrind / counters / heap shim (UnavailableError, exit 3), every
/// variant failing (the program itself is broken: exit 2, naming the first
/// failure).
llvm::Expected<SweepResult> runSweep(const EngineOptions &O);
/// Run the sweep for Geometry and each of MoreGeometries: one result each,
/// in that order, each as runSweep would give it for that geometry alone.
llvm::Expected<std::vector<SweepResult>> runSweeps(const EngineOptions &O);

/// Build (relink, or run llvm-bolt for) the first variant of \p O's base
/// series in a private directory that is removed afterwards, and return the
/// seconds it took: what each variant of a relinking axis costs on top of
/// its measurement (the automatic sweep's estimate). A relink that fails is
/// timed all the same (the sweep reports it); errors are for the machine.
llvm::Expected<double> timeOneVariantBuild(const EngineOptions &O);

/// How many heap allocations \p Binary (with \p O's arguments) makes: one
/// native run, in the environment of the heap axis' offset 0 (the heap shim
/// preloaded, shift 0) plus KEEL_HEAP_COUNT, in a private directory that is
/// removed afterwards. The shim counts every malloc, calloc, realloc and
/// aligned allocation it serves, so this is exactly what the heap axis
/// would move. std::nullopt when the run does not tell (it cannot start, is
/// killed, or leaves without exit(): the shim writes its count at exit);
/// errors are for the machine (no temporary directory).
llvm::Expected<std::optional<uint64_t>>
countHeapAllocations(const EngineOptions &O, llvm::StringRef Binary);

} // namespace sweep
} // namespace keel

#endif
