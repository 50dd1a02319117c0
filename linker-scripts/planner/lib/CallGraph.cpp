//===- CallGraph.cpp - the weighted call graph of a profiled binary -------===//
#include "keel/Planner/CallGraph.h"
#include "keel/Profile/Binary.h"

#include "llvm/ADT/STLExtras.h"

#include <map>

using namespace llvm;

namespace keel {

uint64_t CallGraph::totalWeight() const {
  uint64_t T = 0;
  for (const FunctionNode &N : Nodes)
    T += N.Weight;
  return T;
}

void CallGraph::addArc(uint32_t Caller, uint32_t Callee, uint64_t Count) {
  auto Key = [](const CallArc &A) { return std::make_pair(A.Caller, A.Callee); };
  auto It = llvm::lower_bound(Arcs, std::make_pair(Caller, Callee),
                              [&](const CallArc &A, std::pair<uint32_t, uint32_t> K) {
                                return Key(A) < K;
                              });
  if (It != Arcs.end() && It->Caller == Caller && It->Callee == Callee) {
    It->Count += Count;
    return;
  }
  Arcs.insert(It, CallArc{Caller, Callee, Count});
}

void inferFallThroughs(const Binary &Bin, AddressProfile &AP,
                       QualityReport &Quality) {
  if (!AP.FallThroughs.empty())
    return;
  // A basic block longer than this is implausible; stop rather than walk
  // through data that happens to decode.
  constexpr unsigned MaxBlockInstructions = 4096;
  for (const auto &[K, C] : AP.Branches) {
    uint64_t To = K.second;
    const SymbolInfo *F = Bin.functionAt(To);
    if (!F || !C.Count)
      continue;
    uint64_t End = F->Size ? F->Addr + F->Size : UINT64_MAX;
    uint64_t Addr = To, Last = 0;
    bool Found = false;
    for (unsigned N = 0; N < MaxBlockInstructions && Addr < End; ++N) {
      auto I = Bin.instructionAt(Addr);
      if (!I) {
        consumeError(I.takeError());
        break;
      }
      Last = Addr;
      Found = true;
      if (I->IsBranch || I->IsCall || I->IsReturn)
        break;
      Addr += I->Size;
    }
    if (!Found) {
      Quality.count("branch targets do not decode as instructions");
      continue;
    }
    AP.FallThroughs[{To, Last}] += C.Count;
  }
}

Expected<CallGraph> buildCallGraph(const Binary &Bin, const AddressProfile &AP,
                                   QualityReport &Quality) {
  CallGraph G;
  std::map<uint64_t, uint32_t> ByAddr;
  std::map<std::string, uint32_t> ByName; // first by address, like Binary
  for (const SymbolInfo &S : Bin.functions()) {
    // PLT entries ("malloc@plt") are linker-made stubs, not sections the
    // plan can move; the scripts place the PLT as a whole.
    if (StringRef(S.Section).starts_with(".plt") ||
        StringRef(S.Section).starts_with(".iplt") ||
        StringRef(S.Name).ends_with("@plt"))
      continue;
    FunctionNode N;
    N.Name = S.Name;
    N.File = S.IsLocal ? S.FileName : "";
    N.Section = S.Section;
    N.Addr = S.Addr;
    N.Size = S.Size;
    N.IsLocal = S.IsLocal;
    uint32_t Idx = G.Nodes.size();
    ByAddr.emplace(S.Addr, Idx);
    ByName.emplace(S.Name, Idx);
    G.Nodes.push_back(std::move(N));
  }

  auto Stats = functionStats(AP, Bin, Quality);
  if (!Stats)
    return Stats.takeError();
  // Executed instructions are the better measure of hotness; profiles
  // without fall-through ranges (no-LBR samples) only have samples.
  bool HaveInstructions = llvm::any_of(
      *Stats, [](const FunctionStats &S) { return S.Instructions > 0; });
  G.WeightUnit = HaveInstructions ? "instructions" : "samples";
  for (const FunctionStats &S : *Stats) {
    auto It = ByAddr.find(S.Addr);
    if (It == ByAddr.end())
      continue;
    FunctionNode &N = G.Nodes[It->second];
    // A function seen only as a branch source (an entry point nothing
    // branched into) still ran at least that many instructions.
    N.Weight += HaveInstructions && S.Instructions ? S.Instructions : S.Samples;
    N.Calls += S.Calls;
  }

  for (const CallEdge &E : callEdges(AP, Bin)) {
    auto From = ByName.find(E.Caller), To = ByName.find(E.Callee);
    if (From == ByName.end() || To == ByName.end() || From->second == To->second)
      continue;
    G.addArc(From->second, To->second, E.Count);
    // Callchains count no calls; an arc's weight (samples under the call)
    // stands in for them, so CDSort has the callee's weight too.
    if (callEdgeSource(AP) == CallEdgeSource::CallChains)
      G.Nodes[To->second].Calls += E.Count;
  }
  return G;
}

} // namespace keel
