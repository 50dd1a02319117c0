//===- keel/Sweep/EngineOptions.h - what a sweep is asked -------*- C++ -*-===//
//
// The options of one sweep (Engine.h's runSweep), apart from the engine so
// the pieces it composes (Executor.h, SimRun.h, Slurm.h) can read them
// without including the engine that includes them: one struct per phase
// (the target, planning, measuring, where commands run, the journal,
// assembling the result, progress), which EngineOptions puts together.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_SWEEP_ENGINEOPTIONS_H
#define KEEL_SWEEP_ENGINEOPTIONS_H

#include "keel/Sweep/Grid.h"
#include "keel/Sweep/Perturb.h"
#include "keel/Sweep/SimBackend.h"
#include "keel/Sweep/TimeBackend.h"
#include "keel/SweepReport/Kinds.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace keel {
namespace sweep {

/// --executor: where each variant's command runs. Local: here, in parallel;
/// Template: through ExecutorOptions::ExecutorTemplate (`ssh node {cmd}`);
/// Slurm: one job array of the whole sweep (Slurm.h).
enum class ExecutorKind { Local, Template, Slurm };

/// --executor=VALUE: "" is Local, "slurm" Slurm, anything else a template
/// (checked when the sweep starts: it must hold the word {cmd}).
ExecutorKind parseExecutorKind(llvm::StringRef Value);

/// What is swept: the program, its arguments and the --compare series
/// (every phase reads it).
struct SweepTarget {
  std::string Binary;
  std::vector<std::string> Args;
  std::optional<std::string> CompareBinary; ///< --compare: a second series
};

/// Planning the variants (Plan.h): the offsets and where the variants are
/// built. The axis is PerturbOptions::Axis.
struct PlanOptions {
  Grid G;
  std::string WorkDir; ///< "" = a private temporary directory, removed after
};

/// Measuring a variant: the backend and what it counts (Backend.h, SimRun.h,
/// PerfRun.h, TimeBackend.h); the journal's costs are recomputed with
/// Weights too.
struct MeasureOptions {
  /// sim (keel-sim: one run for every variant that is an address map of
  /// another; docs/keel-sim.md), cachegrind (one cachegrind run per
  /// variant), time, perf. Both sim and cachegrind give a result whose
  /// backend is "sim": the same counters, cost model and JSON.
  BackendKind Backend = BackendKind::Sim;

  // sim
  CacheGeometry Geometry;     ///< explicit I1/D1/LL
  /// More geometries measured by the same sweep (layout-sweep's --I1 given
  /// more than once): runSweeps returns one SweepResult per geometry,
  /// Geometry's first. With keel-sim each run simulates every geometry, so
  /// each variant is built and run once; other backends run a sweep per
  /// geometry. runSweep measures Geometry alone.
  std::vector<CacheGeometry> MoreGeometries;
  std::string GeometryPreset; ///< its name ("" when overridden)
  CostWeights Weights = defaultWeights();
  /// --cost=skylake|zen4: keel-sim's front-end model of this name
  /// (docs/frontend-model.md) counts too; "" = cachegrind's events only.
  /// Needs --backend=sim and keel-sim.
  std::string Frontend;
  /// Found by the tool, not by the library (which cannot know the program
  /// it is linked into): keel-sim's VALGRIND_LIB directory (findKeelSimLib;
  /// "" = keel-sim is not built).
  std::string KeelSimLib;

  // time
  TimeOptions Time;
};

/// Where each variant's command runs (Executor.h, Slurm.h), how many at a
/// time and for how long.
struct ExecutorOptions {
  unsigned Jobs = 0;           ///< parallel variants (sim); 0 = all cores
  unsigned TimeoutSeconds = 0; ///< per variant run; 0 = none
  ExecutorKind Executor = ExecutorKind::Local;
  std::string ExecutorTemplate; ///< ExecutorKind::Template's, with {cmd}
  /// --executor=slurm (Slurm.h): words added to sbatch (partition, account,
  /// time, constraint), and the number of array tasks (0: one per variant).
  std::string SlurmArgs;
  unsigned SlurmTasks = 0;
  /// Found by the tool: the program a Slurm array task runs as
  /// `PROGRAM --slurm-task FILE` (layout-sweep's own path).
  std::string SlurmTaskProgram;
  /// --exec-as: "fd" runs every variant's binary as /dev/fd/100 (one argv[0]
  /// and AT_EXECFN for all variants and series; the time backend keeps
  /// argv[0] = Binary), "path" by its own path in the work directory, ""
  /// picks fd, or path with an --executor template (descriptors do not
  /// travel to another machine; a Slurm task opens the file itself).
  std::string ExecAs;
};

/// The journal (Journal.h, SweepJournal.h): what survives a kill.
struct JournalOptions {
  std::string JournalPath;     ///< "" = no journal
  /// The journal of each of MeasureOptions::MoreGeometries ("" or missing:
  /// none).
  std::vector<std::string> MoreJournalPaths;
  bool Resume = false;
  bool OverwriteJournal = false;
};

/// Assembling the result (Assemble.h): its checks.
struct AssembleOptions {
  /// Relative spread of executed instructions tolerated in library and
  /// loader code (below: information; above: a note). The program's own
  /// functions differing always flags SweepResult::InstructionsDiffer; without
  /// per-function counts (time, perf) a total above it does.
  double InstructionTolerance = 1e-4;
};

/// What the sweep tells its caller while it runs.
struct ProgressHooks {
  /// (finished, total) after every variant; called from worker threads
  /// under a lock.
  std::function<void(size_t, size_t)> Progress;
  /// (from the journal, total) once, before the first variant is measured:
  /// what --resume found, so progress and estimates count only the rest.
  std::function<void(size_t, size_t)> Started;
};

/// Everything runSweep is asked: the part of each phase, which the tool's
/// option parsing fills; runSweep hands each phase its part(s) only. Building
/// the variants reads Perturb (Perturb.h).
struct EngineOptions : SweepTarget,
                       PlanOptions,
                       MeasureOptions,
                       ExecutorOptions,
                       JournalOptions,
                       AssembleOptions,
                       ProgressHooks {
  PerturbOptions Perturb;
};

/// The resolved --exec-as ("fd" or "path").
std::string execAsMode(const ExecutorOptions &O);

/// Stable identity of a sweep for the journal (everything that changes what
/// a variant measures: binaries, arguments, backend, axis, geometry,
/// relink templates; not the grid or weights - the cost is recomputed from
/// the journal's counters).
std::string sweepFingerprint(const EngineOptions &O);

} // namespace sweep
} // namespace keel

#endif
