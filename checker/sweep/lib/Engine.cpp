//===- Engine.cpp - perturb x measure x journal ----------------------------===//
//
// runSweep() reads top to bottom: check the options, find the backend's
// tools, open the journal, list the variants still to measure, measure them
// (in parallel for sim), then assemble a sorted SweepResult and look at the
// executed-instruction counts.
//
//===----------------------------------------------------------------------===//
#include "keel/Sweep/Engine.h"

#include "keel/Support/Diagnostics.h"
#include "keel/Support/OutputFile.h"
#include "keel/Support/PerfEvent.h"
#include "keel/Support/Process.h"
#include "keel/Support/Valgrind.h"
#include "keel/Sweep/Journal.h"
#include "keel/Sweep/Slurm.h"
#include "keel/Sweep/VariantMap.h"

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

std::string sweepFingerprint(const EngineOptions &O) {
  json::Object F{{"binary", O.Binary},
                 {"args", json::Array(O.Args)},
                 {"compare", O.CompareBinary ? *O.CompareBinary : ""},
                 {"backend", O.Backend},
                 {"axis", O.Perturb.Axis},
                 {"relink", O.Perturb.RelinkTemplate},
                 {"compare_relink", O.Perturb.CompareRelinkTemplate},
                 {"bolt_pad", O.Perturb.BoltFunction},
                 {"env", json::Array(O.Perturb.ExtraEnv)},
                 {"geometry", isSimBackend(O.Backend) ? geometryText(O.Geometry) : ""},
                 {"exec_as", execAsMode(O)}};
  // A recorded link (the automatic sweep) only when there is one, so the
  // fingerprints of journals written before it existed do not change.
  // The stack axis moved the environment before it had its own shim (that
  // is the env axis now): a journal of that older stack sweep is not this.
  if (O.Perturb.Axis == "stack")
    F["stack_shift"] = "libkeelstackshift";
  // The front-end model's events (only when on: older fingerprints stay).
  if (O.Backend == "sim" && !O.Frontend.empty())
    F["frontend"] = O.Frontend;
  if (!O.Perturb.RelinkArgv.empty())
    F["relink_argv"] = json::Array(O.Perturb.RelinkArgv);
  if (!O.Perturb.CompareRelinkArgv.empty())
    F["compare_relink_argv"] = json::Array(O.Perturb.CompareRelinkArgv);
  // Offset 0 as the recorded link itself, and the pads added to the link's
  // own value: a journal of a sweep that relinked otherwise is not this.
  if (!O.Perturb.RelinkZeroArgv.empty())
    F["relink_zero_argv"] = json::Array(O.Perturb.RelinkZeroArgv);
  if (!O.Perturb.CompareRelinkZeroArgv.empty())
    F["compare_relink_zero_argv"] = json::Array(O.Perturb.CompareRelinkZeroArgv);
  if (O.Perturb.RelinkPadBase)
    F["relink_pad_base"] = O.Perturb.RelinkPadBase;
  if (O.Perturb.CompareRelinkPadBase)
    F["compare_relink_pad_base"] = O.Perturb.CompareRelinkPadBase;
  std::string S;
  raw_string_ostream(S) << json::Value(std::move(F));
  return S;
}

Error checkPerfCounters() {
  if (int Err = probeCycleCounter()) {
    std::string Why = Err == ENOENT || Err == EOPNOTSUPP
                          ? "this machine exposes no hardware cycle counter "
                            "(a VM without a virtual PMU?)"
                      : Err == EACCES || Err == EPERM
                          ? "not permitted (lower "
                            "/proc/sys/kernel/perf_event_paranoid)"
                          : "";
    return make_error<UnavailableError>(
        formatv("--backend=perf: perf_event_open(cycles) failed: {0}{1}{2}; "
                "use --backend=sim (cachegrind) instead",
                strerror(Err), Why.empty() ? "" : ": ", Why)
            .str());
  }
  return Error::success();
}

