//===- AutoSweep.cpp - run the automatic sweep of `layout-sweep ./bin` ----===//
#include "keel/Sweep/AutoSweep.h"

#include "keel/Support/Diagnostics.h"
#include "keel/Support/OutputFile.h"
#include "keel/Support/Process.h"
#include "keel/Sweep/Auto.h"
#include "keel/Sweep/DryRun.h"
#include "keel/Sweep/Perturb.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/WithColor.h"

#include <chrono>
#include <cmath>
#include <map>
#include <mutex>
#include <thread>

using namespace llvm;

namespace keel {
namespace sweep {

namespace {

/// Progress of the automatic sweep: the estimate after the first round of
/// variants (and a trial relink when code or data are swept), then a
/// terminal line (or, when the stream is not a terminal, one line per
/// finished axis).
struct AutoProgress {
  raw_ostream &OS;
  StringRef Tool;
  bool Terminal;
  size_t Total = 0, Before = 0; ///< all variants; those of finished axes
  size_t Rebuilt = 0;           ///< variants relinked (or BOLTed) first
  std::optional<double> BuildSeconds; ///< one trial relink, when Rebuilt
  std::string BuildWhat;        ///< "relink", "llvm-bolt run"
  unsigned Parallel = 1;
  std::string Axis;
  bool Estimated = false;
  bool Resume = false;
  /// Variants the journals had (the axes started so far; this axis').
  size_t Journaled = 0, AxisJournaled = 0;
  std::chrono::steady_clock::time_point Start = std::chrono::steady_clock::now(),
                                        AxisStart = Start;

  AutoProgress(raw_ostream &OS, StringRef Tool, bool Terminal)
      : OS(OS), Tool(Tool), Terminal(Terminal) {}

