//===- keel/Planner/CallGraph.h - the planner's view of a profile -*- C++ -*-===//
//
// The planner works on a weighted call graph over every function of the
// binary: a node per function (size, executed instructions, incoming calls),
// an arc per caller -> callee pair seen in the profile (its taken branches,
// or without them its callchains). Algorithms take this
// graph, so tests can build it by hand without a binary or a profile.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_PLANNER_CALLGRAPH_H
#define KEEL_PLANNER_CALLGRAPH_H

#include "keel/Profile/BranchProfile.h"
#include "keel/Support/Diagnostics.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace keel {

class Binary;

struct FunctionNode {
  std::string Name;    ///< symbol name (what order files and scripts use)
  std::string File;    ///< STT_FILE of a local symbol, "" for globals
  std::string Section; ///< output section holding it in the profiled binary
  uint64_t Addr = 0, Size = 0;
  bool IsLocal = false;
  /// Hotness: executed instructions when the profile has fall-through
  /// ranges, else samples (branch sources / IP samples). One unit per graph.
  uint64_t Weight = 0;
  uint64_t Calls = 0; ///< incoming call count
};

struct CallArc {
  uint32_t Caller = 0, Callee = 0; ///< node indices
  uint64_t Count = 0;
};

struct CallGraph {
  std::vector<FunctionNode> Nodes; ///< address order in the profiled binary
  std::vector<CallArc> Arcs;       ///< sorted by (Caller, Callee), no self arcs
  /// "instructions" or "samples": what FunctionNode::Weight counts.
  std::string WeightUnit = "instructions";
  /// What the arcs come from, in words (callGraphSourceName in
  /// keel/Profile/Load.h): "LBR", "callchains", "valgrind exact calls"...
  std::string Source = "none";

  uint64_t totalWeight() const;
  /// Add \p Count to the arc Caller -> Callee (keeps Arcs sorted).
  void addArc(uint32_t Caller, uint32_t Callee, uint64_t Count);
};

/// Profiles read from fdata have branch records only (perf2bolt writes
/// fall-throughs as records to the next block too). When \p AP has no
/// fall-through ranges, infer one per record: from its target to the first
/// branch, call or return after it (within the target's function), so
/// executed instructions can be counted and disassembled. No-op otherwise.
void inferFallThroughs(const Binary &Bin, AddressProfile &AP,
                       QualityReport &Quality);

/// Build the graph of \p Bin's functions weighted by \p AP. Problems that do
/// not stop planning are counted in \p Quality.
llvm::Expected<CallGraph> buildCallGraph(const Binary &Bin,
                                         const AddressProfile &AP,
                                         QualityReport &Quality);

} // namespace keel

#endif