namespace {

// perf stat's CSV: "value,unit,event,..." one line per event.
Measurement measurePerf(const EngineOptions &O, StringRef Perf,
                        const PreparedVariant &P) {
  std::string OutFile = P.Dir + "/perf.csv";
  std::vector<std::string> Cmd = {Perf.str(), "stat", "-x", ",", "-e",
                                  "cycles:u,instructions:u,branch-misses:u", "-o",
                                  OutFile, "--"};
  Cmd.insert(Cmd.end(), P.Argv.begin(), P.Argv.end());
  RunOutcome R = runVariantCommand(O, P, Cmd, P.Dir + "/stderr");
  if (R.Failed)
    return failedMeasurement(P.V, R.Reason);
  Expected<std::string> Text = readWholeFile(OutFile);
  if (!Text)
    return failedMeasurement(P.V, toString(Text.takeError()));
  Measurement M;
  M.V = P.V;
  for (StringRef Line : split(*Text, '\n')) {
    SmallVector<StringRef, 8> F;
    Line.split(F, ',');
    uint64_t V;
    if (F.size() < 3 || F[0].trim().getAsInteger(10, V))
      continue;
    StringRef Event = F[2].split(':').first;
    M.Counters[Event.str()] = static_cast<double>(V);
  }
  if (!M.Counters.count("cycles"))
    return failedMeasurement(P.V, "perf stat counted no cycles (see " + OutFile + ")");
  M.Cost = M.Counters["cycles"];
  M.Instructions = static_cast<uint64_t>(M.Counters["instructions"]);
  return M;
}

/// Removes the private work directory when the sweep ends.
struct WorkDirGuard {
  std::string Dir;
  bool Remove = false;
  ~WorkDirGuard() {
    if (Remove && !Dir.empty())
      sys::fs::remove_directories(Dir);
  }
};

Error checkOptions(const EngineOptions &O, ArrayRef<int64_t> Offsets) {
  if (!isSimBackend(O.Backend) && O.Backend != "time" && O.Backend != "perf")
    return makeError("unknown --backend '{0}' (sim, cachegrind, time, perf)",
                     O.Backend);
  if (Error E = validateGrid(O.G))
    return E;
  StringRef Axis = O.Perturb.Axis;
  for (int64_t Off : Offsets) {
    if (Axis == "heap" && (Off % 16 || Off > MaxHeapShift))
      return makeError("--axis=heap offsets must be multiples of 16 up to {0} "
                       "(malloc results stay 16-byte aligned); got {1}",
                       MaxHeapShift, Off);
    if (Axis == "stack" && (Off % 16 || Off > MaxStackShift))
      return makeError("--axis=stack offsets must be multiples of 16 up to "
                       "{0} (the stack stays 16-byte aligned); got {1}",
                       MaxStackShift, Off);
    if (Axis == "env" && Off > MaxEnvPad)
      return makeError("--axis=env offsets are environment bytes, at most "
                       "{0}; got {1}",
                       MaxEnvPad, Off);
  }
  if (!O.Frontend.empty() && O.Backend == "cachegrind")
    return makeError("--cost={0} weighs the events of keel-sim's front-end "
                     "model, which cachegrind does not count: it needs "
                     "--backend=sim (--backend=cachegrind takes "
                     "--cost=cachegrind only)",
                     O.Frontend);
  if (!O.Frontend.empty() && O.Backend != "sim")
    return makeError("--cost={0} weighs simulated events: it needs "
                     "--backend=sim",
                     O.Frontend);
  if (O.Executor == SlurmExecutor) {
    if (Error E = checkSlurmOptions(O))
      return E;
  } else if (!O.Executor.empty()) {
    if (!isSimBackend(O.Backend))
      return makeError("--executor runs variants elsewhere; only a "
                       "simulating backend (sim or cachegrind) measures there "
                       "(time and perf must measure on one machine)");
    if (Error E = checkExecutorTemplate(O.Executor))
      return E;
  }
  if (!O.ExecAs.empty() && O.ExecAs != "fd" && O.ExecAs != "path")
    return makeError("unknown --exec-as '{0}' (fd, path)", O.ExecAs);
  if (O.Resume && O.JournalPath.empty())
    return makeError("--resume needs a journal (--journal=FILE, or an output "
                     "file such as --json=FILE whose journal is FILE.journal)");
  return Error::success();
}

std::vector<Variant> gridVariants(const EngineOptions &O,
                                  ArrayRef<int64_t> Offsets) {
  std::vector<Variant> Vs;
  std::vector<std::string> Series = {"base"};
  if (O.CompareBinary)
    Series.push_back("compare");
  for (const std::string &S : Series)
    for (int64_t Off : Offsets)
      Vs.push_back(Variant{S, O.Perturb.Axis, Off});
  return Vs;
}

/// Measurements found in the journal that belong to this grid, with the
/// cost recomputed under the current weights (the journal keeps counters).
std::vector<Measurement> reuseJournal(const EngineOptions &O,
                                      std::vector<Measurement> Done,
                                      const std::vector<Variant> &Grid) {
  std::set<Variant> InGrid(Grid.begin(), Grid.end());
  std::vector<Measurement> Keep;
  for (Measurement &M : Done) {
    if (!InGrid.count(M.V))
      continue;
    if (!M.Failed && isSimBackend(O.Backend))
      M.Cost = costOf(M.Counters, O.Weights);
    Keep.push_back(std::move(M));
  }
  return Keep;
}

/// The functions a binary defines (symbol-table names), to tell the
/// program's own code from libc's and ld.so's in the instruction check.
std::set<std::string> definedFunctions(StringRef Bin) {
  std::set<std::string> Names;
  Expected<object::OwningBinary<object::ObjectFile>> O =
      object::ObjectFile::createObjectFile(Bin);
  if (!O) {
    consumeError(O.takeError());
    return Names;
  }
  for (const object::SymbolRef &Sym : O->getBinary()->symbols()) {
    Expected<object::SymbolRef::Type> T = Sym.getType();
    Expected<uint32_t> Flags = Sym.getFlags();
    Expected<StringRef> Name = Sym.getName();
    if (!T || !Flags || !Name) {
      consumeError(T.takeError());
      consumeError(Flags.takeError());
      consumeError(Name.takeError());
      continue;
    }
    if (*T == object::SymbolRef::ST_Function &&
        !(*Flags & object::SymbolRef::SF_Undefined) && !Name->empty())
      Names.insert(Name->split('@').first.str());
  }
  return Names;
}

/// The address of every function a binary defines (name -> address).
std::map<std::string, uint64_t> functionAddresses(StringRef Bin) {
  std::map<std::string, uint64_t> Out;
  Expected<object::OwningBinary<object::ObjectFile>> O =
      object::ObjectFile::createObjectFile(Bin);
  if (!O) {
    consumeError(O.takeError());
    return Out;
  }
  for (const object::SymbolRef &Sym : O->getBinary()->symbols()) {
    Expected<object::SymbolRef::Type> T = Sym.getType();
    Expected<uint64_t> A = Sym.getAddress();
    Expected<StringRef> Name = Sym.getName();
    if (!T || !A || !Name) {
      consumeError(T.takeError());
      consumeError(A.takeError());
      consumeError(Name.takeError());
      continue;
    }
    if (*T == object::SymbolRef::ST_Function && *A && !Name->empty())
      Out.emplace(Name->str(), *A);
  }
  return Out;
}

/// The data axis must move data only. Compare each base variant's function
/// addresses with the first variant's and say where the pad moved code too
/// (a link that lays the padded data out before the code, docs/sweep.md).
/// \p Built: the base variants' binaries, still in the work directory.
void checkCodeMoved(SweepResult &R, const std::map<int64_t, std::string> &Built) {
  if (R.Axis != "data" || Built.size() < 2)
    return;
  std::map<std::string, uint64_t> First = functionAddresses(Built.begin()->second);
  size_t Variants = 0;
  std::string Example;
  for (const auto &[Offset, Bin] : Built) {
    std::map<std::string, uint64_t> Here = functionAddresses(Bin);
    size_t Moved = 0;
    std::string Name;
    int64_t By = 0;
    for (const auto &[F, A] : First) {
      auto It = Here.find(F);
      if (It == Here.end() || It->second == A)
        continue;
      if (!Moved++) {
        Name = F;
        By = int64_t(It->second) - int64_t(A);
      }
    }
    if (!Moved)
      continue;
    if (!Variants++)
      Example = formatv("at offset {0}, {1} function{2} moved ({3} by {4} "
                        "bytes)",
                        Offset, Moved, Moved == 1 ? "" : "s", demangle(Name),
                        By)
                    .str();
  }
  if (!Variants)
    return;
  R.CodeMoved = formatv("the data pad moved code too in {0} of {1} "
                        "variants: {2}",
                        Variants, Built.size(), Example)
                    .str();
  R.Notes.push_back(R.CodeMoved +
                    "; the link lays the padded data out before the code, so "
                    "this axis mixes code and data effects");
}

/// Compare executed instructions across the variants of one series: totals,
/// and (sim) per function, split into the swept binary's own functions and
/// the rest. A program whose own code does different work in different
/// layouts is not layout-independent; libc and ld.so taking other paths
/// because the stack, environment or heap moved is expected.
void checkInstructions(SweepResult &R, std::vector<Measurement> &Ms,
                       StringRef Series, double Tolerance,
                       const std::set<std::string> &Own) {
  const Measurement *Lo = nullptr, *Hi = nullptr;
  bool PerFunction = true;
  for (const Measurement &M : Ms) {
    if (M.Failed || !M.Instructions)
      continue;
    if (!Lo || M.Instructions < Lo->Instructions)
      Lo = &M;
    if (!Hi || M.Instructions > Hi->Instructions)
      Hi = &M;
    PerFunction &= !M.FunctionInstructions.empty();
  }
  if (!Lo || Lo->Instructions == Hi->Instructions) {
    for (Measurement &M : Ms)
      M.FunctionInstructions.clear();
    return;
  }
  InstructionCheck C;
  C.Series = Series.str();
  C.Min = Lo->Instructions;
  C.Max = Hi->Instructions;
  C.MinOffset = Lo->V.Offset;
  C.MaxOffset = Hi->V.Offset;
  C.Tolerance = Tolerance;
  C.PerFunction = PerFunction && !Own.empty();
  if (C.PerFunction) {
    // Min and max count of every function over the variants (a function
    // missing from a variant ran 0 instructions there).
    std::map<std::string, std::pair<uint64_t, uint64_t>> Range;
    size_t Seen = 0;
    for (const Measurement &M : Ms) {
      if (M.Failed || !M.Instructions)
        continue;
      for (auto &[Name, MinMax] : Range)
        if (!M.FunctionInstructions.count(Name))
          MinMax.first = 0;
      for (const auto &[Name, N] : M.FunctionInstructions) {
        auto [It, New] = Range.try_emplace(Name, N, N);
        if (New && Seen)
          It->second.first = 0;
        It->second.first = std::min(It->second.first, N);
        It->second.second = std::max(It->second.second, N);
      }
      ++Seen;
    }
    for (const auto &[Name, MinMax] : Range) {
      if (MinMax.first == MinMax.second)
        continue;
      FunctionDiff F{demangle(Name), MinMax.first, MinMax.second};
      (Own.count(Name) ? C.Own : C.Other).push_back(std::move(F));
    }
  }
  R.InstructionsDiffer |=
      !C.Own.empty() || (!C.PerFunction && C.aboveTolerance());
  R.InstructionChecks.push_back(std::move(C));
  // The per-function counts were for this check; reports do not carry them.
  for (Measurement &M : Ms)
    M.FunctionInstructions.clear();
}

} // namespace