  double seconds(std::chrono::steady_clock::time_point From) const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - From)
        .count();
  }
  void startAxis(AxisKind A) {
    Axis = axisName(A).str();
    AxisStart = std::chrono::steady_clock::now();
  }
  /// An axis starts: \p FromJournal of its \p AxisTotal variants came from
  /// its journal and are neither measured nor estimated.
  void started(size_t FromJournal, size_t AxisTotal) {
    AxisJournaled = FromJournal;
    Journaled += FromJournal;
    if (Resume)
      OS << formatv("{0}: {1}: resuming: {2} of {3} variants from the "
                    "journal; {4} to measure\n",
                    Tool, Axis, FromJournal, AxisTotal,
                    AxisTotal - FromJournal);
  }
  /// Variants measured by this run so far, all axes.
  size_t measured(size_t Done) const {
    return Before + Done - std::min(Before + Done, Journaled);
  }
  void estimate(size_t Round) {
    Estimated = true;
    double First = seconds(Start);
    // Parallel variants finish together: one round's time per round, plus
    // a build for each variant of code and data; the journal's variants
    // cost nothing.
    double Build = BuildSeconds ? *BuildSeconds : 0;
    double P = std::max(1u, Parallel);
    double Left = double(Total - std::min(Total, Journaled));
    double Estimate = First * std::ceil(Left / P) + Build * Rebuilt / P;
    OS << formatv("{0}: first {1} measured in {2:F1} s", Tool,
                  Round == 1 ? std::string("variant")
                             : std::to_string(Round) + " variants",
                  First);
    if (BuildSeconds)
      OS << formatv("; a trial {0} took {1:F1} s ({2} variants are "
                    "built that way)",
                    BuildWhat, Build, Rebuilt);
    if (Journaled)
      OS << formatv("; estimate about {0:F0} s for the {1} not in the "
                    "journal\n",
                    Estimate, Total - std::min(Total, Journaled));
    else
      OS << formatv("; estimate about {0:F0} s for all {1}\n", Estimate,
                    Total);
  }
  /// The time left at this run's pace so far: refined with every variant.
  std::string timeLeft(size_t Done) const {
    size_t N = measured(Done);
    size_t Left = Total - std::min(Total, Before + Done);
    if (!N || !Left)
      return "";
    return formatv(", about {0:F0} s left", seconds(Start) / N * Left).str();
  }
  void update(size_t Done, size_t AxisTotal) {
    // The first round (as many variants as run at a time) gives one round's
    // time; a single variant would miss the others' contention for the cores.
    size_t Round = std::min<size_t>(std::max(1u, Parallel),
                                    AxisTotal - AxisJournaled);
    if (!Estimated && Round && Done - AxisJournaled >= Round)
      estimate(Round);
    if (Terminal) {
      OS << formatv("\r{0}: {1} {2}/{3}, {4}/{5} in all{6}   ", Tool, Axis,
                    Done, AxisTotal, Before + Done, Total, timeLeft(Done));
      if (Done == AxisTotal)
        OS << "\n";
    } else if (Done == AxisTotal) {
      OS << formatv("{0}: {1}: {2} variants measured in {3:F0} s\n", Tool,
                    Axis, AxisTotal, seconds(AxisStart));
    }
    OS.flush();
  }
};

/// Refuse what cannot be swept at all (a missing file, an object file, a
/// non-executable) before announcing a sweep; runSweep checks each axis
/// again.
Error checkSweepable(const EngineOptions &Base) {
  if (!sys::fs::exists(Base.Binary))
    return inputError(Base.Binary, 0, "no such file");
  std::vector<std::pair<std::string, std::string>> Binaries = {{"base", Base.Binary}};
  if (Base.CompareBinary)
    Binaries.push_back({"compare", *Base.CompareBinary});
  // The env axis runs any executable as it is.
  PerturbOptions Env = Base.Perturb;
  Env.Axis = AxisKind::Env;
  return Perturber::check(Env, Binaries);
}

/// --compare: an axis is swept only when the compared binary can be moved
/// the same way (\p CAxes: its plan); code and data relink it too.
void matchCompareAxes(std::vector<AutoAxis> &Axes, ArrayRef<AutoAxis> CAxes,
                      StringRef Compare) {
  for (AutoAxis &A : Axes) {
    auto C = find_if(CAxes, [&](const AutoAxis &X) { return X.Axis == A.Axis; });
    if (!A.Swept || C == CAxes.end())
      continue;
    if (!C->Swept || (A.BoltFunction.empty() != C->BoltFunction.empty())) {
      A.Swept = false;
      A.Why = formatv("the --compare binary {0} cannot be moved the same way: "
                      "{1}",
                      Compare, C->Swept ? C->How : C->Why)
                  .str();
      A.Enable = C->Enable;
      continue;
    }
    A.CompareRelinkArgv = C->RelinkArgv;
    A.CompareRelinkZeroArgv = C->RelinkZeroArgv;
    A.CompareRelinkPadBase = C->RelinkPadBase;
    A.CompareRelinkDir = C->RelinkDir;
  }
}

/// Which axes can be swept, and how (planAutoAxes, for the binary and the
/// --compare binary).
Expected<std::vector<AutoAxis>> planAxes(const EngineOptions &Base) {
  bool HaveBolt = false;
  if (Expected<std::string> B = findProgram("llvm-bolt"))
    HaveBolt = true;
  else
    consumeError(B.takeError());
  Expected<std::vector<AutoAxis>> Axes =
      planAutoAxes(Base.Binary, Base.Perturb.HeapShim, Base.Perturb.StackShim,
                   HaveBolt);
  if (!Axes)
    return Axes.takeError();
  if (Base.CompareBinary) {
    Expected<std::vector<AutoAxis>> CAxes =
        planAutoAxes(*Base.CompareBinary, Base.Perturb.HeapShim,
                     Base.Perturb.StackShim, HaveBolt);
    if (!CAxes)
      return CAxes.takeError();
    matchCompareAxes(*Axes, *CAxes, *Base.CompareBinary);
  }
  return Axes;
}

/// The heap axis moves only what the program allocates: when one run of the
/// binary (and of the --compare binary) through the heap shim counts no
/// allocation at all, every heap variant would be the same run, so the axis
/// is not swept and says why. A run that does not tell (it failed, or left
/// without exit()) keeps the axis: the sweep shows what happens.
Error skipVacuousHeapAxis(const EngineOptions &Base,
                          std::vector<AutoAxis> &Axes) {
  auto Heap =
      find_if(Axes, [](const AutoAxis &A) { return A.Axis == AxisKind::Heap; });
  if (Heap == Axes.end() || !Heap->Swept)
    return Error::success();
  std::vector<std::string> Binaries = {Base.Binary};
  if (Base.CompareBinary)
    Binaries.push_back(*Base.CompareBinary);
  for (const std::string &B : Binaries) {
    Expected<std::optional<uint64_t>> N = countHeapAllocations(Base, B);
    if (!N)
      return N.takeError();
    if (!*N || **N > 0)
      return Error::success();
  }
  Heap->Swept = false;
  Heap->Why = formatv("the program made no heap allocations (one run through "
                      "the heap shim counted no malloc, calloc or realloc{0}): "
                      "a heap offset would move nothing",
                      Base.CompareBinary ? ", nor one of the --compare binary"
                                         : "")
                  .str();
  Heap->Enable.clear();
  return Error::success();
}

/// The line that says what is swept, how many variants, and what is not.
void announceSweep(const EngineOptions &Base, ArrayRef<AutoAxis> Axes,
                   const AutoProgress &Progress, size_t PerAxis) {
  std::string Names, Skipped;
  for (const AutoAxis &A : Axes) {
    std::string &L = A.Swept ? Names : Skipped;
    L += (L.empty() ? "" : ", ") + axisName(A.Axis).str();
  }
  Progress.OS << formatv("{0}: sweeping {1} of {2}: {3} variants ({4} per "
                         "axis, offsets {5}..{6} by {7}), backend {8}, {9} at "
                         "a time",
                         Progress.Tool, Names, Base.Binary, Progress.Total,
                         PerAxis, Base.G.From, Base.G.To, Base.G.Step,
                         name(Base.Backend), Progress.Parallel);
  if (!Skipped.empty())
    Progress.OS << "; not swept: " << Skipped << " (see the summary)";
  Progress.OS << "\n";
}

/// The engine options of one axis.
EngineOptions axisOptions(const EngineOptions &Base, const AutoAxis &A) {
  EngineOptions O = Base;
  O.Perturb.Axis = A.Axis;
  O.Perturb.RelinkArgv = A.RelinkArgv;
  O.Perturb.RelinkDir = A.RelinkDir;
  O.Perturb.CompareRelinkArgv = A.CompareRelinkArgv;
  O.Perturb.CompareRelinkDir = A.CompareRelinkDir;
  O.Perturb.RelinkZeroArgv = A.RelinkZeroArgv;
  O.Perturb.CompareRelinkZeroArgv = A.CompareRelinkZeroArgv;
  O.Perturb.RelinkPadBase = A.RelinkPadBase;
  O.Perturb.CompareRelinkPadBase = A.CompareRelinkPadBase;
  O.Perturb.BoltFunction = A.BoltFunction;
  return O;
}

/// Code and data build every variant (relink or llvm-bolt) before it is
/// measured: time one such build now, so the estimate includes them.
void timeTrialBuild(const EngineOptions &Base, ArrayRef<AutoAxis *> ToSweep,
                    size_t PerAxis, AutoProgress &Progress) {
  bool Tried = false;
  for (AutoAxis *AP : ToSweep) {
    if (AP->RelinkArgv.empty() && AP->BoltFunction.empty())
      continue;
    Progress.Rebuilt += PerAxis;
    if (Tried)
      continue;
    Tried = true;
    Expected<double> T = timeOneVariantBuild(axisOptions(Base, *AP));
    if (!T) { // the sweep of that axis will say what is wrong
      consumeError(T.takeError());
      continue;
    }
    Progress.BuildSeconds = *T;
    Progress.BuildWhat = AP->RelinkArgv.empty() ? "llvm-bolt run" : "relink";
  }
}

/// The engine options of axis \p A as swept: its own work directory under
/// --keep-dir, its own journal (checked writable and added to \p Journals),
/// progress through \p Progress.
Expected<EngineOptions> sweptAxisOptions(const EngineOptions &Base,
                                         const AutoSweepOptions &AO,
                                         const AutoAxis &A,
                                         AutoProgress &Progress,
                                         std::mutex &ProgressLock,
                                         std::vector<std::string> &Journals) {
  EngineOptions O = axisOptions(Base, A);
  if (!AO.KeepDir.empty())
    O.WorkDir = (AO.KeepDir + "/" + axisName(A.Axis)).str();
  if (!O.JournalPath.empty()) {
    O.JournalPath += ("." + axisName(A.Axis)).str();
    if (Error E = checkOutputPath(O.JournalPath))
      return std::move(E);
    Journals.push_back(O.JournalPath);
  }
  O.Progress = [&Progress, &ProgressLock](size_t Done, size_t Total) {
    std::lock_guard<std::mutex> G(ProgressLock);
    Progress.update(Done, Total);
  };
  O.Started = [&Progress](size_t FromJournal, size_t Total) {
    Progress.started(FromJournal, Total);
  };
  return O;
}

/// Sweep each axis of \p ToSweep in turn and gate its result. An axis that
/// needs a build and fails (after one that worked) is marked not swept;
/// any other failure stops the whole sweep. Each axis' journal goes to
/// \p Journals.
Expected<std::vector<AutoOutcome>>
sweepAxes(const EngineOptions &Base, const GateOptions &GO,
          const AutoSweepOptions &AO,
          const std::map<AxisKind, SweepResult> &Baselines,
          ArrayRef<AutoAxis *> ToSweep, size_t PerAxis, AutoProgress &Progress,
          std::vector<std::string> &Journals) {
  std::vector<AutoOutcome> Outcomes;
  for (AutoAxis *AP : ToSweep) {
    AutoAxis &A = *AP;
    std::mutex ProgressLock;
    Expected<EngineOptions> O =
        sweptAxisOptions(Base, AO, A, Progress, ProgressLock, Journals);
    if (!O)
      return O.takeError();
    Progress.startAxis(A.Axis);
    Expected<SweepResult> R = runSweep(*O);
    Progress.Before += PerAxis;
    if (!R) {
      Error E = R.takeError();
      // The machine lacks the backend, or the program itself fails as it
      // is: nothing else can be swept either.
      if (Outcomes.empty() || E.isA<UnavailableError>() ||
          E.isA<InterruptedError>() ||
          (A.RelinkArgv.empty() && A.BoltFunction.empty()))
        return std::move(E);
      A.Swept = false;
      A.Why = toString(std::move(E));
      A.Enable = ("see the message; --axis=" + axisName(A.Axis) +
                  " --keep-dir=DIR keeps each variant's relink.log")
                     .str();
      WithColor::warning(Progress.OS, AO.Tool)
          << axisName(A.Axis) << ": not swept: " << A.Why << "\n";
      continue;
    }
    Expected<Provenance> Prov = sweepProvenance(*O, AO);
    if (!Prov)
      return Prov.takeError();
    R->Prov = std::move(*Prov);
    Expected<GateResult> G =
        gateAutoAxis(*R, A.Axis, GO, Baselines, AO.Baseline);
    if (!G)
      return G.takeError();
    Outcomes.push_back({&A, std::move(*R), std::move(*G)});
  }
  return Outcomes;
}

} // namespace

