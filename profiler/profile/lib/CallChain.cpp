//===- CallChain.cpp - caller->callee arcs of a callchain -----------------===//
#include "keel/Profile/CallChain.h"

#include "llvm/ADT/STLExtras.h"

using namespace llvm;

namespace keel {

void callChainArcs(ArrayRef<uint64_t> Frames,
                   function_ref<uint64_t(uint64_t)> Key,
                   SmallVectorImpl<std::pair<uint64_t, uint64_t>> &Out) {
  Out.clear();
  // The newer frame's key, and whether there is a newer frame in this
  // context (the first frame after a marker, or of the chain, is an IP).
  uint64_t Callee = 0;
  bool HaveCallee = false;
  for (uint64_t V : Frames) {
    if (isCallChainContext(V)) {
      HaveCallee = false;
      continue;
    }
    // A return address: its call is the instruction before it.
    uint64_t At = HaveCallee ? V - 1 : V;
    uint64_t K = V ? Key(At) : 0;
    if (HaveCallee && K && Callee && K != Callee) {
      std::pair<uint64_t, uint64_t> P{K, Callee};
      // Chains are short (perf's default limit is 127 frames): a scan of
      // the pairs seen so far is cheaper than any set.
      if (!is_contained(Out, P))
        Out.push_back(P);
    }
    Callee = K;
    HaveCallee = true;
  }
}

} // namespace keel