namespace {

/// Collects finished measurements from worker threads: journal first (so a
/// kill right after loses nothing reported), then the in-memory list and the
/// progress callback. The first error wins; later ones are dropped.
class Recorder {
public:
  Recorder(const EngineOptions &O, Journal *J, std::vector<Measurement> Done,
           size_t Total)
      : O(O), J(J), Results(std::move(Done)), Total(Total) {}

  /// Variants this recorder already has (several geometries: a variant
  /// measured again for another geometry's journal).
  void skip(std::set<Variant> S) { Skip = std::move(S); }
  void record(Measurement M) {
    // A variant a signal stopped is not measured: never journal it.
    if (Skip.count(M.V) || stopSignal())
      return;
    Error JE = J ? J->append(M) : Error::success();
    std::lock_guard<std::mutex> G(Lock);
    keep(std::move(JE));
    Results.push_back(std::move(M));
    if (O.Progress)
      O.Progress(Results.size(), Total);
  }
  void fail(Error E) {
    if (stopSignal()) // what the stop broke is not the sweep's error
      return consumeError(std::move(E));
    std::lock_guard<std::mutex> G(Lock);
    keep(std::move(E));
  }
  /// Variants measured, this run's and the journal's.
  size_t done() {
    std::lock_guard<std::mutex> G(Lock);
    return Results.size();
  }
  /// A variant's binary of \p Series (the first one wins), read for its
  /// symbols before the work directory goes away.
  void binarySeen(StringRef Series, StringRef Path) {
    std::lock_guard<std::mutex> G(Lock);
    Binaries.try_emplace(Series.str(), Path.str());
  }
  std::map<std::string, std::string> takeBinaries() {
    return std::move(Binaries);
  }
  /// Each base variant's binary by offset (the data axis' code check).
  void variantBuilt(const Variant &V, StringRef Path) {
    if (V.Series != "base")
      return;
    std::lock_guard<std::mutex> G(Lock);
    Built[V.Offset] = Path.str();
  }
  std::map<int64_t, std::string> takeBuilt() { return std::move(Built); }
  Error takeError() { return std::move(FirstError); }
  std::vector<Measurement> takeResults() { return std::move(Results); }

private:
  void keep(Error E) {
    if (!E)
      return;
    if (FirstError)
      consumeError(std::move(E));
    else
      FirstError = std::move(E);
  }

