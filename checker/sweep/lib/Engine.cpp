//===- Engine.cpp - perturb x measure x journal ---------------------------===//
//
// runSweep() composes the phases, each in its own file: plan (Plan.cpp:
// check the options, list the variants, make the work directory), the
// backend (Backend.cpp: its tools, then building and measuring the variants
// still to do, here, through a template or on Slurm), the journal
// (SweepJournal.cpp: what an earlier run finished), and assemble
// (Assemble.cpp: a sorted SweepResult, the executed-instruction and
// code-moved checks). The probes the automatic sweep makes before a sweep
// (a trial relink, the heap's allocation count) are here too.
//
//===----------------------------------------------------------------------===//
#include "keel/Sweep/Engine.h"

#include "Assemble.h"
#include "Backend.h"
#include "KeelSimSweep.h"
#include "Plan.h"
#include "Recorder.h"
#include "SweepJournal.h"

#include "keel/Support/Diagnostics.h"
#include "keel/Support/OutputFile.h"
#include "keel/Support/PerfEvent.h"
#include "keel/Support/Process.h"
#include "keel/Support/Valgrind.h"
#include "keel/Sweep/Journal.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <set>
#include <unistd.h>

using namespace llvm;

namespace keel {
namespace sweep {

/// What every sweep sets up before any variant is built, in this order:
/// the binaries and perturbation options are checked before anything is
/// written (the --keep-dir directory included), then the work directory,
/// the perturber and the backend's tools.
struct SweepSetup {
  WorkDirGuard WD;
  std::unique_ptr<Perturber> P;
  std::unique_ptr<Backend> B;
};

static Error setUpSweep(const EngineOptions &O, SweepSetup &S) {
  std::vector<std::pair<std::string, std::string>> Binaries = {{"base", O.Binary}};
  if (O.CompareBinary)
    Binaries.push_back({"compare", *O.CompareBinary});
  if (Error E = Perturber::check(O.Perturb, Binaries))
    return E;
  if (Error E = makeWorkDir(O, S.WD))
    return E;
  Expected<std::unique_ptr<Perturber>> P =
      Perturber::create(O.Perturb, S.WD.Dir, Binaries, O.Args);
  if (!P)
    return P.takeError();
  S.P = std::move(*P);
  Expected<std::unique_ptr<Backend>> B = createBackend(O);
  if (!B)
    return B.takeError();
  S.B = std::move(*B);
  return Error::success();
}

Expected<double> timeOneVariantBuild(const EngineOptions &O) {
  std::vector<std::pair<std::string, std::string>> Binaries = {{"base", O.Binary}};
  if (O.CompareBinary)
    Binaries.push_back({"compare", *O.CompareBinary});
  if (Error E = Perturber::check(O.Perturb, Binaries))
    return std::move(E);
  WorkDirGuard WD;
  Expected<std::string> D = makePrivateTempDir("layout-sweep-trial");
  if (!D)
    return D.takeError();
  WD.Dir = *D;
  WD.Remove = true;
  Expected<std::unique_ptr<Perturber>> P =
      Perturber::create(O.Perturb, WD.Dir, Binaries, O.Args);
  if (!P)
    return P.takeError();
  auto Start = std::chrono::steady_clock::now();
  Expected<PreparedVariant> V =
      (*P)->prepare(Variant{"base", axisName(O.Perturb.Axis).str(), O.G.From},
                    0);
  if (!V)
    return V.takeError();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
      .count();
}

/// The allocations counted in a KEEL_HEAP_COUNT file: the sum of its "PID
/// COUNT" lines (one per process that exited normally), std::nullopt when
/// it holds none.
static std::optional<uint64_t> readHeapCount(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(Path);
  if (!B)
    return std::nullopt;
  SmallVector<StringRef, 4> Lines;
  (*B)->getBuffer().split(Lines, '\n', -1, /*KeepEmpty=*/false);
  std::optional<uint64_t> Sum;
  for (StringRef L : Lines) {
    uint64_t N;
    if (L.split(' ').second.trim().getAsInteger(10, N))
      return std::nullopt; // not the shim's line: do not guess
    Sum = Sum.value_or(0) + N;
  }
  return Sum;
}

Expected<std::optional<uint64_t>> countHeapAllocations(const EngineOptions &O,
                                                       StringRef Binary) {
  WorkDirGuard WD;
  Expected<std::string> D = makePrivateTempDir("layout-sweep-heapcount");
  if (!D)
    return D.takeError();
  WD.Dir = *D;
  WD.Remove = true;
  PerturbOptions PO = O.Perturb;
  PO.Axis = AxisKind::Heap;
  Expected<std::unique_ptr<Perturber>> P =
      Perturber::create(PO, WD.Dir, {{"base", Binary.str()}}, O.Args);
  if (!P)
    return P.takeError();
  Expected<Perturber::Plan> Pl =
      (*P)->describe(Variant{"base", axisName(AxisKind::Heap).str(), 0}, 0);
  if (!Pl)
    return Pl.takeError();
  std::string CountFile = WD.Dir + "/heap-count";
  RunOptions RO;
  RO.Env = Pl->Run.Env;
  RO.Env->push_back("KEEL_HEAP_COUNT=" + CountFile);
  RO.Stdin = "";
  RO.Stdout = WD.Dir + "/stdout";
  RO.Stderr = WD.Dir + "/stderr";
  RO.TimeoutSeconds = O.TimeoutSeconds;
  std::vector<std::string> Argv = {Binary.str()};
  Argv.insert(Argv.end(), O.Args.begin(), O.Args.end());
  Expected<RunResult> R = runProgram(Argv, RO);
  if (!R) {
    consumeError(R.takeError());
    return std::nullopt;
  }
  if (R->Crashed)
    return std::nullopt;
  return readHeapCount(CountFile);
}

/// A sweep a signal stopped (StopOnSignals): what the journal at \p Path
/// keeps of \p Total variants (\p Done), for the error that ends it. The
/// work directory goes with the guard as the error returns.
static Error stoppedSweep(int Sig, size_t Done, size_t Total, StringRef Path) {
  if (Path.empty())
    return make_error<InterruptedError>(
        Sig, formatv("stopped by {0} after {1} of {2} variants; no journal "
                     "keeps them (--journal=FILE or --json=FILE makes a sweep "
                     "resumable)",
                     signalName(Sig), Done, Total)
                 .str());
  return make_error<InterruptedError>(
      Sig, formatv("stopped by {0}: {1} of {2} variants are in the journal {3}",
                   signalName(Sig), Done, Total, Path)
               .str());
}

/// Several geometries, keel-sim: every variant built once, every keel-sim
/// run simulates all geometries, one recorder (journal) per geometry.
static Expected<std::vector<SweepResult>> runTogether(const EngineOptions &O) {
  size_t NG = 1 + O.MoreGeometries.size();
  std::vector<EngineOptions> Os;
  for (size_t G = 0; G < NG; ++G)
    Os.push_back(forGeometry(O, G));
  std::vector<int64_t> Offsets = O.G.offsets();
  for (const EngineOptions &Og : Os)
    if (Error E = checkOptions(Og, Offsets))
      return std::move(E);
  SweepSetup S;
  if (Error E = setUpSweep(O, S))
    return std::move(E);

  std::vector<Variant> All = gridVariants(O, O.Perturb.Axis, Offsets);
  std::vector<std::unique_ptr<Journal>> Js(NG);
  std::vector<std::unique_ptr<Recorder>> Recs;
  std::map<Variant, size_t> DoneIn; // how many geometries have the variant
  for (size_t G = 0; G < NG; ++G) {
    std::vector<Measurement> Done;
    Expected<std::unique_ptr<Journal>> JO =
        openJournal(Os[G], sweepFingerprint(Os[G]), Os[G], All, Done);
    if (!JO)
      return JO.takeError();
    Js[G] = std::move(*JO);
    std::set<Variant> Have;
    for (const Measurement &M : Done)
      if (Have.insert(M.V).second)
        ++DoneIn[M.V];
    Recs.push_back(std::make_unique<Recorder>(Os[G], Js[G].get(),
                                              std::move(Done), All.size()));
    Recs.back()->skip(std::move(Have));
  }
  Todo Work;
  for (unsigned I = 0; I < All.size(); ++I)
    if (DoneIn[All[I]] < NG)
      Work.push_back({I, All[I]});
  if (O.Started)
    O.Started(All.size() - Work.size(), All.size());
  std::vector<Recorder *> Ptrs;
  for (auto &R : Recs)
    Ptrs.push_back(R.get());
  measureWithKeelSim(O, *S.P, *S.B->simTools(), S.WD.Dir, Ptrs, Work);
  if (int Sig = stopSignal())
    return stoppedSweep(Sig, Recs[0]->done(), All.size(), Os[0].JournalPath);
  std::vector<SweepResult> Out;
  for (size_t G = 0; G < NG; ++G) {
    if (Error E = Recs[G]->takeError())
      return std::move(E);
    SweepResult R;
    R.SimTool = "keel-sim";
    noteOwnRuns(O.Perturb.Axis, O, R);
    const EngineOptions &Og = Os[G];
    if (Error E =
            finishResult(Og, Og.Perturb, Og, Og, Recs[G]->takeResults(),
                         Recs[G]->takeBinaries(), Recs[G]->takeBuilt(), R))
      return std::move(E);
    Out.push_back(std::move(R));
  }
  return Out;
}

Expected<std::vector<SweepResult>> runSweeps(const EngineOptions &O) {
  std::vector<SweepResult> Out;
  if (!O.MoreGeometries.empty() && O.Backend == BackendKind::Sim &&
      O.Executor != ExecutorKind::Slurm &&
      !O.KeelSimLib.empty())
    return runTogether(O);
  for (size_t G = 0; G <= O.MoreGeometries.size(); ++G) {
    Expected<SweepResult> R = runSweep(forGeometry(O, G));
    if (!R)
      return R.takeError();
    Out.push_back(std::move(*R));
  }
  return Out;
}

Expected<SweepResult> runSweep(const EngineOptions &O) {
  if (!O.MoreGeometries.empty())
    return runSweep(forGeometry(O, 0));
  // Check everything the user gave before any variant is built.
  std::vector<int64_t> Offsets = O.G.offsets();
  if (Error E = checkOptions(O, Offsets))
    return std::move(E);
  SweepSetup S;
  if (Error E = setUpSweep(O, S))
    return std::move(E);

  // Journal: what a killed sweep finished is not measured again.
  std::vector<Variant> All = gridVariants(O, O.Perturb.Axis, Offsets);
  std::vector<Measurement> Done;
  Expected<std::unique_ptr<Journal>> JO =
      openJournal(O, sweepFingerprint(O), O, All, Done);
  if (!JO)
    return JO.takeError();
  std::unique_ptr<Journal> J = std::move(*JO);
  std::set<Variant> Finished;
  for (const Measurement &M : Done)
    Finished.insert(M.V);
  Todo Work;
  for (unsigned I = 0; I < All.size(); ++I)
    if (!Finished.count(All[I]))
      Work.push_back({I, All[I]});

  // Measure what is left.
  if (O.Started)
    O.Started(Done.size(), All.size());
  Recorder Rec(O, J.get(), std::move(Done), All.size());
  SweepResult R;
  S.B->measure(*S.P, S.WD, Work, Rec, R);
  if (int Sig = stopSignal()) {
    consumeError(Rec.takeError());
    return stoppedSweep(Sig, Rec.done(), All.size(), O.JournalPath);
  }
  if (Error E = Rec.takeError())
    return std::move(E);

  S.B->describe(R);
  if (Error E = finishResult(O, O.Perturb, O, O, Rec.takeResults(),
                             Rec.takeBinaries(), Rec.takeBuilt(), R))
    return std::move(E);
  return R;
}

} // namespace sweep
} // namespace keel
