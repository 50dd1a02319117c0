//===- FdataEdges.cpp - address profile -> fdata edges, as perf2bolt does -===//
//
// fdata has no fall-through ranges: perf2bolt (DataAggregator::doTrace and
// getFallthroughsInTrace) walks each range over BOLT's basic blocks and
// records one edge per block boundary it crosses, from the last
// instruction of the block to the start of the next one, mixed with the
// taken branches. Returns are not recorded as branches, and an external
// end is written "0 [unknown] 0".
//
// To do the same without BOLT we rebuild its basic blocks from the
// disassembly (BinaryFunction::buildCFG):
//  - a block starts at the function entry, at every direct branch target
//    inside the function, at targets of indirect jumps seen in the profile
//    (BOLT knows them from jump tables), and after a terminator;
//  - except that an unconditional jump right after a conditional branch
//    stays in the conditional branch's block ("jcc; jmp" is one block with
//    two successors in BOLT);
//  - a block reaches the next one in layout when it does not end in a
//    terminator, ends in a conditional branch, or jumps to it.
// A range that crosses a block which cannot reach the next is dropped,
// as perf2bolt drops it ("traces mismatching disassembled function
// contents").
//
// Not modelled (perf2bolt may differ): functions BOLT refuses to build a
// CFG for (unknown indirect jumps: we still expand their ranges), landing
// pads, and the re-attribution of a range that starts right after a call
// at a block boundary (perf2bolt knows the branch that led to a range; our
// model keeps only the range).
//
//===----------------------------------------------------------------------===//
#include "keel/Profile/Binary.h"
#include "keel/Profile/Formats.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstrInfo.h"

#include <set>

using namespace llvm;

namespace keel {

namespace {

struct Blocks {
  bool Valid = false;
  std::vector<uint64_t> Start, Last; ///< absolute addresses
  std::vector<uint32_t> NumInsts;
  std::vector<bool> ToNext; ///< may continue into the next block in layout

  /// Index of the block containing \p A (A inside the function).
  size_t indexOf(uint64_t A) const {
    return size_t(llvm::upper_bound(Start, A) - Start.begin()) - 1;
  }
};

class BlockBuilder {
public:
  explicit BlockBuilder(const Binary &Bin) : Bin(Bin) {}