  const EngineOptions &O;
  Journal *J;
  std::mutex Lock;
  std::vector<Measurement> Results;
  std::map<std::string, std::string> Binaries;
  std::map<int64_t, std::string> Built;
  std::set<Variant> Skip;
  size_t Total;
  Error FirstError = Error::success();
};

using Todo = std::vector<std::pair<unsigned, Variant>>;

/// --exec-as=fd: the binary goes on descriptor VariantExecFd and argv[0]
/// becomes \p Argv0, one string for every variant and series, so a program
/// that looks at its own path (hashes it, copies it to the stack) does the
/// same work in every variant.
void applyExecAs(const EngineOptions &O, PreparedVariant &P, StringRef Argv0) {
  if (execAsMode(O) != "fd" || P.Argv.empty())
    return;
  P.ExecFile = P.Argv[0];
  P.Argv[0] = Argv0.str();
}

/// cachegrind and perf: prepare and measure each variant as one job on a
/// pool.
void measureInParallel(const EngineOptions &O, Perturber &P,
                       const SimTools &Sim, StringRef Perf, const Todo &Work,
                       Recorder &Rec) {
  unsigned Jobs = O.Backend == "perf" ? 1 : O.Jobs; // perf counts need quiet
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
      Rec.record(O.Backend == "perf" ? measurePerf(O, Perf, *PV)
                                     : measureSim(O, Sim, *PV));
    });
  }
  Pool.wait();
}

/// Can variants of this sweep be address maps of one run? Only when they
/// differ in their bytes' addresses alone: pads (code, data), and every
/// variant started by one name (--exec-as=fd; with path each has its own
/// argv[0]).
bool keelSimMaps(const EngineOptions &O) {
  return (O.Perturb.Axis == "code" || O.Perturb.Axis == "data") &&
         execAsMode(O) == "fd";
}

/// keel-sim: one run of a series' first variant serves every other variant
/// of that series whose binary is an address map of it (VariantMap.h: code
/// and data pads, the same functions in another order). The rest -- axes
/// that change the process (stack, env, heap), variants that are not maps,
/// maps that missed accesses, a program that forks or execs, a shared run
/// that failed -- run on their own binaries, keel-sim alone.
class KeelSimSweep {
public:
  /// \p Recs: one per geometry of \p O (Geometry, then MoreGeometries).
  KeelSimSweep(const EngineOptions &O, Perturber &P, const SimTools &T,
               StringRef WorkDir, std::vector<Recorder *> Recs)
      : O(O), P(P), T(T), WorkDir(WorkDir), Recs(std::move(Recs)) {}

  void run(const Todo &Work) {
    std::vector<std::optional<PreparedVariant>> Prepared(Work.size());
    {
      DefaultThreadPool Pool(hardware_concurrency(O.Jobs));
      for (size_t I = 0; I < Work.size(); ++I)
        Pool.async([&, I] {
          Expected<PreparedVariant> PV = P.prepare(Work[I].second, Work[I].first);
          if (!PV)
            return Recs[0]->fail(PV.takeError());
          if (!PV->Failure.empty())
            return recordAll(failedMeasurement(Work[I].second, PV->Failure));
          if (!PV->Argv.empty())
            for (Recorder *Rec : Recs) {
              Rec->binarySeen(PV->V.Series, PV->Argv[0]);
              Rec->variantBuilt(PV->V, PV->Argv[0]);
            }
          Prepared[I] = std::move(*PV);
        });
      Pool.wait();
    }
    // Group by series, in grid order; the first variant is the run's base.
    bool Maps = keelSimMaps(O);
    std::map<std::string, std::vector<size_t>> BySeries;
    std::vector<std::string> SeriesOrder;
    for (size_t I = 0; I < Prepared.size(); ++I) {
      if (!Prepared[I] || Prepared[I]->Argv.empty())
        continue;
      auto [It, New] = BySeries.try_emplace(Prepared[I]->V.Series);
      if (New)
        SeriesOrder.push_back(It->first);
      It->second.push_back(I);
    }
    std::vector<Group> Groups;
    for (const std::string &S : SeriesOrder) {
      std::vector<size_t> &Members = BySeries[S];
      if (!Maps) {
        for (size_t I : Members)
          Own.push_back({std::move(*Prepared[I]), ""});
        continue;
      }
      Group G;
      G.Base = std::move(*Prepared[Members.front()]);
      for (size_t K = 1; K < Members.size(); ++K) {
        PreparedVariant &PV = *Prepared[Members[K]];
        std::string Why = mapOf(G.Base, PV, G.Maps);
        if (Why.empty())
          G.Members.push_back(std::move(PV));
        else
          Own.push_back({std::move(PV), std::move(Why)});
      }
      Groups.push_back(std::move(G));
    }
    Groups = splitGroups(std::move(Groups));
    // The shared runs and the own runs known so far, then the own runs the
    // shared runs' results asked for.
    {
      DefaultThreadPool Pool(hardware_concurrency(O.Jobs));
      for (size_t G = 0; G < Groups.size(); ++G)
        Pool.async([&, G] { runGroup(Groups[G], G); });
      for (size_t I = 0; I < Own.size(); ++I)
        Pool.async([&, I] { runOwn(Own[I]); });
      Pool.wait();
    }
    std::vector<OwnRun> Later = std::move(Fallbacks);
    DefaultThreadPool Pool(hardware_concurrency(O.Jobs));
    for (size_t I = 0; I < Later.size(); ++I)
      Pool.async([&, I] { runOwn(Later[I]); });
    Pool.wait();
  }

private:
  struct Group {
    PreparedVariant Base;
    std::vector<PreparedVariant> Members; ///< map file variants 1..n
    std::vector<VariantMap> Maps;
    /// A series' shared run split in parts: part 0 records the base and
    /// runs in its directory, part K > 0 in its subdirectory partK.
    size_t Part = 0;
  };

