//===- BranchProfile.cpp - symbolize, resolve, aggregate ------------------===//
#include "keel/Profile/BranchProfile.h"
#include "keel/Profile/Binary.h"

#include "llvm/ADT/STLExtras.h"

using namespace llvm;

namespace keel {

void AddressProfile::merge(const AddressProfile &O) {
  if (BuildID.empty())
    BuildID = O.BuildID;
  for (const auto &[K, V] : O.Branches)
    Branches[K] += V;
  for (const auto &[K, V] : O.FallThroughs)
    addCount(FallThroughs[K], V);
  for (const auto &[K, V] : O.IPSamples)
    addCount(IPSamples[K], V);
  Samples.insert(Samples.end(), O.Samples.begin(), O.Samples.end());
  for (const auto &[K, V] : O.CallChainArcs)
    addCount(CallChainArcs[K], V);
  addCount(NumSamples, O.NumSamples);
  addCount(NumEntries, O.NumEntries);
  addCount(NumCallChains, O.NumCallChains);
}

void BranchProfile::merge(const BranchProfile &O) {
  if (BuildID.empty())
    BuildID = O.BuildID;
  NoLBR |= O.NoLBR;
  if (NoLBREvents.empty())
    NoLBREvents = O.NoLBREvents;
  BoltedCollection |= O.BoltedCollection;
  for (const auto &[K, V] : O.Branches)
    Branches[K] += V;
  for (const auto &[K, V] : O.FallThroughs)
    addCount(FallThroughs[K], V);
  for (const auto &[K, V] : O.Samples)
    addCount(Samples[K], V);
  for (const auto &[K, V] : O.MemAccesses)
    addCount(MemAccesses[K], V);
  for (const auto &[K, V] : O.CallChainArcs)
    addCount(CallChainArcs[K], V);
}

static Location locate(uint64_t Addr, const Binary &Bin, bool &Unmapped) {
  if (const SymbolInfo *F = Bin.functionAt(Addr))
    return Location{true, F->BoltName, Addr - F->Addr};
  Unmapped = true;
  return Location{false, "[unknown]", Addr};
}

BranchProfile symbolize(const AddressProfile &AP, const Binary &Bin,
                        QualityReport &Quality) {
  BranchProfile P;
  P.BuildID = AP.BuildID.empty() ? Bin.buildID().str() : AP.BuildID;
  for (const auto &[K, V] : AP.Branches) {
    bool Unmapped = false;
    Location From = locate(K.first, Bin, Unmapped);
    Location To = locate(K.second, Bin, Unmapped);
    if (Unmapped)
      Quality.count("branch records have an end outside every function",
                    1);
    P.Branches[{From, To}] += V;
  }
  for (const auto &[K, V] : AP.FallThroughs) {
    bool Unmapped = false;
    Location From = locate(K.first, Bin, Unmapped);
    Location To = locate(K.second, Bin, Unmapped);
    if (Unmapped) {
      Quality.count("fall-through ranges are outside every function", 1);
      continue;
    }
    addCount(P.FallThroughs[{From, To}], V);
  }
  for (const auto &[Addr, N] : AP.IPSamples) {
    bool Unmapped = false;
    Location L = locate(Addr, Bin, Unmapped);
    if (Unmapped)
      Quality.count("IP samples are outside every function", 1);
    addCount(P.Samples[L], N);
  }
  for (const auto &[K, V] : AP.CallChainArcs) {
    const SymbolInfo *From = Bin.functionAt(K.first);
    const SymbolInfo *To = Bin.functionAt(K.second);
    if (!From || !To) {
      Quality.count("callchain arcs have an end outside every function", 1);
      continue;
    }
    addCount(P.CallChainArcs[{Location{true, From->BoltName, 0},
                              Location{true, To->BoltName, 0}}],
             V);
  }
  P.NoLBR = AP.Branches.empty() && !AP.IPSamples.empty();
  return P;
}

static bool address(const Location &L, const Binary &Bin, uint64_t &Addr) {
  if (!L.IsSymbol) {
    Addr = L.Offset;
    return true;
  }
  const SymbolInfo *F = Bin.functionByBoltName(L.Name);
  if (!F)
    return false;
  Addr = F->Addr + L.Offset;
  return true;
}

AddressProfile resolve(const BranchProfile &P, const Binary &Bin,
                       QualityReport &Quality) {
  AddressProfile AP;
  AP.BuildID = P.BuildID;
  for (const auto &[K, V] : P.Branches) {
    uint64_t From, To;
    if (!address(K.first, Bin, From) || !address(K.second, Bin, To)) {
      Quality.count("branch records name symbols missing from the binary");
      continue;
    }
    AP.Branches[{From, To}] += V;
  }
  for (const auto &[K, V] : P.FallThroughs) {
    uint64_t From, To;
    if (!address(K.first, Bin, From) || !address(K.second, Bin, To)) {
      Quality.count("fall-through ranges name symbols missing from the binary");
      continue;
    }
    addCount(AP.FallThroughs[{From, To}], V);
  }
  for (const auto &[L, N] : P.Samples) {
    uint64_t Addr;
    if (!address(L, Bin, Addr)) {
      Quality.count("IP samples name symbols missing from the binary");
      continue;
    }
    addCount(AP.IPSamples[Addr], N);
  }
  for (const auto &[K, V] : P.CallChainArcs) {
    uint64_t From, To;
    if (!address(K.first, Bin, From) || !address(K.second, Bin, To)) {
      Quality.count("callchain arcs name symbols missing from the binary");
      continue;
    }
    addCount(AP.CallChainArcs[{From, To}], V);
  }
  return AP;
}

Expected<std::vector<FunctionStats>>
functionStats(const AddressProfile &AP, const Binary &Bin,
              QualityReport &Quality) {
  std::map<const SymbolInfo *, FunctionStats> Stats;
  auto statsFor = [&](const SymbolInfo *F) -> FunctionStats & {
    FunctionStats &S = Stats[F];
    if (S.Name.empty()) {
      S.Name = F->Name;
      S.Addr = F->Addr;
      S.Size = F->Size;
    }
    return S;
  };
  for (const auto &[K, N] : AP.FallThroughs) {
    const SymbolInfo *F = Bin.functionAt(K.first);
    if (!F || F != Bin.functionAt(K.second) || K.second < K.first) {
      Quality.count("fall-through ranges cross functions or leave the binary");
      continue;
    }
    auto IC = Bin.countInstructions(K.first, K.second);
    if (!IC) {
      consumeError(IC.takeError());
      Quality.count("fall-through ranges do not decode to whole instructions");
      continue;
    }
    statsFor(F).Instructions += *IC * N;
  }
  for (const auto &[Addr, N] : AP.IPSamples)
    if (const SymbolInfo *F = Bin.functionAt(Addr)) {
      statsFor(F).Samples += N;
    }
  for (const auto &[K, C] : AP.Branches) {
    if (const SymbolInfo *F = Bin.functionAt(K.first))
      statsFor(F).Samples += C.Count;
    const SymbolInfo *Callee = Bin.functionAt(K.second);
    if (Callee && Callee->Addr == K.second)
      statsFor(Callee).Calls += C.Count;
  }
  std::vector<FunctionStats> Out;
  for (auto &[F, S] : Stats)
    Out.push_back(std::move(S));
  llvm::stable_sort(Out, [](const FunctionStats &A, const FunctionStats &B) {
    return std::tie(B.Instructions, B.Samples, A.Addr) <
           std::tie(A.Instructions, A.Samples, B.Addr);
  });
  return Out;
}

CallEdgeSource callEdgeSource(const AddressProfile &AP) {
  if (!AP.Branches.empty())
    return CallEdgeSource::Branches;
  if (!AP.CallChainArcs.empty())
    return CallEdgeSource::CallChains;
  return CallEdgeSource::None;
}

/// Callchain arcs by function name (either end may be any address of its
/// function).
static void callChainEdges(
    const AddressProfile &AP, const Binary &Bin,
    std::map<std::pair<std::string, std::string>, uint64_t> &Edges) {
  for (const auto &[K, N] : AP.CallChainArcs) {
    const SymbolInfo *Caller = Bin.functionAt(K.first);
    const SymbolInfo *Callee = Bin.functionAt(K.second);
    if (Caller && Callee && Caller != Callee)
      addCount(Edges[{Caller->Name, Callee->Name}], N);
  }
}

std::vector<CallEdge> callEdges(const AddressProfile &AP, const Binary &Bin) {
  std::map<std::pair<std::string, std::string>, uint64_t> Edges;
  if (callEdgeSource(AP) == CallEdgeSource::CallChains)
    callChainEdges(AP, Bin, Edges);
  for (const auto &[K, C] : AP.Branches) {
    const SymbolInfo *Caller = Bin.functionAt(K.first);
    const SymbolInfo *Callee = Bin.functionAt(K.second);
    if (!Caller || !Callee || Callee->Addr != K.second)
      continue;
    auto I = Bin.instructionAt(K.first);
    bool IsCall = I && I->IsCall;
    if (!I)
      consumeError(I.takeError());
    // A call, or a tail call: a jump into another function's entry.
    if (!IsCall && Caller == Callee)
      continue;
    Edges[{Caller->Name, Callee->Name}] += C.Count;
  }
  std::vector<CallEdge> Out;
  for (const auto &[K, N] : Edges)
    Out.push_back({K.first, K.second, N});
  llvm::stable_sort(Out, [](const CallEdge &A, const CallEdge &B) {
    return A.Count > B.Count;
  });
  return Out;
}

} // namespace keel
