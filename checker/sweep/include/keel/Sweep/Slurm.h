//===- keel/Sweep/Slurm.h - a whole sweep as one Slurm job array -*- C++ -*-===//
//
// `layout-sweep --executor=slurm` prepares every variant here (relinks run on
// this machine, in the work directory, which the nodes must see: a shared
// filesystem), writes the cachegrind commands as a task list, and submits ONE
// job array (`sbatch --parsable --array=0-N[%K]`). Each array task runs
// `layout-sweep --slurm-task TASKFILE` (argv, from a generated two-line
// script whose words are quoted), which runs its variants' commands and
// writes one status file per variant. This side polls squeue, prints task
// counts (pending, running, done) when they change, and turns every status
// file into a Measurement exactly as a local run does (same parser, same
// cost), which the engine journals at once.
//
// A task that fails, is cancelled, preempted or lost leaves its variants
// unmeasured (nothing goes to the journal for them): the sweep then stops
// with an error naming the task and its state, and `--resume` submits an
// array of only the missing variants. When no task measured anything, the
// error carries the scheduler's state and reason for the first task.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_SWEEP_SLURM_H
#define KEEL_SWEEP_SLURM_H

#include "keel/Support/Process.h" // shellQuote
#include "keel/Sweep/EngineOptions.h"
#include "keel/Sweep/Perturb.h"
#include "keel/Sweep/SimRun.h"
#include "keel/SweepReport/Result.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <utility>

namespace keel {
namespace sweep {

/// Where finished measurements go (the engine's recorder).
struct SlurmSink {
  std::function<void(Measurement)> Record;
  /// A variant's binary of a series, for its symbols.
  std::function<void(llvm::StringRef Series, llvm::StringRef Path)> BinarySeen;
};

/// Check the options of a Slurm sweep before anything is built: the sim
/// backend only, --slurm-args splits into words and submits no array of its
/// own.
llvm::Error checkSlurmOptions(const EngineOptions &O);

/// Prepare the variants of \p Work, submit them as one job array, wait, and
/// hand every measured (or failed-to-run) variant to \p Sink. Errors:
/// sbatch refusing the job (its message), a task ending without measuring
/// its variants, sbatch/squeue missing (UnavailableError).
llvm::Error measureOnSlurm(const EngineOptions &O, Perturber &P,
                           const SimTools &Sim, llvm::StringRef WorkDir,
                           llvm::ArrayRef<std::pair<unsigned, Variant>> Work,
                           const SlurmSink &Sink);

/// The array task's side (`layout-sweep --slurm-task FILE`): run the
/// commands of task $SLURM_ARRAY_TASK_ID of \p TaskFile and write a status
/// file for each.
llvm::Error runSlurmTask(llvm::StringRef TaskFile);

} // namespace sweep
} // namespace keel

#endif