  /// A series with at least this many mapped variants per part is split
  /// into up to -j shared runs of the base, each simulating its share of
  /// the maps (a map's counts do not depend on which run simulates it), so
  /// that the cores share the simulation.
  static constexpr size_t MinPartMembers = 16;

  std::vector<Group> splitGroups(std::vector<Group> Groups) {
    size_t Jobs = hardware_concurrency(O.Jobs).compute_thread_count();
    std::vector<Group> Out;
    for (Group &G : Groups) {
      size_t N = G.Members.size();
      size_t Parts = std::max<size_t>(1, std::min(Jobs, N / MinPartMembers));
      if (Parts == 1) {
        Out.push_back(std::move(G));
        continue;
      }
      for (size_t K = 0; K < Parts; ++K) {
        Group Part;
        Part.Base = G.Base;
        Part.Part = K;
        for (size_t I = N * K / Parts; I < N * (K + 1) / Parts; ++I) {
          Part.Members.push_back(std::move(G.Members[I]));
          Part.Maps.push_back(std::move(G.Maps[I]));
        }
        Out.push_back(std::move(Part));
      }
    }
    return Out;
  }
  struct OwnRun {
    PreparedVariant PV;
    std::string Why; ///< the measurement's Fallback ("" = by its axis)
  };

  /// "" when \p PV is a map of \p Base (appended to \p Maps), else why not.
  std::string mapOf(const PreparedVariant &Base, const PreparedVariant &PV,
                    std::vector<VariantMap> &Maps) {
    if (PV.Env != Base.Env ||
        !std::equal(PV.Argv.begin() + 1, PV.Argv.end(), Base.Argv.begin() + 1,
                    Base.Argv.end()))
      return "its environment or arguments differ from the shared run's, so "
             "it is not an address map of that run";
    Expected<VariantMap> M = deriveVariantMap(
        Base.Argv[0], PV.Argv[0], formatv("v{0}", Maps.size() + 1).str());
    if (!M) {
      // Without the work directory's paths: the JSON does not depend on it.
      std::string Why = toString(M.takeError());
      for (const std::string &Path : {PV.Argv[0], Base.Argv[0]})
        for (size_t At; (At = Why.find(Path + ": ")) != std::string::npos;)
          Why.erase(At, Path.size() + 2);
      for (const auto &[Path, Name] :
           {std::pair(PV.Argv[0], "this variant"), {Base.Argv[0], "the base"}})
        for (size_t At; (At = Why.find(Path)) != std::string::npos;)
          Why.replace(At, Path.size(), Name);
      return "not an address map of the shared run's binary: " + Why;
    }
    Maps.push_back(std::move(*M));
    return "";
  }

  void fallBack(PreparedVariant PV, std::string Why) {
    std::lock_guard<std::mutex> L(Lock);
    Fallbacks.push_back({std::move(PV), std::move(Why)});
  }

  void recordAll(const Measurement &M) {
    for (Recorder *Rec : Recs)
      Rec->record(M);
  }

  void runOwn(OwnRun &R) {
    applyExecAs(O, R.PV, VariantExecPath);
    std::vector<Measurement> Ms = measureSimAll(O, T, R.PV);
    for (size_t G = 0; G < Recs.size(); ++G) {
      Measurement &M = Ms[G];
      // A failure is its own story: the shared run failed the same way.
      if (!M.Failed && !R.Why.empty() && M.Fallback.empty())
        M.Fallback = R.Why;
      Recs[G]->record(std::move(M));
    }
  }