  /// Targets of indirect jumps seen in the profile become block starts.
  void addIndirectTargets(const std::map<std::pair<uint64_t, uint64_t>,
                                         BranchCount> &Branches);
  const Blocks &get(const SymbolInfo &F);

private:
  const Binary &Bin;
  std::map<uint64_t, std::set<uint64_t>> ExtraLeaders; // by function address
  DenseMap<uint64_t, Blocks> Cache;
};

void BlockBuilder::addIndirectTargets(
    const std::map<std::pair<uint64_t, uint64_t>, BranchCount> &Branches) {
  for (const auto &KV : Branches) {
    uint64_t From = KV.first.first, To = KV.first.second;
    const SymbolInfo *F = Bin.functionAt(From);
    if (!F || Bin.functionAt(To) != F)
      continue;
    auto I = Bin.instructionAt(From);
    if (!I) {
      consumeError(I.takeError());
      continue;
    }
    if (I->IsBranch && I->IsIndirect && !I->IsCall && !I->IsReturn)
      ExtraLeaders[F->Addr].insert(To);
  }
}

const Blocks &BlockBuilder::get(const SymbolInfo &F) {
  auto [It, New] = Cache.try_emplace(F.Addr);
  Blocks &B = It->second;
  if (!New)
    return B;
  struct Inst {
    InstInfo Info;
    bool Terminator;
  };
  std::vector<Inst> Insts;
  uint64_t End = F.Addr + F.Size;
  if (!F.Size) // size-0 symbols: up to the next function
    if (const SymbolInfo *Next = llvm::upper_bound(
            Bin.functions(), F.Addr,
            [](uint64_t A, const SymbolInfo &S) { return A < S.Addr; });
        Next != Bin.functions().end())
      End = Next->Addr;
  Error E = Bin.forEachInstruction(
      F.Addr, End, [&](const InstInfo &I, const MCInst &MI) {
        bool Term = I.IsBranch || I.IsReturn ||
                    Bin.instrInfo().get(MI.getOpcode()).isTerminator();
        Insts.push_back({I, Term && !I.IsCall});
      });
  if (E || Insts.empty()) {
    consumeError(std::move(E));
    return B;
  }
  std::set<uint64_t> Leaders = ExtraLeaders[F.Addr];
  Leaders.insert(F.Addr);
  for (const Inst &I : Insts)
    if (I.Info.IsBranch && !I.Info.IsCall && I.Info.Target &&
        *I.Info.Target >= F.Addr && *I.Info.Target < End)
      Leaders.insert(*I.Info.Target);

  std::vector<std::optional<uint64_t>> CondTarget; // per block, jcc;jmp
  for (size_t K = 0; K < Insts.size(); ++K) {
    const InstInfo &I = Insts[K].Info;
    bool NewBlock = K == 0 || Leaders.count(I.Addr);
    if (!NewBlock && Insts[K - 1].Terminator) {
      const InstInfo &P = Insts[K - 1].Info;
      bool JccThenJmp = P.IsConditional && I.IsBranch && !I.IsConditional &&
                        !I.IsIndirect && !I.IsCall && !I.IsReturn;
      NewBlock = !JccThenJmp;
    }
    if (NewBlock) {
      B.Start.push_back(I.Addr);
      B.Last.push_back(I.Addr);
      B.NumInsts.push_back(0);
      CondTarget.emplace_back();
    }
    B.Last.back() = I.Addr;
    ++B.NumInsts.back();
    if (I.IsConditional && !I.IsCall)
      CondTarget.back() = I.Target;
  }
  // Which blocks reach the next block in layout.
  B.ToNext.assign(B.Start.size(), false);
  size_t K = 0;
  for (size_t BI = 0; BI < B.Start.size(); ++BI) {
    while (Insts[K].Info.Addr != B.Last[BI])
      ++K;
    const Inst &L = Insts[K];
    if (BI + 1 == B.Start.size())
      break;
    uint64_t Next = B.Start[BI + 1];
    if (!L.Terminator || L.Info.IsConditional)
      B.ToNext[BI] = true;
    else if (L.Info.IsBranch && !L.Info.IsIndirect)
      B.ToNext[BI] = (L.Info.Target && *L.Info.Target == Next) ||
                     (CondTarget[BI] && *CondTarget[BI] == Next);
  }
  B.Valid = true;
  return B;
}

Location locationOf(const SymbolInfo *F, uint64_t A) {
  if (!F)
    return Location{false, "[unknown]", 0};
  return Location{true, F->BoltName, A - F->Addr};
}

} // namespace

BranchProfile symbolizeForFdata(const AddressProfile &AP, const Binary &Bin,
                                QualityReport &Quality) {
  BranchProfile P;
  P.BuildID = AP.BuildID.empty() ? Bin.buildID().str() : AP.BuildID;
  BlockBuilder BB(Bin);
  BB.addIndirectTargets(AP.Branches);

  for (const auto &[K, C] : AP.Branches) {
    const SymbolInfo *From = K.first ? Bin.functionAt(K.first) : nullptr;
    const SymbolInfo *To = K.second ? Bin.functionAt(K.second) : nullptr;
    if (!From && !To) {
      Quality.count("branch records have both ends outside every function");
      continue;
    }
    if (From) {
      auto I = Bin.instructionAt(K.first);
      if (!I)
        consumeError(I.takeError());
      else if (I->IsReturn)
        continue; // BOLT takes returns from the ranges, not as branches
    }
    P.Branches[{locationOf(From, K.first), locationOf(To, K.second)}] += C;
  }

  for (const auto &[K, N] : AP.FallThroughs) {
    uint64_t S = K.first, E = K.second;
    const SymbolInfo *F = Bin.functionAt(S);
    if (!F || Bin.functionAt(E) != F) {
      Quality.count("fall-through ranges cross functions or leave the binary");
      continue;
    }
    if (E < S) {
      Quality.count("fall-through ranges run backwards");
      continue;
    }
    const Blocks &Bl = BB.get(*F);
    if (!Bl.Valid) {
      Quality.count("fall-through ranges are in functions that do not "
                    "disassemble");
      continue;
    }
    size_t From = Bl.indexOf(S), To = Bl.indexOf(E);
    bool Ok = true;
    for (size_t I = From; I < To && Ok; ++I)
      Ok = Bl.ToNext[I];
    if (!Ok) {
      Quality.count("fall-through ranges pass a block end that cannot fall "
                    "through (dropped, as perf2bolt does)");
      continue;
    }
    for (size_t I = From; I < To; ++I)
      P.Branches[{locationOf(F, Bl.Last[I]), locationOf(F, Bl.Start[I + 1])}] +=
          BranchCount{N, 0};
  }

  for (const auto &[A, N] : AP.IPSamples) {
    const SymbolInfo *F = Bin.functionAt(A);
    if (!F) {
      Quality.count("IP samples are outside every function");
      continue;
    }
    addCount(P.Samples[locationOf(F, A)], N);
  }
  P.NoLBR = AP.Branches.empty() && AP.FallThroughs.empty() &&
            !AP.IPSamples.empty();
  return P;
}

std::map<std::string, uint64_t>
fdataExecutedInstructions(const BranchProfile &P, const Binary &Bin,
                          QualityReport &Quality) {
  BlockBuilder BB(Bin);
  // Block execution counts from the edges that enter a block at its start:
  // branches and fall-through edges inside the function, and entries into
  // the function start from elsewhere (calls, tail calls, external).
  std::map<const SymbolInfo *, std::map<size_t, uint64_t>> Counts;
  for (const auto &[K, C] : P.Branches) {
    const Location &To = K.second;
    if (!To.IsSymbol)
      continue;
    const SymbolInfo *F = Bin.functionByBoltName(To.Name);
    if (!F) {
      Quality.count("records name functions missing from the binary");
      continue;
    }
    const Blocks &Bl = BB.get(*F);
    if (!Bl.Valid)
      continue;
    uint64_t A = F->Addr + To.Offset;
    bool SameFunc = K.first.IsSymbol && K.first.Name == To.Name;
    if (SameFunc && K.first.Offset == To.Offset)
      continue; // BOLT ignores a branch to itself
    if (A < Bl.Start.front() || Bl.Start[Bl.indexOf(A)] != A ||
        (!SameFunc && To.Offset != 0))
      continue; // returns land after calls, inside blocks
    Counts[F][Bl.indexOf(A)] += C.Count;
  }
  std::map<std::string, uint64_t> Out;
  for (const auto &[F, ByBlock] : Counts) {
    const Blocks &Bl = BB.get(*F);
    uint64_t Sum = 0;
    for (const auto &[I, N] : ByBlock)
      Sum += N * Bl.NumInsts[I];
    Out[F->BoltName] += Sum;
  }
  return Out;
}

} // namespace keel
