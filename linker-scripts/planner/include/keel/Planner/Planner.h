//===- keel/Planner/Planner.h - from a profile to a layout plan -*- C++ -*-===//
//
// The planner's phases, each a function over narrow types:
//   classify (hot/warm/cold by coverage, or by density under a budget) -> order the hot functions ->
//   select hot data (by weight, written apart from read-mostly) -> LayoutPlan.
// The LayoutPlan holds the plan file (keel::Plan) and what the linker files
// need (symbol order, data order, call graph); Emit.h renders them.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_PLANNER_PLANNER_H
#define KEEL_PLANNER_PLANNER_H

#include "keel/Plan/Plan.h"
#include "keel/Planner/CallGraph.h"
#include "keel/Planner/FunctionOrder.h"
#include "keel/Planner/HotData.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace keel {

struct PlannerOptions {
  double HotCoverage = 0.99;  ///< share of executed instructions in hot code
  /// Hot set sized by a cache budget (layout-order --hot-budget), in bytes:
  /// the densest executed functions (weight per byte) that fit in it and
  /// cover at most HotCoverage are hot, and come first in the text, before
  /// every warm function; spacers pack the hot ones only. 0: hot by
  /// coverage alone, hot and warm interleaved in the planned order.
  uint64_t HotBudget = 0;
  /// With a hot budget: hot functions holding at least this percentage of
  /// the weight (an interpreter's dispatch loop) move to the end of the hot
  /// tier, lighter first, the heaviest last, so that code growing in or
  /// right after them moves only the warm tier. 0: off.
  double DominantLastShare = 0;
  /// With a hot budget: the linker scripts place the warm parts block
  /// layout's warm split makes (.text.hot.*.__part.*) right after the hot
  /// tier, before the warm functions; otherwise (and without a budget) they
  /// follow every planned function.
  bool WarmPartsAfterHotTier = false;
  /// Bytes per function that override the binary's symbol sizes for the
  /// budget (the hot parts block layout keeps).
  std::map<std::string, uint64_t> Sizes;
  double DataCoverage = 0.99; ///< share of data references in hot data
  OrderAlgorithm Order = DefaultOrderAlgorithm;
  /// Most cold functions named one by one in the linker scripts: a linker
  /// matches every input section against every pattern, so a huge list
  /// makes links slow. Above it only .text.unlikely* (the plugin's
  /// prefix) goes to the cold section.
  uint64_t ColdPatternLimit = 10000;
  uint64_t HotTextAlign = 4096;
  uint64_t HotDataAlign = 4096;
  uint64_t FunctionAlign = 16; ///< written to the plan for the pass plugin
  /// Default __keel_code_pad the linker scripts use when --defsym does not
  /// set it (layout-order --code-pad).
  uint64_t CodePad = 0;
  std::string BinaryName;      ///< recorded in the plan
  std::string BuildID;
};

/// Where the size a function was packed with came from (Spacers.h).
enum class PackSizeSource {
  Symbol,    ///< the profiled binary's symbol size
  Estimated, ///< block layout's estimate of the hot part (sizes.txt)
  Given,     ///< layout-order --section-sizes: measured in a linked binary
};
const char *packSizeSourceName(PackSizeSource S);

/// One function of the packed hot text, as the spacers placed it.
struct PackedFunction {
  size_t Index = 0;   ///< into LayoutPlan::TextOrder
  uint64_t Offset = 0; ///< from the hot region's start, spacers included
  uint64_t Size = 0;   ///< bytes the packing counted
  PackSizeSource Source = PackSizeSource::Symbol;
};

struct LayoutPlan {
  Plan File;                          ///< plan.yaml
  CallGraph Graph;                    ///< the graph planned from
  std::vector<Temperature> Classes;   ///< per graph node
  /// Every executed node (hot and warm) in planned order: the order is
  /// computed over all of them at once, because ordering the hot ones and
  /// the 1% warm tail separately cost I1 misses on Lua (docs/planner.md).
  std::vector<uint32_t> TextOrder;
  /// With a hot budget TextOrder lists every hot node before every warm
  /// one (the planned order, partitioned), and spacers pack the hot ones.
  bool HotFirst = false;
  uint64_t HotBudget = 0;             ///< PlannerOptions::HotBudget
  uint64_t HotBytes = 0;              ///< bytes of the hot nodes (budget sizes)
  std::vector<uint32_t> HotOrder;     ///< the hot nodes of TextOrder
  /// With HotFirst: the warm parts of the block layout go between the hot
  /// tier and the warm one (PlannerOptions::WarmPartsAfterHotTier).
  bool WarmPartsAfterHotTier = false;
  std::vector<uint32_t> WarmOrder;    ///< the warm nodes of TextOrder
  std::vector<uint32_t> Cold;         ///< never-executed nodes, address order
  std::vector<HotDatum> HotData;      ///< planned order (read-mostly first)
  OrderAlgorithm Order = DefaultOrderAlgorithm;
  uint64_t ColdPatternLimit = 10000;
  /// Spacers (Spacers.h, layout-order --spacers): per TextOrder index,
  /// whether an alignment to the next File.Spacers boundary (from the hot
  /// region's start) precedes it. Empty when there are none.
  std::vector<bool> SpacerBefore;
  /// With a hot budget and spacers: the warm tier starts at this fixed
  /// offset from the region's start (the tier's end rounded up to W, plus
  /// W), written as `. = MAX(., start + WarmStart)` before the TextOrder
  /// entry WarmStartIndex, so growth of up to W inside the tier moves
  /// nothing after it. 0: none.
  uint64_t WarmStart = 0;
  size_t WarmStartIndex = 0;
  size_t SpacerCount = 0;
  size_t PackEndCount = 0;      ///< spacers after a function ending its pack
  uint64_t SpacerPadBytes = 0;  ///< bytes the spacers add (estimated)
  uint64_t PackedTextBytes = 0; ///< hot text size with them (estimated)
  /// The functions the spacers packed, in TextOrder, with the size each was
  /// packed with and its source (layout-order writes spacer-sizes.txt).
  std::vector<PackedFunction> Packed;

  /// How many of Packed have their size from \p S.
  size_t packedFrom(PackSizeSource S) const;

  size_t countOf(Temperature T) const;
  uint64_t weightOf(Temperature T) const;
};

/// Plan \p G with the data \p Data (already ranked). Errors when nothing was
/// executed (nothing to plan).
llvm::Expected<LayoutPlan> makeLayoutPlan(CallGraph G,
                                          std::vector<HotDatum> Data,
                                          const PlannerOptions &Opts);

} // namespace keel

#endif