  void runGroup(Group &G, size_t Number) {
    if (G.Members.empty()) {
      OwnRun Alone{std::move(G.Base), ""};
      return runOwn(Alone);
    }
    std::string MapFile = formatv("{0}/keel-sim-{1}.map", WorkDir, Number).str();
    Expected<ExeExtent> E = exeExtent(G.Base.Argv[0]);
    Error WE = E ? writeOutput(MapFile,
                               [&](raw_ostream &OS) {
                                 writeKeelSimMap(OS, *E, G.Maps);
                                 return Error::success();
                               })
                 : E.takeError();
    if (!WE && G.Part > 0)
      WE = errorCodeToError(sys::fs::create_directories(
          formatv("{0}/part{1}", G.Base.Dir, G.Part).str()));
    if (WE) {
      std::string Why = "no address map: " + toString(std::move(WE));
      for (PreparedVariant &PV : G.Members)
        fallBack(std::move(PV), Why);
      if (G.Part > 0)
        return;
      OwnRun Base{G.Base, ""};
      return runOwn(Base);
    }
    PreparedVariant Run = G.Base;
    if (G.Part > 0)
      Run.Dir = formatv("{0}/part{1}", G.Base.Dir, G.Part).str();
    applyExecAs(O, Run, VariantExecPath);
    std::string OutFile = Run.Dir + "/keel-sim.out";
    sys::fs::remove(OutFile);
    EngineOptions Shared = O; // the run's timeout covers all its variants
    Shared.TimeoutSeconds = O.TimeoutSeconds * unsigned(1 + G.Members.size());
    PreparedVariant WithEnv = Run;
    WithEnv.Env = simRunEnv(T, Run);
    nameByDescriptor(O, T, WithEnv);
    RunOutcome R = runVariantCommand(
        Shared, WithEnv, simRunArgv(O, T, Run, OutFile, MapFile),
        Run.Dir + "/stderr");
    Expected<std::string> Text =
        R.Failed ? Expected<std::string>(makeError("{0}", R.Reason))
                 : readWholeFile(OutFile);
    Expected<KeelSimOutput> K =
        Text ? parseKeelSimText(*Text, OutFile)
             : Expected<KeelSimOutput>(Text.takeError());
    if (K && K->Variants.size() != 1 + G.Members.size())
      K = makeError("{0}: {1} variants, expected {2}", OutFile,
                    K->Variants.size(), 1 + G.Members.size());
    if (K && llvm::any_of(K->Variants, [&](const KeelSimOutput::Variant &KV) {
          return KV.ByGeometry.size() != Recs.size();
        }))
      K = makeError("{0}: not {1} geometries per variant", OutFile, Recs.size());
    if (!K) {
      // Every variant learns its own fate (the program may fail in one
      // layout only).
      std::string Why = "the shared keel-sim run failed: " + toString(K.takeError());
      for (PreparedVariant &PV : G.Members)
        fallBack(std::move(PV), Why);
      if (G.Part == 0)
        fallBack(std::move(G.Base), Why);
      return;
    }
    if (K->Forks || K->Execs) {
      std::string Why = processNote(*K);
      for (size_t Geo = 0; Geo < Recs.size() && G.Part == 0; ++Geo) {
        Measurement M = simCounts(O, G.Base.V, K->Variants[0].ByGeometry[Geo],
                                  K->FunctionIr);
        M.Fallback = Why;
        Recs[Geo]->record(std::move(M));
      }
      for (PreparedVariant &PV : G.Members)
        fallBack(std::move(PV), Why);
      return;
    }
    for (size_t Geo = 0; Geo < Recs.size() && G.Part == 0; ++Geo)
      Recs[Geo]->record(simCounts(O, G.Base.V, K->Variants[0].ByGeometry[Geo],
                                  K->FunctionIr));
    for (size_t I = 0; I < G.Members.size(); ++I) {
      KeelSimOutput::Variant &KV = K->Variants[1 + I];
      if (KV.Unmapped) {
        fallBack(std::move(G.Members[I]),
                 formatv("its map of the shared run's binary missed {0} "
                         "access{1} inside the executable (bytes no symbol or "
                         "section covers)",
                         KV.Unmapped,
                         KV.Unmapped == 1 ? "" : "es")
                     .str());
        continue;
      }
      // The same instructions as the base: the same per-function counts.
      for (size_t Geo = 0; Geo < Recs.size(); ++Geo)
        Recs[Geo]->record(simCounts(O, G.Members[I].V, KV.ByGeometry[Geo],
                                    K->FunctionIr));
    }
  }

  const EngineOptions &O;
  Perturber &P;
  const SimTools &T;
  std::string WorkDir;
  std::vector<Recorder *> Recs;
  std::vector<OwnRun> Own, Fallbacks;
  std::mutex Lock;
};

/// time: interleaved rounds need every variant built first; the A/A copies
/// are of the first variant's binary.
Error measureWithTime(const EngineOptions &O, Perturber &P, StringRef WorkDir,
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
    applyExecAs(O, *PV, O.Binary);
    Cmds.push_back(TimedCommand{V, PV->Argv, PV->Env, PV->ExecFile});
  }
  if (Cmds.empty())
    return Error::success();
  TimeOptions TO = O.Time;
  if (TO.TimeoutSeconds == 0)
    TO.TimeoutSeconds = O.TimeoutSeconds;
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

/// The backend's tools; a missing one is the machine's limit (exit 3).
struct BackendTools {
  SimTools Sim;
  std::string Perf;
};

Expected<BackendTools> backendTools(const EngineOptions &O) {
  BackendTools T;
  if (isSimBackend(O.Backend)) {
    T.Sim.KeelSimLib = O.KeelSimLib;
    if (!O.Frontend.empty() && T.Sim.KeelSimLib.empty())
      return make_error<UnavailableError>(
          formatv("--cost={0} measures with keel-sim, which is not built here "
                  "(no keel-sim-amd64-linux in $KEEL_SIM_LIB or in lib/keel-sim "
                  "beside layout-sweep; it needs valgrind's tool headers)",
                  O.Frontend)
              .str());
    Expected<std::string> V = findValgrind(ValgrindLauncher::Binary);
    if (!V)
      return V.takeError();
    T.Sim.Valgrind = *V;
    T.Sim.KeelSim = O.Backend == "sim" && !T.Sim.KeelSimLib.empty();
    if (T.Sim.KeelSim)
      T.Sim.Frontend = O.Frontend;
    if (O.Backend == "sim" && !T.Sim.KeelSim)
      T.Sim.Note = "keel-sim is not built here (no keel-sim-amd64-linux in "
                   "$KEEL_SIM_LIB or in lib/keel-sim beside layout-sweep): "
                   "--backend=sim measured with cachegrind, one run per "
                   "variant";
  } else if (O.Backend == "perf") {
    if (Error E = checkPerfCounters())
      return std::move(E);
    Expected<std::string> P = findProgram("perf");
    if (!P)
      return P.takeError();
    T.Perf = *P;
  }
  return T;
}