Expected<AutoSweepResult> runAutoSweep(const EngineOptions &Base,
                                       const GateOptions &GO,
                                       const AutoSweepOptions &AO,
                                       raw_ostream &ProgressOS) {
  if (Error E = checkReportFiles(AO.Reports)) // before the sweep
    return std::move(E);
  Expected<std::map<AxisKind, SweepResult>> Baselines =
      readAutoBaselines(AO.Baseline, GO);
  if (!Baselines)
    return Baselines.takeError();
  // A malformed SOURCE_DATE_EPOCH must not cost a sweep.
  if (Expected<std::string> Date = provenanceDate(); !Date)
    return Date.takeError();
  if (!Baselines)
    return Baselines.takeError();
  if (Error E = checkSweepable(Base))
    return std::move(E);
  AutoSweepResult Result;
  Expected<std::vector<AutoAxis>> Axes = planAxes(Base);
  if (!Axes)
    return Axes.takeError();
  Result.Axes = std::move(*Axes);
  if (Error E = skipVacuousHeapAxis(Base, Result.Axes))
    return std::move(E);

  std::vector<AutoAxis *> ToSweep;
  for (AutoAxis &A : Result.Axes)
    if (A.Swept)
      ToSweep.push_back(&A);
  size_t PerAxis = Base.G.offsets().size() * (Base.CompareBinary ? 2 : 1);
  AutoProgress Progress(ProgressOS, AO.Tool, AO.Terminal);
  Progress.Total = PerAxis * ToSweep.size();
  Progress.Resume = Base.Resume;
  Progress.Parallel = Base.Jobs ? Base.Jobs
                                : std::max(1u, std::thread::hardware_concurrency());
  if (!isSimBackend(Base.Backend))
    Progress.Parallel = 1;
  announceSweep(Base, Result.Axes, Progress, PerAxis);
  timeTrialBuild(Base, ToSweep, PerAxis, Progress);
  Progress.Start = Progress.AxisStart = std::chrono::steady_clock::now();

  std::vector<std::string> Journals;
  Expected<std::vector<AutoOutcome>> Outcomes = sweepAxes(
      Base, GO, AO, *Baselines, ToSweep, PerAxis, Progress, Journals);
  if (!Outcomes)
    return Outcomes.takeError();
  Result.Outcomes = std::move(*Outcomes);
  if (Error E = writeAutoReports(Base.Binary, AO.Reports, Result))
    return std::move(E);
  if (AO.RemoveJournals)
    for (const std::string &J : Journals)
      sys::fs::remove(J);
  collectAutoOutcomes(Result);
  return std::move(Result);
}

