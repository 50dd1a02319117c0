//===- keel/Profile/CallChain.h - caller->callee arcs of a callchain -*- C++ -*-===//
//
// What a sampled callchain (perf record -g: PERF_SAMPLE_CALLCHAIN, or the
// frame lines of `perf script`) says about the call graph, for profiles
// without branch stacks. A callchain is newest first: the sampled IP, then
// one return address per active call. Frame i+1 called frame i, so the
// sample gives one caller -> callee pair per adjacent pair of frames:
//  - a return address points after its call; the call site is the address
//    before it (perf subtracts 1 before symbolizing, so does this);
//  - PERF_CONTEXT_* markers (values >= (uint64_t)-4095: kernel, user,
//    guest...) separate contexts; the frame after a marker is that
//    context's interrupted IP (exact, no -1), and no pair crosses one;
//  - each pair counts once per sample, however often the chain repeats it
//    (recursion), and a function calling itself gives no pair: perf's
//    callchain code (`perf report -g --children`) adds a sample's period
//    once per distinct entry of its chain in the same way, and hfsort
//    (Ottoni and Maher, "Optimizing Function Placement for Large-Scale
//    Data-Center Applications", CGO'17) weighs arcs by samples. The weight
//    is the caller's to choose (docs/planner.md).
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_PROFILE_CALLCHAIN_H
#define KEEL_PROFILE_CALLCHAIN_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <utility>

namespace keel {

/// Is \p V a PERF_CONTEXT_* marker rather than an address (PERF_CONTEXT_MAX
/// is (uint64_t)-4095 in <linux/perf_event.h>)?
inline bool isCallChainContext(uint64_t V) { return V >= uint64_t(-4095); }

/// The caller -> callee pairs one callchain gives, newest frame first in
/// \p Frames (with or without context markers). \p Key maps a code address
/// (an IP, or a return address minus 1) to what the pair is counted by --
/// the entry of its function, say -- or 0 for an address not counted
/// (outside the binary, in no function); a pair with a 0 end is dropped,
/// and the frames around it still pair with their own neighbours. A frame
/// of value 0 (perf's end of a chain) maps to 0 without asking \p Key.
/// \p Out gets the distinct (caller key, callee key) pairs, caller first,
/// in the order the chain first gives them (innermost first); it is
/// cleared first.
void callChainArcs(llvm::ArrayRef<uint64_t> Frames,
                   llvm::function_ref<uint64_t(uint64_t)> Key,
                   llvm::SmallVectorImpl<std::pair<uint64_t, uint64_t>> &Out);

} // namespace keel

#endif