/// keel-sim's fallbacks as notes, one per reason, in variant order.
void fallbackNotes(const SweepResult &R, std::vector<std::string> &Notes) {
  std::vector<std::pair<std::string, std::vector<std::string>>> ByWhy;
  auto Add = [&](const std::vector<Measurement> &Ms) {
    for (const Measurement &M : Ms) {
      if (M.Fallback.empty())
        continue;
      auto It = llvm::find_if(ByWhy, [&](const auto &P) { return P.first == M.Fallback; });
      if (It == ByWhy.end())
        It = ByWhy.insert(ByWhy.end(), {M.Fallback, {}});
      It->second.push_back(M.V.key());
    }
  };
  Add(R.Ms);
  if (R.Compare)
    Add(R.Compare->Ms);
  for (auto &[Why, Keys] : ByWhy) {
    std::string List;
    for (size_t I = 0; I < Keys.size() && I < 8; ++I)
      List += (I ? ", " : "") + Keys[I];
    if (Keys.size() > 8)
      List += formatv(" and {0} more", Keys.size() - 8).str();
    Notes.push_back(formatv("keel-sim: {0} variant{1} ran on {2} own binary "
                            "({3}): {4}",
                            Keys.size(), Keys.size() == 1 ? "" : "s",
                            Keys.size() == 1 ? "its" : "their", List, Why)
                        .str());
  }
}

Error makeWorkDir(const EngineOptions &O, WorkDirGuard &WD) {
  if (O.WorkDir.empty()) {
    Expected<std::string> D = makePrivateTempDir("layout-sweep");
    if (!D)
      return D.takeError();
    WD.Dir = *D;
    WD.Remove = true;
    return Error::success();
  }
  // Absolute, so relink commands that change directory still find {out}.
  SmallString<256> Abs(O.WorkDir);
  sys::fs::make_absolute(Abs);
  WD.Dir = Abs.str().str();
  return prepareOutputDir(WD.Dir);
}

/// Sort, split into series, refuse an all-failed sweep, check instructions.
/// \p Binaries: a variant's binary per series (for its symbols); without
/// one (every variant came from the journal) the binary as given.
Error finishResult(const EngineOptions &O, std::vector<Measurement> Results,
                   std::map<std::string, std::string> Binaries,
                   const std::map<int64_t, std::string> &Built,
                   SweepResult &R) {
  R.Binary = O.Binary;
  R.Args = O.Args;
  R.Backend = O.Backend;
  R.Axis = O.Perturb.Axis;
  R.Relink = O.Perturb.RelinkTemplate;
  if (isSimBackend(O.Backend)) {
    R.Backend = "sim"; // cachegrind or keel-sim: the same counters
    R.CacheGeometry = geometryText(O.Geometry);
    R.GeometryPreset = O.GeometryPreset;
    R.Weights = O.Weights;
  }
  llvm::sort(Results, [](const Measurement &A, const Measurement &B) {
    return A.V < B.V;
  });
  std::vector<Measurement> Compare;
  for (Measurement &M : Results)
    (M.V.Series == "base" ? R.Ms : Compare).push_back(std::move(M));
  if (O.CompareBinary)
    R.Compare = Series{"compare", *O.CompareBinary, std::move(Compare),
                       O.Perturb.CompareRelinkTemplate};
  if (!R.Ms.empty() &&
      all_of(R.Ms, [](const Measurement &M) { return M.Failed; }))
    return makeError("every variant failed, so the program (or the relink "
                     "command) is broken, not its layout; first: {0}: {1}",
                     R.Ms.front().V.key(), R.Ms.front().FailReason);
  auto OwnFunctions = [&](StringRef Series, StringRef Given) {
    auto It = Binaries.find(Series.str());
    std::string Bin = It != Binaries.end() ? It->second : Given.str();
    return definedFunctions(Bin);
  };
  fallbackNotes(R, R.Notes);
  checkCodeMoved(R, Built);
  checkInstructions(R, R.Ms, "base", O.InstructionTolerance,
                    OwnFunctions("base", O.Binary));
  if (R.Compare)
    checkInstructions(R, R.Compare->Ms, "compare", O.InstructionTolerance,
                      OwnFunctions("compare", *O.CompareBinary));
  return Error::success();
}

} // namespace

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
      (*P)->prepare(Variant{"base", O.Perturb.Axis, O.G.From}, 0);
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
  PO.Axis = "heap";
  Expected<std::unique_ptr<Perturber>> P =
      Perturber::create(PO, WD.Dir, {{"base", Binary.str()}}, O.Args);
  if (!P)
    return P.takeError();
  Expected<Perturber::Plan> Pl = (*P)->describe(Variant{"base", "heap", 0}, 0);
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

/// \p O measuring its geometry number \p G alone (0: Geometry), with that
/// geometry's journal.
static EngineOptions forGeometry(const EngineOptions &O, size_t G) {
  EngineOptions R = O;
  if (G > 0) {
    R.Geometry = O.MoreGeometries[G - 1];
    R.JournalPath =
        G - 1 < O.MoreJournalPaths.size() ? O.MoreJournalPaths[G - 1] : "";
    R.Progress = nullptr;
    R.Started = nullptr;
  }
  R.MoreGeometries.clear();
  R.MoreJournalPaths.clear();
  return R;
}

