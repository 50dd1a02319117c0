//===- SimRun.cpp - one valgrind run of a variant -------------------------===//
//
// The sim backend's commands (cachegrind, or keel-sim with a variant map)
// and how their output becomes a Measurement, shared by the local engine
// (Engine.cpp) and Slurm's array tasks (Slurm.cpp).
//
//===----------------------------------------------------------------------===//
#include "keel/Sweep/SimRun.h"

#include "keel/Support/Diagnostics.h"
#include "keel/Support/OutputFile.h"
#include "keel/Support/Valgrind.h"
#include "keel/Sweep/Executor.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

#include <cstring>

using namespace llvm;

namespace keel {
namespace sweep {

std::vector<std::string> simRunArgv(const MeasureOptions &O, const SimTools &T,
                                    const PreparedVariant &P, StringRef OutFile,
                                    StringRef MapFile) {
  std::string Log = P.Dir + "/valgrind.log";
  std::vector<CacheGeometry> Gs = {O.Geometry};
  Gs.insert(Gs.end(), O.MoreGeometries.begin(), O.MoreGeometries.end());
  std::vector<std::string> Args =
      T.KeelSim ? keelSimArgs(Gs, T.Frontend, OutFile, Log, MapFile)
                : cachegrindArgs(O.Geometry, OutFile, Log);
  // Both start with "--tool=NAME".
  ValgrindCommand C;
  C.Tool = StringRef(Args.front()).drop_front(strlen("--tool=")).str();
  C.ToolOptions.assign(std::next(Args.begin()), Args.end());
  C.Program = P.Argv;
  return valgrindArgv(T.Valgrind, C);
}

std::vector<std::string> simRunEnv(const SimTools &T, const PreparedVariant &P) {
  std::vector<std::string> Env = P.Env;
  if (!T.KeelSimLib.empty()) {
    llvm::erase_if(Env, [](const std::string &E) {
      return StringRef(E).starts_with("VALGRIND_LIB=");
    });
    Env.push_back("VALGRIND_LIB=" + T.KeelSimLib);
  }
  return Env;
}

/// Counters and per-function Ir as a measurement of \p V.
Measurement simCounts(const MeasureOptions &O, const Variant &V,
                      std::map<std::string, double> Counters,
                      std::map<std::string, uint64_t> FunctionIr) {
  Measurement M;
  M.V = V;
  M.Counters = std::move(Counters);
  M.FunctionInstructions = std::move(FunctionIr);
  M.Cost = costOf(M.Counters, O.Weights);
  M.Instructions = static_cast<uint64_t>(M.Counters["Ir"]);
  return M;
}

/// The note of a run whose program forked or exec'd.
std::string processNote(const KeelSimOutput &K) {
  return formatv("the program forks or execs ({0} fork{1}, {2} exec{3}): "
                 "keel-sim (like cachegrind) counts only its first process, "
                 "so each variant ran on its own binary",
                 K.Forks, K.Forks == 1 ? "" : "s", K.Execs,
                 K.Execs == 1 ? "" : "s")
      .str();
}

/// cachegrind's counters and per-function Ir in \p OutFile as the
/// measurement of \p V.
static Measurement cachegrindMeasurement(const MeasureOptions &O,
                                         const Variant &V, StringRef OutFile) {
  Expected<std::string> Text = readWholeFile(OutFile);
  if (!Text)
    return failedMeasurement(V, "no cachegrind result: " + toString(Text.takeError()));
  Expected<std::map<std::string, double>> C =
      parseCachegrindText(*Text, OutFile);
  if (!C)
    return failedMeasurement(V, "no cachegrind result: " + toString(C.takeError()));
  return simCounts(O, V, std::move(*C), cachegrindFunctionIr(*Text));
}

/// keel-sim's output in \p OutFile.
Expected<KeelSimOutput> readKeelSimOutput(StringRef OutFile) {
  Expected<std::string> Text = readWholeFile(OutFile);
  if (!Text)
    return Text.takeError();
  return parseKeelSimText(*Text, OutFile);
}

/// One geometry's \p Counters of keel-sim's output \p K as the measurement
/// of \p V (with a note when the program forked or exec'd).
static Measurement keelSimMeasurement(const MeasureOptions &O, const Variant &V,
                                      const KeelSimOutput &K,
                                      std::map<std::string, double> Counters) {
  Measurement M = simCounts(O, V, std::move(Counters), K.FunctionIr);
  if (K.Forks || K.Execs)
    M.Fallback = processNote(K);
  return M;
}

Measurement simOwnMeasurement(const MeasureOptions &O, const SimTools &T,
                              const Variant &V, StringRef OutFile) {
  if (!T.KeelSim)
    return cachegrindMeasurement(O, V, OutFile);
  Expected<KeelSimOutput> K = readKeelSimOutput(OutFile);
  if (!K)
    return failedMeasurement(V, "no keel-sim result: " + toString(K.takeError()));
  return keelSimMeasurement(O, V, *K, std::move(K->Variants[0].Counters));
}

std::vector<Measurement> simOwnMeasurements(const MeasureOptions &O,
                                            const SimTools &T, const Variant &V,
                                            StringRef OutFile) {
  size_t NG = 1 + O.MoreGeometries.size();
  if (NG == 1)
    return {simOwnMeasurement(O, T, V, OutFile)};
  Expected<KeelSimOutput> K = readKeelSimOutput(OutFile);
  if (!K)
    return std::vector<Measurement>(
        NG, failedMeasurement(V, "no keel-sim result: " + toString(K.takeError())));
  if (K->Variants[0].ByGeometry.size() != NG)
    return std::vector<Measurement>(
        NG, failedMeasurement(V, formatv("no keel-sim result: {0} geometries, expected {1}",
                              K->Variants[0].ByGeometry.size(), NG)
                          .str()));
  std::vector<Measurement> Ms;
  for (size_t G = 0; G < NG; ++G)
    Ms.push_back(keelSimMeasurement(O, V, *K, K->Variants[0].ByGeometry[G]));
  return Ms;
}

void nameByDescriptor(const EngineOptions &O, const SimTools &T,
                      PreparedVariant &P) {
  if (O.Executor == ExecutorKind::Template)
    return;
  for (std::string &E : P.Env) {
    StringRef Value = E;
    if (!T.KeelSimLib.empty() && Value.consume_front("VALGRIND_LIB=") &&
        Value == T.KeelSimLib) {
      P.MoreFds.push_back({SimLibFd, T.KeelSimLib});
      E = std::string("VALGRIND_LIB=") + SimLibPath;
    } else if (Value.consume_front("LD_PRELOAD=") && !Value.empty() &&
               (Value == O.Perturb.StackShim || Value == O.Perturb.HeapShim) &&
               llvm::none_of(P.MoreFds, [](const auto &F) {
                 return F.first == ShimFd;
               })) {
      P.MoreFds.push_back({ShimFd, Value.str()});
      E = std::string("LD_PRELOAD=") + ShimPath;
    }
  }
}

/// Run the simulator on \p P's own binary, writing its counts to \p OutFile
/// (removed first).
static RunOutcome runSimulator(const EngineOptions &O, const SimTools &T,
                        const PreparedVariant &P, StringRef OutFile) {
  sys::fs::remove(OutFile);
  PreparedVariant Run = P;
  Run.Env = simRunEnv(T, P);
  nameByDescriptor(O, T, Run);
  return runVariantCommand(O, Run, simRunArgv(O, T, P, OutFile),
                           P.Dir + "/stderr");
}

Measurement measureSim(const EngineOptions &O, const SimTools &T,
                       const PreparedVariant &P) {
  std::string OutFile =
      P.Dir + (T.KeelSim ? "/keel-sim.out" : "/cachegrind.out");
  RunOutcome R = runSimulator(O, T, P, OutFile);
  if (R.Failed)
    return failedMeasurement(P.V, R.Reason);
  return simOwnMeasurement(O, T, P.V, OutFile);
}

/// keel-sim on \p P's own binary, every geometry of \p O.
std::vector<Measurement> measureSimAll(const EngineOptions &O, const SimTools &T,
                                       const PreparedVariant &P) {
  std::string OutFile = P.Dir + "/keel-sim.out";
  RunOutcome R = runSimulator(O, T, P, OutFile);
  if (R.Failed)
    return std::vector<Measurement>(1 + O.MoreGeometries.size(),
                                    failedMeasurement(P.V, R.Reason));
  return simOwnMeasurements(O, T, P.V, OutFile);
}

} // namespace sweep
} // namespace keel