Expected<bool> useLinkRecord(EngineOptions &O) {
  const PerturbOptions &P = O.Perturb;
  if ((P.Axis != AxisKind::Code && P.Axis != AxisKind::Data) ||
      !P.RelinkTemplate.empty() ||
      !P.RelinkArgv.empty() || !P.BoltFunction.empty() ||
      !P.CompareRelinkTemplate.empty())
    return false;
  // Without a record runSweep says what the axis needs; a binary that
  // cannot be inspected gets runSweep's own message too.
  if (!sys::fs::exists(linkRecordPath(O.Binary)))
    return false;
  Expected<std::vector<AutoAxis>> Axes = planAxes(O);
  if (!Axes) {
    consumeError(Axes.takeError());
    return false;
  }
  auto A = find_if(*Axes, [&](const AutoAxis &X) { return X.Axis == P.Axis; });
  if (A == Axes->end())
    return false;
  if (!A->Swept || A->RelinkArgv.empty())
    return inputError(linkRecordPath(O.Binary), 0,
                      "--axis={0} with no --relink relinks from this record, "
                      "but {1}{2}{3}",
                      axisName(P.Axis), A->Why.empty() ? "it cannot" : A->Why,
                      A->Enable.empty() ? "" : "; to sweep it: ", A->Enable);
  EngineOptions Out = axisOptions(O, *A);
  O = std::move(Out);
  return true;
}

