//===- keel/Planner/FunctionOrder.h - order the hot functions ---*- C++ -*-===//
//
// Function ordering algorithms over the weighted call graph:
//  - c3:     Call-Chain Clustering (Ottoni & Maher, CGO'17, "hfsort").
//  - ph:     Pettis & Hansen, "Profile guided code positioning" (PLDI'90).
//  - cdsort: Cache-Directed Sort, LLVM's implementation
//            (llvm::codelayout::computeCacheDirectedLayout), as lld uses it.
//  - exttsp: Ext-TSP (Newell & Pupyrev), LLVM's computeExtTspLayout applied
//            to functions with calls as jumps.
//  - none:   keep the profiled binary's address order.
// Each returns a permutation of the given node set.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_PLANNER_FUNCTIONORDER_H
#define KEEL_PLANNER_FUNCTIONORDER_H

#include "keel/Planner/CallGraph.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace keel {

enum class OrderAlgorithm { C3, PettisHansen, CDSort, ExtTsp, None };

llvm::StringRef orderAlgorithmName(OrderAlgorithm A);
std::optional<OrderAlgorithm> parseOrderAlgorithm(llvm::StringRef Name);

/// The default, chosen by measurement (docs/planner.md).
constexpr OrderAlgorithm DefaultOrderAlgorithm = OrderAlgorithm::C3;

/// Largest C3 cluster in bytes. The paper stops merging at a page (4 KB)
/// for the iTLB; on examples/planner-bench a 4 KB limit gave 4% more I1
/// misses than 1 MB (lld's choice), and no iTLB effect is measurable here,
/// so the default follows lld (docs/planner.md).
constexpr uint64_t C3ClusterLimit = 1 << 20;

std::vector<uint32_t> orderC3(const CallGraph &G,
                              llvm::ArrayRef<uint32_t> Nodes,
                              uint64_t ClusterLimit = C3ClusterLimit);
std::vector<uint32_t> orderPettisHansen(const CallGraph &G,
                                        llvm::ArrayRef<uint32_t> Nodes);
std::vector<uint32_t> orderCDSort(const CallGraph &G,
                                  llvm::ArrayRef<uint32_t> Nodes);
std::vector<uint32_t> orderExtTsp(const CallGraph &G,
                                  llvm::ArrayRef<uint32_t> Nodes);

/// Dispatch on \p A.
std::vector<uint32_t> orderFunctions(OrderAlgorithm A, const CallGraph &G,
                                     llvm::ArrayRef<uint32_t> Nodes);

} // namespace keel

#endif
