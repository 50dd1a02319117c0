//===- Backend.cpp - sim, cachegrind, time and perf -----------------------===//
//
// One Backend per --backend kind (Backend.h), and the pieces they share:
// the parallel pool of one run per variant, --exec-as.
//
//===----------------------------------------------------------------------===//
#include "Backend.h"

#include "Assemble.h"
#include "KeelSimSweep.h"

#include "keel/Support/Diagnostics.h"
#include "keel/Support/Process.h"
#include "keel/Support/Valgrind.h"
#include "keel/Sweep/Executor.h"
#include "keel/Sweep/PerfRun.h"
#include "keel/Sweep/Slurm.h"
#include "keel/Sweep/TimeBackend.h"

#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"

using namespace llvm;

namespace keel {
namespace sweep {

Backend::~Backend() = default;

namespace {

/// Prepare and measure each variant as one job on a pool of \p Jobs
/// threads (cachegrind one run per variant; perf one at a time).
void measureInParallel(
    const ExecutorOptions &O, Perturber &P, unsigned Jobs, const Todo &Work,
    Recorder &Rec, function_ref<Measurement(const PreparedVariant &)> Measure) {
  DefaultThreadPool Pool(hardware_concurrency(Jobs));
  for (const auto &[Index, V] : Work) {
    Pool.async([&, Index = Index, V = V] {
      Expected<PreparedVariant> PV = P.prepare(V, Index);
      if (!PV)
        return Rec.fail(PV.takeError());
      if (!PV->Failure.empty())
        return Rec.record(failedMeasurement(V, PV->Failure));
      if (!PV->Argv.empty()) {
        Rec.binarySeen(V.Series, PV->Argv[0]);
        Rec.variantBuilt(V, PV->Argv[0]);
      }
      // valgrind and perf pass their command's path on as argv[0].
      applyExecAs(O, *PV, VariantExecPath);
      Rec.record(Measure(*PV));
    });
  }
  Pool.wait();
}

/// time: interleaved rounds need every variant built first; the A/A copies
/// are of the first variant's binary (\p O's, \p Time's options, \p X's
/// --exec-as and timeout).
Error measureWithTime(const SweepTarget &O, const TimeOptions &Time,
                      const ExecutorOptions &X, Perturber &P, StringRef WorkDir,
                      const Todo &Work, Recorder &Rec, SweepResult &R) {
  std::vector<TimedCommand> Cmds;
  for (const auto &[Index, V] : Work) {
    Expected<PreparedVariant> PV = P.prepare(V, Index);
    if (!PV)
      return PV.takeError();
    if (!PV->Failure.empty()) {
      Rec.record(failedMeasurement(V, PV->Failure));
      continue;
    }
    if (!PV->Argv.empty())
      Rec.variantBuilt(V, PV->Argv[0]);
    // Executed as /dev/fd/N directly, so argv[0] can stay the user's path.
    applyExecAs(X, *PV, O.Binary);
    Cmds.push_back(TimedCommand{V, PV->Argv, PV->Env, PV->ExecFile});
  }
  if (Cmds.empty())
    return Error::success();
  TimeOptions TO = Time;
  if (TO.TimeoutSeconds == 0)
    TO.TimeoutSeconds = X.TimeoutSeconds;
  if (TO.WorkDir.empty())
    TO.WorkDir = (WorkDir + "/time").str();
  Expected<TimeResult> TR = TimeBackend(TO).measure(Cmds, Cmds.front());
  if (!TR)
    return TR.takeError();
  for (Measurement &M : TR->Ms)
    Rec.record(std::move(M));
  R.NoiseFloor = std::move(TR->NoiseFloor);
  R.Notes = std::move(TR->Notes);
  return Error::success();
}

/// sim and cachegrind: keel-sim's shared runs, or one valgrind run per
/// variant here or through a template, or Slurm's job array.
class SimulatingBackend final : public Backend {
public:
  SimulatingBackend(const EngineOptions &O, SimTools T)
      : O(O), T(std::move(T)) {}

  void measure(Perturber &P, WorkDirGuard &WD, const Todo &Work, Recorder &Rec,
               SweepResult &R) override {
    switch (O.Executor) {
    case ExecutorKind::Slurm:
      return measureOnSlurm(P, WD, Work, Rec);
    case ExecutorKind::Local:
    case ExecutorKind::Template:
      if (T.KeelSim)
        return measureWithKeelSim(O, P, T, WD.Dir, {&Rec}, Work);
      return measureInParallel(O, P, O.Jobs, Work, Rec,
                               [&](const PreparedVariant &PV) {
                                 return measureSim(O, T, PV);
                               });
    }
  }