Error writeAutoDryRun(raw_ostream &OS, const EngineOptions &Base,
                      const AutoSweepOptions &AO) {
  if (Error E = checkSweepable(Base))
    return E;
  Expected<std::vector<AutoAxis>> Axes = planAxes(Base);
  if (!Axes)
    return Axes.takeError();
  size_t Swept = count_if(*Axes, [](const AutoAxis &A) { return A.Swept; });
  size_t PerAxis = Base.G.offsets().size() * (Base.CompareBinary ? 2 : 1);
  OS << formatv("dry run of {0}: {1} variants ({2} per axis, offsets "
                "{3}..{4} by {5}) on {6} {8}, backend {7}; nothing is built "
                "or run",
                Base.Binary, PerAxis * Swept, PerAxis, Base.G.From, Base.G.To,
                Base.G.Step, Swept, name(Base.Backend), Swept == 1 ? "axis" : "axes");
  if (AO.KeepDir.empty())
    OS << formatv("; {0} is the private work directory", DryRunWorkDir);
  OS << "\n";
  for (const AutoAxis &A : *Axes) {
    if (!A.Swept)
      continue;
    OS << "== " << axisName(A.Axis) << ": " << A.How << "\n";
    EngineOptions O = axisOptions(Base, A);
    O.WorkDir = (AO.KeepDir.empty() ? std::string(DryRunWorkDir) : AO.KeepDir) +
                "/" + axisName(A.Axis).str();
    if (Error E = writeAxisDryRun(OS, O))
      return E;
  }
  for (const AutoAxis &A : *Axes)
    if (!A.Swept)
      OS << formatv("not swept: {0}: {1}\n", axisName(A.Axis), A.Why);
  return Error::success();
}

} // namespace sweep
} // namespace keel
