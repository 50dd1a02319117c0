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

#include "keel/Sweep/Grid.h"
#include "keel/Sweep/Perturb.h"
#include "keel/Sweep/Result.h"
#include "keel/Sweep/SimBackend.h"
#include "keel/Sweep/TimeBackend.h"

#include "llvm/Support/Error.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace keel {
namespace sweep {

struct EngineOptions {
  std::string Binary;
  std::vector<std::string> Args;
  std::optional<std::string> CompareBinary; ///< --compare: a second series
  /// sim (keel-sim: one run for every variant that is an address map of
  /// another; docs/keel-sim.md), cachegrind (one cachegrind run per
  /// variant), time, perf. Both sim and cachegrind give a result whose
  /// backend is "sim": the same counters, cost model and JSON.
  std::string Backend = "sim";
  Grid G;
  PerturbOptions Perturb;

  // sim
  CacheGeometry Geometry;     ///< explicit I1/D1/LL
  /// More geometries measured by the same sweep (layout-sweep's --I1 given
  /// more than once): runSweeps returns one SweepResult per geometry,
  /// Geometry's first. With keel-sim each run simulates every geometry, so
  /// each variant is built and run once; other backends run a sweep per
  /// geometry. runSweep measures Geometry alone.
  std::vector<CacheGeometry> MoreGeometries;
  /// The journal of each of MoreGeometries ("" or missing: none).
  std::vector<std::string> MoreJournalPaths;
  std::string GeometryPreset; ///< its name ("" when overridden)
  CostWeights Weights = defaultWeights();
  /// --cost=skylake|zen4: keel-sim's front-end model of this name
  /// (docs/frontend-model.md) counts too; "" = cachegrind's events only.
  /// Needs --backend=sim and keel-sim.
  std::string Frontend;

  // time
  TimeOptions Time;

  unsigned Jobs = 0;           ///< parallel variants (sim); 0 = all cores
  unsigned TimeoutSeconds = 0; ///< per variant run; 0 = none
  std::string Executor;        ///< --executor template with {cmd}, or "slurm"
  /// --executor=slurm (Slurm.h): words added to sbatch (partition, account,
  /// time, constraint), and the number of array tasks (0: one per variant).
  std::string SlurmArgs;
  unsigned SlurmTasks = 0;
  /// --exec-as: "fd" runs every variant's binary as /dev/fd/100 (one argv[0]
  /// and AT_EXECFN for all variants and series; the time backend keeps
  /// argv[0] = Binary), "path" by its own path in the work directory, ""
  /// picks fd, or path with an --executor template (descriptors do not
  /// travel to another machine; a Slurm task opens the file itself).
  std::string ExecAs;
  std::string JournalPath;     ///< "" = no journal
  bool Resume = false;
  bool OverwriteJournal = false;
  std::string WorkDir; ///< "" = a private temporary directory, removed after
  /// Relative spread of executed instructions tolerated in library and
  /// loader code (below: information; above: a note). The program's own
  /// functions differing always flags SweepResult::InstructionsDiffer; without
  /// per-function counts (time, perf) a total above it does.
  double InstructionTolerance = 1e-4;
  /// (finished, total) after every variant; called from worker threads
  /// under a lock.
  std::function<void(size_t, size_t)> Progress;
  /// (from the journal, total) once, before the first variant is measured:
  /// what --resume found, so progress and estimates count only the rest.
  std::function<void(size_t, size_t)> Started;
};

/// --backend=sim or --backend=cachegrind: the deterministic backend.
inline bool isSimBackend(llvm::StringRef Backend) {
  return Backend == "sim" || Backend == "cachegrind";
}

/// The sim backend's tools.
struct SimTools {
  std::string Valgrind;
  /// keel-sim's VALGRIND_LIB directory ("" = keel-sim was not built). Set,
  /// cachegrind runs with it too, so both see the same client process.
  std::string KeelSimLib;
  bool KeelSim = false; ///< keel-sim counts; else cachegrind, per variant
  /// keel-sim's --frontend (EngineOptions::Frontend), on every keel-sim run:
  /// the shared runs and the own runs alike.
  std::string Frontend;
  std::string Note;     ///< why --backend=sim measures with cachegrind
};

/// valgrind's argv (valgrind first) for one run of \p P: cachegrind, or
/// keel-sim on \p P's binary with the variants of \p MapFile ("" = alone).
std::vector<std::string> simRunArgv(const EngineOptions &O, const SimTools &T,
                                    const PreparedVariant &P,
                                    llvm::StringRef OutFile,
                                    llvm::StringRef MapFile = "");
/// \p P's environment, plus VALGRIND_LIB where keel-sim's directory exists.
std::vector<std::string> simRunEnv(const SimTools &T, const PreparedVariant &P);
/// A run started here or by a Slurm task names keel-sim's directory and the
/// stack or heap shim by descriptor (SimLibPath, ShimPath; P.MoreFds), as
/// --exec-as=fd names the binary: valgrind puts VALGRIND_LIB's path into the
/// program's LD_PRELOAD, beside the shim's, so with real paths the
/// program's stack and ld.so's work, and the counts, would move with where
/// Keel is installed (the build tree, /usr). Another executor runs the
/// command where these descriptors are not open: it keeps the paths.
void nameByDescriptor(const EngineOptions &O, const SimTools &T,
                      PreparedVariant &P);
/// The measurement of \p V from one run of its own binary (simRunArgv
/// without a map) that wrote \p OutFile.
Measurement simOwnMeasurement(const EngineOptions &O, const SimTools &T,
                              const Variant &V, llvm::StringRef OutFile);

/// The measurements of \p V, one per geometry (Geometry, then
/// MoreGeometries), from one keel-sim run of its own binary.
std::vector<Measurement> simOwnMeasurements(const EngineOptions &O,
                                            const SimTools &T, const Variant &V,
                                            llvm::StringRef OutFile);

/// The resolved --exec-as ("fd" or "path").
std::string execAsMode(const EngineOptions &O);

/// Check an --executor template: it must contain the word {cmd}.
llvm::Error checkExecutorTemplate(llvm::StringRef T);

/// Wrap a command for --executor: every word "{cmd}" becomes
/// `env -i ENV... ARGV...` (so the environment travels with the command),
/// "{dir}" the variant's directory. Without an executor, returns Argv.
llvm::Expected<std::vector<std::string>>
wrapForExecutor(llvm::StringRef Executor, llvm::ArrayRef<std::string> Argv,
                llvm::ArrayRef<std::string> Env, llvm::StringRef Dir);

/// Stable identity of a sweep for the journal (everything that changes what
/// a variant measures: binaries, arguments, backend, axis, geometry,
/// relink templates; not the grid or weights - the cost is recomputed from
/// the journal's counters).
std::string sweepFingerprint(const EngineOptions &O);

/// The perf backend's capability check: perf_event_open for cycles on this
/// process. UnavailableError (exit 3) when the machine has no counters.
llvm::Error checkPerfCounters();

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
