//===- PlanLayout.cpp - a layout plan from loaded profiles ----------------===//
#include "keel/Planner/PlanLayout.h"

#include "keel/Planner/CallGraph.h"
#include "keel/Planner/HotData.h"
#include "keel/Profile/Binary.h"

#include <set>
#include <string>

using namespace llvm;

namespace keel {

namespace {

/// What the planner plans from: the call graph and the ranked hot data.
struct ProfileAnalysis {
  CallGraph Graph;
  std::vector<HotDatum> Data;
};

} // namespace

/// Every profile merged into one symbolic profile: fdata as read, the
/// address formats symbolized in \p Bin.
static BranchProfile mergeBySymbol(const Binary &Bin,
                                   ArrayRef<LoadedProfile> Profiles,
                                   QualityReport &Quality) {
  BranchProfile Merged;
  for (const LoadedProfile &LP : Profiles)
    Merged.merge(LP.Symbolic ? LP.Sym : symbolize(LP.Addr, Bin, Quality));
  return Merged;
}

/// How many functions \p P names, and how many of them \p Bin has.
static void matchFunctions(const BranchProfile &P, const Binary &Bin,
                           PlanReport &Report) {
  std::set<std::string> Named;
  auto Note = [&](const Location &L) {
    if (L.IsSymbol)
      Named.insert(L.Name);
  };
  for (const auto &[K, C] : P.Branches) {
    Note(K.first);
    Note(K.second);
  }
  for (const auto &[K, C] : P.FallThroughs) {
    Note(K.first);
    Note(K.second);
  }
  for (const auto &[L, C] : P.Samples)
    Note(L);
  size_t Found = 0;
  for (const std::string &N : Named)
    Found += Bin.functionByBoltName(N) != nullptr;
  Report.ProfiledFunctions = Named.size();
  Report.MatchedFunctions = Found;
}

/// \p P resolved to \p Bin's addresses, then the call graph and the data
/// the executed code touches.
static Expected<ProfileAnalysis> analyse(const Binary &Bin,
                                         const BranchProfile &P,
                                         PlanReport &Report) {
  QualityReport &Quality = Report.Quality;
  AddressProfile AP = resolve(P, Bin, Quality);
  inferFallThroughs(Bin, AP, Quality);
  Report.Records = P.Branches.size() + P.FallThroughs.size() + P.Samples.size();
  auto G = buildCallGraph(Bin, AP, Quality);
  if (!G)
    return G.takeError();
  auto Refs = collectDataReferences(Bin, AP, Quality);
  if (!Refs)
    return Refs.takeError();
  ProfileAnalysis A;
  A.Graph = std::move(*G);
  A.Data = rankHotData(Bin.dataSymbols(), Bin.sections(), *Refs,
                       Report.DataQuality);
  Report.DataReferences = Refs->size();
  Report.Analysed = true;
  return A;
}

/// The hot functions' blocks laid out from \p Profiles merged by address,
/// as layout-blocks reads them.
static Expected<std::vector<FunctionLayout>>
layOutBlocks(const Binary &Bin, ArrayRef<LoadedProfile> Profiles,
             const BlockLayoutOptions &Opts, PlanReport &Report) {
  QualityReport Quality; // the same records: counted by analyse already
  AddressProfile AP;
  for (const LoadedProfile &LP : Profiles)
    if (Error E = mergeByAddress(AP, LP, Bin, Quality))
      return std::move(E);
  auto L = planBlockLayout(Bin, AP, Opts, Report.BlockStats);
  if (!L)
    return L.takeError();
  if (L->empty())
    return inputError(Bin.path(), 0,
                      "--blocks: no profiled function has a block map "
                      "(build with -fbasic-block-address-map)");
  for (const FunctionLayout &F : *L) {
    Report.SplitFunctions += !F.ColdBlocks.empty();
    Report.KeptFunctions += F.KeptOrder;
  }
  Report.BlockFunctions = L->size();
  Report.BlocksLaidOut = true;
  return L;
}

/// The hot set's budget and the spacers count the laid-out functions' hot
/// parts, not the whole functions.
static void useHotPartSizes(ArrayRef<FunctionLayout> Layout,
                            PlannerOptions &Planner, SpacerOptions &Spacers) {
  for (const FunctionLayout &F : Layout) {
    Spacers.Sizes.emplace(F.Name, F.HotSize);
    Planner.Sizes.emplace(F.Name, F.HotSize);
  }
}

Expected<PlannedLayout> planLayout(const Binary &Bin,
                                   ArrayRef<LoadedProfile> Profiles,
                                   const LayoutOptions &Opts,
                                   PlanReport &Report) {
  if (Profiles.empty())
    return makeError("no profile: nothing to plan");
  StringRef Name = Profiles.front().Path;
  BranchProfile Merged = mergeBySymbol(Bin, Profiles, Report.Quality);
  if (Merged.empty())
    return inputError(Name, 0, "the profile is empty: nothing to plan");
  matchFunctions(Merged, Bin, Report);
  if (Report.MatchedFunctions == 0)
    return inputError(Name, 0,
                      "no function of the profile exists in {0}: the profile "
                      "is for another binary; nothing to plan",
                      Bin.path());
  auto A = analyse(Bin, Merged, Report);
  if (!A)
    return A.takeError();
  A->Graph.Source = callGraphSourceName(Profiles);
  PlannedLayout Out;
  PlannerOptions Planner = Opts.Planner;
  SpacerOptions Spacers = Opts.Spacers;
  if (Opts.Blocks) {
    auto L = layOutBlocks(Bin, Profiles, *Opts.Blocks, Report);
    if (!L)
      return L.takeError();
    useHotPartSizes(*L, Planner, Spacers);
    Out.Blocks = std::move(*L);
  }
  auto LP = makeLayoutPlan(std::move(A->Graph), std::move(A->Data), Planner);
  if (!LP)
    return inputError(Name, 0, "{0}", toString(LP.takeError()));
  if (Spacers.Window)
    Report.SpacerSizesUsed = addSpacers(*LP, Spacers);
  Out.Plan = std::move(*LP);
  return Out;
}

} // namespace keel