/// What every sweep sets up before any variant is built, in this order:
/// the binaries and perturbation options are checked before anything is
/// written (the --keep-dir directory included), then the work directory,
/// the perturber and the backend's tools.
struct SweepSetup {
  WorkDirGuard WD;
  std::unique_ptr<Perturber> P;
  BackendTools Tools;
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
  Expected<BackendTools> T = backendTools(O);
  if (!T)
    return T.takeError();
  S.Tools = std::move(*T);
  return Error::success();
}

/// keel-sim measured a code or data sweep without maps: say why every pad
/// had its own run.
static void noteOwnRuns(const EngineOptions &O, SweepResult &R) {
  if (!keelSimMaps(O) && (O.Perturb.Axis == "code" || O.Perturb.Axis == "data"))
    R.Notes.push_back("keel-sim: with --exec-as=path every variant has its "
                      "own argv[0], so each ran on its own binary "
                      "(--exec-as=fd lets one run serve every pad)");
}

/// The sweep's journal (none without a path), and in \p Done what an earlier
/// run of it finished that this grid still has.
static Expected<std::unique_ptr<Journal>>
openJournal(const EngineOptions &O, ArrayRef<Variant> All,
            std::vector<Measurement> &Done) {
  std::unique_ptr<Journal> J;
  if (!O.JournalPath.empty()) {
    Expected<std::unique_ptr<Journal>> JO = Journal::open(
        O.JournalPath, sweepFingerprint(O), O.Resume, O.OverwriteJournal, Done);
    if (!JO)
      return JO.takeError();
    J = std::move(*JO);
  }
  Done = reuseJournal(O, std::move(Done), All);
  return std::move(J);
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

  std::vector<Variant> All = gridVariants(O, Offsets);
  std::vector<std::unique_ptr<Journal>> Js(NG);
  std::vector<std::unique_ptr<Recorder>> Recs;
  std::map<Variant, size_t> DoneIn; // how many geometries have the variant
  for (size_t G = 0; G < NG; ++G) {
    std::vector<Measurement> Done;
    Expected<std::unique_ptr<Journal>> JO = openJournal(Os[G], All, Done);
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
  KeelSimSweep(O, *S.P, S.Tools.Sim, S.WD.Dir, Ptrs).run(Work);
  if (int Sig = stopSignal())
    return stoppedSweep(Sig, Recs[0]->done(), All.size(), Os[0].JournalPath);
  std::vector<SweepResult> Out;
  for (size_t G = 0; G < NG; ++G) {
    if (Error E = Recs[G]->takeError())
      return std::move(E);
    SweepResult R;
    R.SimTool = "keel-sim";
    noteOwnRuns(O, R);
    if (Error E = finishResult(Os[G], Recs[G]->takeResults(),
                               Recs[G]->takeBinaries(), Recs[G]->takeBuilt(), R))
      return std::move(E);
    Out.push_back(std::move(R));
  }
  return Out;
}

Expected<std::vector<SweepResult>> runSweeps(const EngineOptions &O) {
  std::vector<SweepResult> Out;
  if (!O.MoreGeometries.empty() && O.Backend == "sim" &&
      O.Executor != SlurmExecutor &&
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
  std::vector<Variant> All = gridVariants(O, Offsets);
  std::vector<Measurement> Done;
  Expected<std::unique_ptr<Journal>> JO = openJournal(O, All, Done);
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
  if (O.Backend == "time") {
    if (Error E = measureWithTime(O, *S.P, S.WD.Dir, Work, Rec, R))
      Rec.fail(std::move(E));
  } else if (O.Executor == SlurmExecutor) {
    SlurmSink Sink{[&](Measurement M) { Rec.record(std::move(M)); },
                   [&](StringRef S, StringRef B) { Rec.binarySeen(S, B); }};
    if (Error E = measureOnSlurm(O, *S.P, S.Tools.Sim, S.WD.Dir, Work, Sink)) {
      // The message names the tasks' task-N.out files in the work
      // directory: they must still be there when the user reads it.
      if (S.WD.Remove && !E.isA<UnavailableError>() && !stopSignal()) {
        S.WD.Remove = false;
        E = makeError("{0} (the work directory {1} is kept for its files; "
                      "remove it when done)",
                      toString(std::move(E)), S.WD.Dir);
      }
      Rec.fail(std::move(E));
    }
  } else if (S.Tools.Sim.KeelSim) {
    KeelSimSweep(O, *S.P, S.Tools.Sim, S.WD.Dir, {&Rec}).run(Work);
  } else {
    measureInParallel(O, *S.P, S.Tools.Sim, S.Tools.Perf, Work, Rec);
  }
  if (int Sig = stopSignal()) {
    consumeError(Rec.takeError());
    return stoppedSweep(Sig, Rec.done(), All.size(), O.JournalPath);
  }
  if (Error E = Rec.takeError())
    return std::move(E);

  if (isSimBackend(O.Backend)) {
    R.SimTool = S.Tools.Sim.KeelSim ? "keel-sim" : "cachegrind";
    if (!S.Tools.Sim.Note.empty())
      R.Notes.push_back(S.Tools.Sim.Note);
    if (S.Tools.Sim.KeelSim)
      noteOwnRuns(O, R);
  }
  if (Error E = finishResult(O, Rec.takeResults(), Rec.takeBinaries(),
                             Rec.takeBuilt(), R))
    return std::move(E);
  return R;
}

} // namespace sweep
} // namespace keel
