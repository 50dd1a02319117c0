//===- Planner.cpp - classify, order, select hot data ---------------------===//
#include "keel/Planner/Planner.h"
#include "keel/Planner/Classify.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace llvm;

namespace keel {

size_t LayoutPlan::countOf(Temperature T) const {
  return llvm::count(Classes, T);
}

uint64_t LayoutPlan::weightOf(Temperature T) const {
  uint64_t W = 0;
  for (size_t I = 0; I < Classes.size(); ++I)
    if (Classes[I] == T)
      W += Graph.Nodes[I].Weight;
  return W;
}

size_t LayoutPlan::packedFrom(PackSizeSource S) const {
  return llvm::count_if(Packed,
                        [&](const PackedFunction &F) { return F.Source == S; });
}

const char *packSizeSourceName(PackSizeSource S) {
  switch (S) {
  case PackSizeSource::Symbol:
    return "symbol";
  case PackSizeSource::Estimated:
    return "estimated";
  case PackSizeSource::Given:
    return "given";
  }
  return "symbol";
}

/// Hot data: the heaviest data covering \p Coverage of all references,
/// read-mostly first, then written, each group heaviest first (as in the
/// spacer report, hot data contiguous; written data apart so stores do not
/// invalidate lines shared with data that is only read).
static std::vector<HotDatum> selectHotData(std::vector<HotDatum> Data,
                                           double Coverage) {
  std::vector<uint64_t> W;
  for (const HotDatum &D : Data)
    W.push_back(D.Weight);
  std::vector<Temperature> C = classifyByCoverage(W, Coverage);
  std::vector<HotDatum> Read, Written;
  for (size_t I = 0; I < Data.size(); ++I)
    if (C[I] == Temperature::Hot)
      (Data[I].Written ? Written : Read).push_back(std::move(Data[I]));
  llvm::append_range(Read, Written);
  return Read;
}

static Plan makePlanFile(const LayoutPlan &LP, const PlannerOptions &Opts) {
  Plan P;
  P.Binary = Opts.BinaryName;
  P.BuildID = Opts.BuildID;
  P.HotCoverage = Opts.HotCoverage;
  P.FunctionAlign = Opts.FunctionAlign;
  P.HotTextAlign = Opts.HotTextAlign;
  P.HotDataAlign = Opts.HotDataAlign;
  P.CodePad = Opts.CodePad;
  // Our scripts align the regions and put the pads after that alignment.
  P.LinkerAlignsRegions = true;
  // Hot functions in planned order, then warm ones (the linker files
  // interleave both as TextOrder says), then cold ones in address order.
  for (size_t I = 0; I < LP.HotOrder.size(); ++I) {
    const FunctionNode &N = LP.Graph.Nodes[LP.HotOrder[I]];
    P.Functions.push_back({N.Name, N.File, Temperature::Hot, I, N.Weight, 0});
  }
  for (size_t I = 0; I < LP.WarmOrder.size(); ++I) {
    const FunctionNode &N = LP.Graph.Nodes[LP.WarmOrder[I]];
    P.Functions.push_back({N.Name, N.File, Temperature::Warm, I, N.Weight, 0});
  }
  for (uint32_t C : LP.Cold) {
    const FunctionNode &N = LP.Graph.Nodes[C];
    P.Functions.push_back({N.Name, N.File, Temperature::Cold, 0, 0, 0});
  }
  for (size_t I = 0; I < LP.HotData.size(); ++I) {
    const HotDatum &D = LP.HotData[I];
    P.Globals.push_back({D.Name, D.File, D.Kind, I, D.Weight, D.Written});
  }
  return P;
}

Expected<LayoutPlan> makeLayoutPlan(CallGraph G, std::vector<HotDatum> Data,
                                    const PlannerOptions &Opts) {
  if (!(Opts.HotCoverage > 0 && Opts.HotCoverage <= 1))
    return makeError("hot coverage {0} is not in (0, 1]", Opts.HotCoverage);
  if (G.totalWeight() == 0)
    return makeError("no function of the binary executed in the profile: "
                     "nothing to plan");
  LayoutPlan LP;
  LP.Order = Opts.Order;
  LP.ColdPatternLimit = Opts.ColdPatternLimit;
  std::vector<uint64_t> W;
  for (const FunctionNode &N : G.Nodes)
    W.push_back(N.Weight);
  // Sizes for the budget: the overrides (hot parts) or the symbol sizes.
  std::vector<uint64_t> Sz;
  for (const FunctionNode &N : G.Nodes) {
    auto It = Opts.Sizes.find(N.Name);
    Sz.push_back(It != Opts.Sizes.end() ? It->second : N.Size);
  }
  LP.Classes = Opts.HotBudget
                   ? classifyByDensity(W, Sz, Opts.HotBudget, Opts.HotCoverage)
                   : classifyByCoverage(W, Opts.HotCoverage);
  std::vector<uint32_t> Executed;
  for (uint32_t I = 0; I < G.Nodes.size(); ++I)
    (LP.Classes[I] == Temperature::Cold ? LP.Cold : Executed).push_back(I);
  LP.TextOrder = orderFunctions(Opts.Order, G, Executed);
  if (Opts.HotBudget) {
    // The hot tier first, in the planned order; the warm tier after it.
    LP.HotFirst = true;
    LP.HotBudget = Opts.HotBudget;
    LP.WarmPartsAfterHotTier = Opts.WarmPartsAfterHotTier;
    std::stable_partition(LP.TextOrder.begin(), LP.TextOrder.end(),
                          [&](uint32_t N) {
                            return LP.Classes[N] == Temperature::Hot;
                          });
    // Dominant functions last in the hot tier, the heaviest last.
    if (Opts.DominantLastShare > 0) {
      const long double Total = G.totalWeight();
      auto Dominant = [&](uint32_t N) {
        return LP.Classes[N] == Temperature::Hot &&
               100.0L * G.Nodes[N].Weight / Total >= Opts.DominantLastShare;
      };
      auto HotEnd = std::find_if(LP.TextOrder.begin(), LP.TextOrder.end(),
                                 [&](uint32_t N) {
                                   return LP.Classes[N] != Temperature::Hot;
                                 });
      auto Mid = std::stable_partition(LP.TextOrder.begin(), HotEnd,
                                       [&](uint32_t N) { return !Dominant(N); });
      std::stable_sort(Mid, HotEnd, [&](uint32_t A, uint32_t B) {
        return G.Nodes[A].Weight < G.Nodes[B].Weight;
      });
    }
  }
  for (uint32_t I = 0; I < G.Nodes.size(); ++I)
    if (LP.Classes[I] == Temperature::Hot)
      LP.HotBytes += Sz[I];
  for (uint32_t N : LP.TextOrder)
    (LP.Classes[N] == Temperature::Hot ? LP.HotOrder : LP.WarmOrder)
        .push_back(N);
  LP.Graph = std::move(G);
  LP.HotData = selectHotData(std::move(Data), Opts.DataCoverage);
  LP.File = makePlanFile(LP, Opts);
  return LP;
}

} // namespace keel
