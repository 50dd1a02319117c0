//===- Backend.h - how a sweep measures its variants ------------*- C++ -*-===//
//
// One interface for everything --backend changes (BOLT's ProfileReaderBase,
// lld's CGProfileSortKind: one kind parsed at the option boundary, one
// implementation per kind, chosen once): the tools a backend needs (found
// before any variant is built: a missing one is UnavailableError, exit 3),
// how it prepares and measures the variants still to do, and what it adds
// to the result (the simulator used, the time backend's noise floor). The
// engine composes a Backend with the executor it was given
// (ExecutorOptions::Executor: local, a command template, or Slurm's job
// array) and never asks which backend it has.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_SWEEP_LIB_BACKEND_H
#define KEEL_SWEEP_LIB_BACKEND_H

#include "Plan.h"
#include "Recorder.h"
#include "keel/Sweep/EngineOptions.h"
#include "keel/Sweep/Perturb.h"
#include "keel/Sweep/SimRun.h"
#include "keel/SweepReport/Result.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>

namespace keel {
namespace sweep {

class Backend {
public:
  virtual ~Backend();
  /// Prepare (build) and measure every variant of \p Work with \p P in the
  /// work directory \p WD, handing each measurement to \p Rec; what fails
  /// the sweep rather than a variant goes to Rec.fail. What the backend
  /// learns about the machine (time: the noise floor and its notes) goes
  /// into \p R.
  virtual void measure(Perturber &P, WorkDirGuard &WD, const Todo &Work,
                       Recorder &Rec, SweepResult &R) = 0;
  /// After every variant is measured: how (the simulator, and why it is
  /// not keel-sim).
  virtual void describe(SweepResult &R) const {}
  /// The simulating backends' tools (keel-sim's runs of several geometries
  /// at once need them); nullptr for the others.
  virtual const SimTools *simTools() const { return nullptr; }
};

/// The backend of O.Backend, its tools found.
llvm::Expected<std::unique_ptr<Backend>> createBackend(const EngineOptions &O);

} // namespace sweep
} // namespace keel

#endif