  void describe(SweepResult &R) const override {
    R.SimTool = T.KeelSim ? "keel-sim" : "cachegrind";
    if (!T.Note.empty())
      R.Notes.push_back(T.Note);
    if (T.KeelSim)
      noteOwnRuns(O.Perturb.Axis, O, R);
  }

  const SimTools *simTools() const override { return &T; }

private:
  void measureOnSlurm(Perturber &P, WorkDirGuard &WD, const Todo &Work,
                      Recorder &Rec) {
    SlurmSink Sink{[&](Measurement M) { Rec.record(std::move(M)); },
                   [&](StringRef S, StringRef B) { Rec.binarySeen(S, B); }};
    if (Error E = sweep::measureOnSlurm(O, P, T, WD.Dir, Work, Sink)) {
      // The message names the tasks' task-N.out files in the work
      // directory: they must still be there when the user reads it.
      if (WD.Remove && !E.isA<UnavailableError>() && !stopSignal()) {
        WD.Remove = false;
        E = makeError("{0} (the work directory {1} is kept for its files; "
                      "remove it when done)",
                      toString(std::move(E)), WD.Dir);
      }
      Rec.fail(std::move(E));
    }
  }

  const EngineOptions &O;
  SimTools T;
};

/// time: every variant built first, then interleaved timed rounds with A/A
/// copies (TimeBackend.h).
class TimedBackend final : public Backend {
public:
  explicit TimedBackend(const EngineOptions &O) : O(O) {}
  void measure(Perturber &P, WorkDirGuard &WD, const Todo &Work, Recorder &Rec,
               SweepResult &R) override {
    if (Error E = measureWithTime(O, O.Time, O, P, WD.Dir, Work, Rec, R))
      Rec.fail(std::move(E));
  }

private:
  const EngineOptions &O;
};

/// perf: perf stat's counters, one variant at a time (counts need quiet).
class PerfBackend final : public Backend {
public:
  PerfBackend(const ExecutorOptions &O, std::string Perf)
      : O(O), Perf(std::move(Perf)) {}
  void measure(Perturber &P, WorkDirGuard &WD, const Todo &Work, Recorder &Rec,
               SweepResult &R) override {
    measureInParallel(O, P, /*Jobs=*/1, Work, Rec,
                      [&](const PreparedVariant &PV) {
                        return measurePerf(O, Perf, PV);
                      });
  }

private:
  const ExecutorOptions &O;
  std::string Perf;
};

/// The simulating backends' tools; a missing one is the machine's limit.
Expected<std::unique_ptr<Backend>>
createSimulatingBackend(const EngineOptions &O) {
  SimTools T;
  T.KeelSimLib = O.KeelSimLib;
  if (!O.Frontend.empty() && T.KeelSimLib.empty())
    return make_error<UnavailableError>(
        formatv("--cost={0} measures with keel-sim, which is not built here "
                "(no keel-sim-amd64-linux in $KEEL_SIM_LIB or in lib/keel-sim "
                "beside layout-sweep; it needs valgrind's tool headers)",
                O.Frontend)
            .str());
  Expected<std::string> V = findValgrind(ValgrindLauncher::Binary);
  if (!V)
    return V.takeError();
  T.Valgrind = *V;
  T.KeelSim = O.Backend == BackendKind::Sim && !T.KeelSimLib.empty();
  if (T.KeelSim)
    T.Frontend = O.Frontend;
  if (O.Backend == BackendKind::Sim && !T.KeelSim)
    T.Note = "keel-sim is not built here (no keel-sim-amd64-linux in "
             "$KEEL_SIM_LIB or in lib/keel-sim beside layout-sweep): "
             "--backend=sim measured with cachegrind, one run per "
             "variant";
  return std::make_unique<SimulatingBackend>(O, std::move(T));
}

} // namespace

Expected<std::unique_ptr<Backend>> createBackend(const EngineOptions &O) {
  switch (O.Backend) {
  case BackendKind::Sim:
  case BackendKind::Cachegrind:
    return createSimulatingBackend(O);
  case BackendKind::Time:
    return std::make_unique<TimedBackend>(O);
  case BackendKind::Perf: {
    if (Error E = checkPerfCounters())
      return std::move(E);
    Expected<std::string> P = findProgram("perf");
    if (!P)
      return P.takeError();
    return std::make_unique<PerfBackend>(O, *P);
  }
  }
  llvm_unreachable("unknown BackendKind");
}

} // namespace sweep
} // namespace keel
