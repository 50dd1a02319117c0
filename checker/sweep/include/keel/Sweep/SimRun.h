//===- keel/Sweep/SimRun.h - one valgrind run of a variant ------*- C++ -*-===//
//
// The sim backend's side of a variant: the valgrind command (cachegrind, or
// keel-sim with a variant map), its environment, and its output read back as
// a Measurement. The local engine (Engine.cpp) and Slurm's array tasks
// (Slurm.cpp) share these, so both measure a variant the same way.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_SWEEP_SIMRUN_H
#define KEEL_SWEEP_SIMRUN_H

#include "keel/Sweep/EngineOptions.h"
#include "keel/Sweep/Perturb.h"
#include "keel/Sweep/SimBackend.h"
#include "keel/SweepReport/Result.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <string>
#include <vector>

namespace keel {
namespace sweep {

/// The sim backend's tools.
struct SimTools {
  std::string Valgrind;
  /// keel-sim's VALGRIND_LIB directory ("" = keel-sim was not built). Set,
  /// cachegrind runs with it too, so both see the same client process.
  std::string KeelSimLib;
  bool KeelSim = false; ///< keel-sim counts; else cachegrind, per variant
  /// keel-sim's --frontend (MeasureOptions::Frontend), on every keel-sim run:
  /// the shared runs and the own runs alike.
  std::string Frontend;
  std::string Note;     ///< why --backend=sim measures with cachegrind
};

/// valgrind's argv (valgrind first) for one run of \p P: cachegrind, or
/// keel-sim on \p P's binary with the variants of \p MapFile ("" = alone).
std::vector<std::string> simRunArgv(const MeasureOptions &O, const SimTools &T,
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
Measurement simOwnMeasurement(const MeasureOptions &O, const SimTools &T,
                              const Variant &V, llvm::StringRef OutFile);

/// The measurements of \p V, one per geometry (Geometry, then
/// MoreGeometries), from one keel-sim run of its own binary.
std::vector<Measurement> simOwnMeasurements(const MeasureOptions &O,
                                            const SimTools &T, const Variant &V,
                                            llvm::StringRef OutFile);

/// Counters and per-function Ir as a measurement of \p V (its cost under
/// \p O's weights).
Measurement simCounts(const MeasureOptions &O, const Variant &V,
                      std::map<std::string, double> Counters,
                      std::map<std::string, uint64_t> FunctionIr);
/// The note of a run whose program forked or exec'd.
std::string processNote(const KeelSimOutput &K);
/// keel-sim's output in \p OutFile.
llvm::Expected<KeelSimOutput> readKeelSimOutput(llvm::StringRef OutFile);

/// Run the simulator on \p P's own binary and read its measurement.
Measurement measureSim(const EngineOptions &O, const SimTools &T,
                       const PreparedVariant &P);
/// keel-sim on \p P's own binary, every geometry of \p O.
std::vector<Measurement> measureSimAll(const EngineOptions &O, const SimTools &T,
                                       const PreparedVariant &P);

} // namespace sweep
} // namespace keel

#endif
