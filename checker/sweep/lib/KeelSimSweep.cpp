//===- KeelSimSweep.cpp - keel-sim's shared runs -------------------------===//
//
// KeelSimSweep.h: variants grouped by series, each group's maps written,
// one shared run per group (split over the cores when large), and every
// variant that cannot be a map run on its own binary.
//
//===----------------------------------------------------------------------===//
#include "KeelSimSweep.h"

#include "keel/Support/Diagnostics.h"
#include "keel/Support/OutputFile.h"
#include "keel/Support/Process.h"
#include "keel/Sweep/Executor.h"
#include "keel/VariantMap/VariantMap.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"

#include <map>
#include <mutex>
#include <optional>

using namespace llvm;

namespace keel {
namespace sweep {

/// Can variants of this sweep be address maps of one run? Only when they
/// differ in their bytes' addresses alone: pads (code, data), and every
/// variant started by one name (--exec-as=fd; with path each has its own
/// argv[0]).
bool keelSimMaps(AxisKind Axis, const ExecutorOptions &X) {
  return (Axis == AxisKind::Code || Axis == AxisKind::Data) &&
         execAsMode(X) == "fd";
}

namespace {

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
    bool Maps = keelSimMaps(O.Perturb.Axis, O);
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
    ExecutorOptions Shared = O; // the run's timeout covers all its variants
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

} // namespace

void measureWithKeelSim(const EngineOptions &O, Perturber &P, const SimTools &T,
                        StringRef WorkDir, std::vector<Recorder *> Recs,
                        const Todo &Work) {
  KeelSimSweep(O, P, T, WorkDir, std::move(Recs)).run(Work);
}

} // namespace sweep
} // namespace keel
