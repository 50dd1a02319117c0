//===- keel/Planner/PlanLayout.h - a layout plan from loaded profiles -*- C++ -*-===//
//
// The planner's one entry point from profiles to a plan (what layout-order
// runs): the profiles, each loaded once (keel/Profile/Load.h), are merged by
// symbol and checked against the binary -> resolved to its addresses -> call
// graph and hot data ranking -> with Blocks, the hot functions' basic blocks
// laid out from the same profiles merged by address (keel/Blocks) -> the
// plan (makeLayoutPlan) -> spacers (Spacers.h). Nothing is printed: what
// each phase found is left in a PlanReport for the caller to report, also
// when a later phase fails.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_PLANNER_PLANLAYOUT_H
#define KEEL_PLANNER_PLANLAYOUT_H

#include "keel/Blocks/BlockLayout.h"
#include "keel/Planner/Planner.h"
#include "keel/Planner/Spacers.h"
#include "keel/Profile/Load.h"
#include "keel/Support/Diagnostics.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace keel {

class Binary;

struct LayoutOptions {
  PlannerOptions Planner;
  SpacerOptions Spacers; ///< Spacers.Window 0: no spacers
  /// Also lay out the hot functions' basic blocks (the binary needs
  /// -fbasic-block-address-map). The hot set's budget and the spacers then
  /// count the hot parts' estimated sizes (the spacers a given size first:
  /// Spacers.GivenSizes).
  std::optional<BlockLayoutOptions> Blocks;
};

/// What planLayout found, filled phase by phase: a phase that did not run
/// leaves its fields at their defaults.
struct PlanReport {
  /// Functions the merged profile names, and how many of them the binary
  /// has (fewer: a stale or partial profile).
  size_t ProfiledFunctions = 0;
  size_t MatchedFunctions = 0;
  /// The profile was resolved and analysed (call graph, data references);
  /// Quality holds what that counted, out of Records profile records.
  bool Analysed = false;
  uint64_t Records = 0;
  QualityReport Quality;
  size_t DataReferences = 0; ///< referenced data addresses
  QualityReport DataQuality; ///< references outside every data symbol
  /// With Blocks, once at least one function was laid out.
  bool BlocksLaidOut = false;
  BlockMapStats BlockStats;
  size_t BlockFunctions = 0; ///< functions laid out
  size_t SplitFunctions = 0; ///< of them, with a cold part
  size_t KeptFunctions = 0;  ///< of them, in the compiler's block order
  /// With spacers: how many functions of the hot text an override size
  /// (Spacers.Sizes or Spacers.GivenSizes) named.
  size_t SpacerSizesUsed = 0;
};

struct PlannedLayout {
  LayoutPlan Plan;
  /// With LayoutOptions::Blocks: the hot functions' block layouts.
  std::optional<std::vector<FunctionLayout>> Blocks;
};

/// Plan a layout of \p Bin from \p Profiles (in the order given; the
/// first one names the profile in errors). Errors: nothing to plan (an
/// empty profile, none of its functions in \p Bin, nothing executed), a
/// profile of another build-id (with Blocks), no block map (with Blocks).
llvm::Expected<PlannedLayout> planLayout(const Binary &Bin,
                                         llvm::ArrayRef<LoadedProfile> Profiles,
                                         const LayoutOptions &Opts,
                                         PlanReport &Report);

} // namespace keel

#endif
