//===- BlockLayout.cpp - basic-block layout from a profile ----------------===//
#include "keel/Blocks/BlockLayout.h"
#include "keel/Profile/Binary.h"
#include "keel/Support/Diagnostics.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/MC/MCInst.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Transforms/Utils/CodeLayout.h"

#include <cassert>
#include <set>

using namespace llvm;
using namespace llvm::object;

namespace keel {

namespace {

/// Address -> (function index, block index) over all mapped blocks. Blocks
/// may share a start address: an empty block (size 0, e.g. one that only
/// falls through) starts where the next block of the layout starts. Both are
/// kept, in layout order, so that the block holding the instructions is
/// found for addresses and every block on the path is entered.
class BlockIndex {
public:
  explicit BlockIndex(std::vector<FunctionBlocks> &Fns) : Fns(Fns) {
    for (unsigned F = 0; F < Fns.size(); ++F)
      for (unsigned B = 0; B < Fns[F].Blocks.size(); ++B)
        Starts.emplace(Fns[F].Blocks[B].Addr, std::make_pair(F, B));
  }

  /// The block containing \p Addr: of blocks starting at the same address,
  /// the last in layout order (the one with the instructions).
  std::optional<std::pair<unsigned, unsigned>> find(uint64_t Addr) const {
    auto It = Starts.upper_bound(Addr);
    if (It == Starts.begin())
      return std::nullopt;
    --It;
    const BlockInfo &BI = Fns[It->second.first].Blocks[It->second.second];
    if (Addr >= BI.Addr + std::max<uint64_t>(BI.Size, 1))
      return std::nullopt;
    return It->second;
  }

  /// Every block starting inside [Lo, Hi], in address then layout order.
  template <typename Fn> void forStartsIn(uint64_t Lo, uint64_t Hi, Fn F) const {
    for (auto It = Starts.lower_bound(Lo); It != Starts.end() && It->first <= Hi;
         ++It)
      F(It->second);
  }

private:
  std::vector<FunctionBlocks> &Fns;
  /// A multimap keeps equal keys in insertion (here: layout) order.
  std::multimap<uint64_t, std::pair<unsigned, unsigned>> Starts;
};

/// Instructions in block \p B (decoded linearly over its bytes).
std::optional<uint64_t> countBlockInstructions(const Binary &Bin,
                                               const BlockInfo &B) {
  uint64_t N = 0;
  if (Error E = Bin.forEachInstruction(
          B.Addr, B.Addr + B.Size,
          [&](const InstInfo &, const MCInst &) { ++N; })) {
    consumeError(std::move(E));
    return std::nullopt;
  }
  return N;
}

/// countBlockInstructions, 0 where the block does not disassemble.
uint64_t blockInstructions(const Binary &Bin, const BlockInfo &B) {
  if (auto IC = countBlockInstructions(Bin, B))
    return *IC;
  return 0;
}

/// BlockRecords of every mapped block from the branch records of \p AP,
/// then inferUnenteredBlocks per function, the instructions of the blocks
/// it gave a count added to the function's.
void inferFromBranchRecords(const Binary &Bin, const AddressProfile &AP,
                            const BlockIndex &Index,
                            std::vector<FunctionBlocks> &Fns) {
  std::map<uint64_t, uint64_t> PerInstruction; // source address -> records
  std::map<std::pair<unsigned, unsigned>, uint64_t> Leaving;
  for (const auto &[Br, C] : AP.Branches) {
    auto Src = Index.find(Br.first);
    if (!Src)
      continue;
    addCount(PerInstruction[Br.first], C.Count);
    auto I = Bin.instructionAt(Br.first);
    if (!I) {
      consumeError(I.takeError());
      continue;
    }
    if (!I->IsCall)
      addCount(Leaving[*Src], C.Count);
  }
  std::map<unsigned, std::vector<BlockRecords>> Records; // by function
  auto RecordsOf = [&](std::pair<unsigned, unsigned> P) -> BlockRecords & {
    auto &V = Records[P.first];
    V.resize(Fns[P.first].Blocks.size());
    return V[P.second];
  };
  for (const auto &[A, N] : PerInstruction) {
    BlockRecords &R = RecordsOf(*Index.find(A));
    R.FromOneInstruction = std::max(R.FromOneInstruction, N);
  }
  for (const auto &[P, N] : Leaving)
    RecordsOf(P).Leaving = N;
  for (auto &[F, R] : Records) {
    FunctionBlocks &FB = Fns[F];
    std::vector<uint64_t> Given = inferUnenteredBlocks(FB, R);
    for (size_t B = 0; B < Given.size(); ++B)
      FB.Instructions += blockInstructions(Bin, FB.Blocks[B]) * Given[B];
  }
}

/// BlockInfo::BranchTo of every executed block: its last instruction a
/// direct conditional branch, or a jump right after one, to the start of a
/// block of the same function.
void findConditionalTargets(const Binary &Bin, const BlockIndex &Index,
                            std::vector<FunctionBlocks> &Fns) {
  for (unsigned F = 0; F < Fns.size(); ++F)
    for (BlockInfo &B : Fns[F].Blocks) {
      if (B.Count == 0 || B.Size == 0)
        continue;
      std::optional<InstInfo> Last, BeforeLast;
      if (Error E = Bin.forEachInstruction(
              B.Addr, B.Addr + B.Size, [&](const InstInfo &I, const MCInst &) {
                BeforeLast = Last;
                Last = I;
              })) {
        consumeError(std::move(E));
        continue;
      }
      const std::optional<InstInfo> &Cond =
          Last && Last->IsBranch && !Last->IsConditional && BeforeLast
              ? BeforeLast
              : Last;
      if (!Cond || !Cond->IsBranch || !Cond->IsConditional || Cond->IsIndirect ||
          !Cond->Target)
        continue;
      auto To = Index.find(*Cond->Target);
      if (To && To->first == F && Fns[F].Blocks[To->second].Addr == *Cond->Target)
        B.BranchTo = To->second;
    }
}

} // namespace

bool hasBlockMap(const Binary &Bin) {
  return llvm::any_of(Bin.sections(), [](const SectionInfo &S) {
    return S.Name == ".llvm_bb_addr_map" && S.Size > 0;
  });
}

Expected<std::vector<FunctionBlocks>>
mapProfileToBlocks(const Binary &Bin, const AddressProfile &AP,
                   BlockMapStats &Stats) {
  const auto *ELF = dyn_cast<ELFObjectFileBase>(&Bin.object());
  if (!ELF)
    return inputError(Bin.path(), 0, "not an ELF file");
  auto Maps = ELF->readBBAddrMap();
  if (!Maps)
    return inputError(Bin.path(), 0, "cannot read .llvm_bb_addr_map: {0}",
                      toString(Maps.takeError()));
  if (Maps->empty())
    return inputError(Bin.path(), 0,
                      "no .llvm_bb_addr_map section: build with "
                      "-fbasic-block-address-map");

  std::vector<FunctionBlocks> Fns;
  for (const BBAddrMap &M : *Maps) {
    FunctionBlocks FB;
    FB.Addr = M.getFunctionAddress();
    const SymbolInfo *Sym = Bin.functionAt(FB.Addr);
    if (!Sym || Sym->Addr != FB.Addr)
      continue;
    FB.Name = Sym->Name;
    FB.Weak = Sym->IsWeak;
    for (const auto &Range : M.getBBRanges())
      for (const auto &E : Range.BBEntries)
        FB.Blocks.push_back({E.ID, Range.BaseAddress + E.Offset, E.Size,
                             /*Count=*/0, E.MD.CanFallThrough, E.MD.IsEHPad,
                             /*BranchTo=*/std::nullopt});
    llvm::stable_sort(FB.Blocks, [](const BlockInfo &A, const BlockInfo &B) {
      return A.Addr < B.Addr;
    });
    Fns.push_back(std::move(FB));
  }
  llvm::stable_sort(Fns, [](const FunctionBlocks &A, const FunctionBlocks &B) {
    return A.Addr < B.Addr;
  });
  Stats.FunctionsWithMap = Fns.size();
  BlockIndex Index(Fns);

  // A fall-through range [S, E] executed N times enters every block that
  // starts inside it and falls from each such block to the next.
  for (const auto &RangeAndCount : AP.FallThroughs) {
    const auto &Range = RangeAndCount.first;
    uint64_t N = RangeAndCount.second;
    Stats.RangeCount += N;
    auto First = Index.find(Range.first);
    auto Last = Index.find(Range.second);
    if (!First || !Last || First->first != Last->first)
      continue;
    Stats.RangeCountMapped += N;
    FunctionBlocks &FB = Fns[First->first];
    auto Insts = Bin.countInstructions(Range.first, Range.second);
    if (Insts)
      FB.Instructions += *Insts * N;
    else
      consumeError(Insts.takeError());
    std::optional<unsigned> Prev;
    if (FB.Blocks[First->second].Addr != Range.first)
      Prev = First->second; // entered mid-block (after a call returned)
    Index.forStartsIn(Range.first, Range.second, [&](std::pair<unsigned, unsigned> P) {
      if (P.first != First->first)
        return;
      FB.Blocks[P.second].Count += N;
      if (Prev)
        FB.Edges[{*Prev, P.second}] += N;
      Prev = P.second;
    });
  }
  // A branch into the start of a block of the same function is a CFG edge.
  // Profiles without ranges (fdata: BOLT stores fall-throughs as block-to-
  // block edges) give block counts only through the records entering each
  // block, calls into the entry included; with ranges those are already
  // counted, so a block's count is the larger of the two.
  std::map<std::pair<unsigned, unsigned>, uint64_t> Entered;
  for (const auto &[Br, C] : AP.Branches) {
    Stats.BranchCount += C.Count;
    auto Dst = Index.find(Br.second);
    if (!Dst)
      continue;
    Stats.BranchCountMapped += C.Count;
    if (Fns[Dst->first].Blocks[Dst->second].Addr != Br.second)
      continue; // a return into the middle of a block
    // The branch enters every block starting at its target: the empty
    // ones first, each falling through to the next, then Dst.
    auto Src = Index.find(Br.first);
    std::optional<unsigned> Prev;
    if (Src && Src->first == Dst->first)
      Prev = Src->second;
    const uint64_t Count = C.Count; // a lambda captures no binding (C++17)
    Index.forStartsIn(Br.second, Br.second, [&](std::pair<unsigned, unsigned> P) {
      if (P.first != Dst->first)
        return;
      Entered[P] += Count;
      if (Prev)
        Fns[P.first].Edges[{*Prev, P.second}] += Count;
      Prev = P.second;
    });
  }
  for (const auto &[Block, N] : Entered) {
    BlockInfo &B = Fns[Block.first].Blocks[Block.second];
    if (N > B.Count) {
      // No range covered this block: estimate its instructions from size.
      if (AP.FallThroughs.empty())
        Fns[Block.first].Instructions +=
            blockInstructions(Bin, B) * (N - B.Count);
      B.Count = N;
    }
  }
  // Ranges enter every block they pass, the one a call returns into
  // included; branch records alone do not (see BlockRecords).
  if (AP.FallThroughs.empty())
    inferFromBranchRecords(Bin, AP, Index, Fns);
  findConditionalTargets(Bin, Index, Fns);
  return Fns;
}

std::vector<uint64_t> inferUnenteredBlocks(FunctionBlocks &FB,
                                           ArrayRef<BlockRecords> Records) {
  size_t N = FB.Blocks.size();
  std::vector<uint64_t> Given(N, 0);
  auto Give = [&](size_t I, uint64_t C) {
    if (C == 0 || FB.Blocks[I].Count != 0)
      return false;
    FB.Blocks[I].Count = Given[I] = C;
    return true;
  };
  for (size_t I = 0; I < N && I < Records.size(); ++I)
    Give(I, Records[I].FromOneInstruction);
  // Backward: what entered a given block came from the block before it (a
  // given block was entered by no record). Walking down passes a count on
  // through a chain of such blocks.
  std::vector<uint64_t> Fallen(N, 0); // I -> I + 1, added here
  for (size_t I = N; I-- > 1;) {
    const BlockInfo &B = FB.Blocks[I], &Prev = FB.Blocks[I - 1];
    if (!Given[I] || B.IsEHPad || !Prev.CanFallThrough)
      continue;
    FB.Edges[{unsigned(I - 1), unsigned(I)}] += Given[I];
    Fallen[I - 1] += Given[I];
    Give(I - 1, Given[I]);
  }
  // Forward: what ran in a block and did not leave it, by a record or by
  // the fall-through just added, fell into the next one: the call at its
  // end returned, or the block ends in no branch at all (a branch-only
  // profile records a fall-through only after a conditional branch). The
  // edge is added whether or not the next block has a count of its own:
  // without it, Ext-TSP sees no reason to keep the two together, and the
  // rebuilt block needs a jump that runs as often as the block.
  for (size_t I = 0; I + 1 < N; ++I) {
    const BlockInfo &B = FB.Blocks[I], &Next = FB.Blocks[I + 1];
    uint64_t Out = (I < Records.size() ? Records[I].Leaving : 0) + Fallen[I];
    if (B.Count <= Out || !B.CanFallThrough || Next.IsEHPad)
      continue;
    FB.Edges[{unsigned(I), unsigned(I + 1)}] += B.Count - Out;
    Give(I + 1, B.Count - Out);
  }
  return Given;
}

StringRef blockOrderName(BlockOrder O) {
  switch (O) {
  case BlockOrder::ExtTsp:
    return "exttsp";
  case BlockOrder::Keep:
    return "keep";
  case BlockOrder::Guarded:
    return "guarded";
  case BlockOrder::Cheapest:
    return "cheapest";
  }
  return "?";
}

std::optional<BlockOrder> parseBlockOrder(StringRef Name) {
  for (BlockOrder O : {BlockOrder::ExtTsp, BlockOrder::Keep, BlockOrder::Guarded,
                       BlockOrder::Cheapest})
    if (Name == blockOrderName(O))
      return O;
  return std::nullopt;
}

/// Whether block \p I stays in the hot part: it executed (or is the entry),
/// or it never executed but sits right before an executed block the
/// compiler aligned (a gap of padding between them in the profiled build)
/// and is at most KeepBeforeAlignedBytes. The compiler aligns a block (a
/// loop header) where nothing falls into it; with the block before it gone
/// the hot block before that would fall into the padding and execute it.
static bool staysHot(const FunctionBlocks &FB, size_t I) {
  const BlockInfo &B = FB.Blocks[I];
  if (I == 0 || B.Count != 0)
    return true;
  if (I + 1 >= FB.Blocks.size() || B.Size > KeepBeforeAlignedBytes)
    return false;
  const BlockInfo &Next = FB.Blocks[I + 1];
  return Next.Count != 0 && Next.Addr > B.Addr + B.Size;
}

/// The compiler's order with the never-executed blocks moved behind the
/// executed ones (when splitting): every fall-through between two executed
/// blocks of the profiled build is still one, and no aligned block gets a
/// new fall-through into its padding (staysHot).
static std::vector<uint64_t> keptOrder(const FunctionBlocks &FB, bool Split,
                                       double RareShare = 0) {
  uint64_t Max = 0;
  for (const BlockInfo &B : FB.Blocks)
    Max = std::max(Max, B.Count);
  auto Rare = [&](uint64_t I) {
    const BlockInfo &B = FB.Blocks[I];
    return RareShare > 0 && I != 0 && B.Count != 0 &&
           (long double)B.Count < RareShare * (long double)Max;
  };
  std::vector<uint64_t> Order, RareBlocks, Unexecuted;
  for (uint64_t I = 0; I < FB.Blocks.size(); ++I) {
    if (Split && !staysHot(FB, I))
      Unexecuted.push_back(I);
    else if (Rare(I) && !(I + 1 < FB.Blocks.size() && !Rare(I + 1) &&
                          FB.Blocks[I + 1].Count != 0 &&
                          FB.Blocks[I].Size <= KeepBeforeAlignedBytes &&
                          FB.Blocks[I + 1].Addr >
                              FB.Blocks[I].Addr + FB.Blocks[I].Size))
      RareBlocks.push_back(I); // (a small one before an aligned block stays)
    else
      Order.push_back(I);
  }
  llvm::append_range(Order, RareBlocks);
  llvm::append_range(Order, Unexecuted);
  return Order;
}

/// Per block of \p FB, whether it goes to the warm part (see
/// BlockLayoutOptions::WarmShare). Per block, not a tail of the order: every
/// edge into or out of a block weighs at most the block's count, so moving
/// a block entered fewer than WarmShare times the hottest one breaks only
/// fall-throughs of that weight or less, wherever the order put it; the
/// blocks before and after it become neighbours. Blocks stay in the hot
/// part that must: the entry (the function's symbol), landing pads (clang
/// moves every landing pad of a function to one .text.eh section as soon as
/// they sit in different parts), and in the kept order a small block right
/// before an aligned executed hot block (the hot block before it would fall
/// into the padding, see staysHot).
template <typename ColdFn>
static std::vector<bool> warmBlocks(const FunctionBlocks &FB, double WarmShare,
                                    bool KeptOrder, ColdFn IsCold) {
  size_t N = FB.Blocks.size();
  std::vector<bool> Warm(N, false);
  if (WarmShare <= 0)
    return Warm;
  uint64_t Max = 0;
  for (const BlockInfo &B : FB.Blocks)
    Max = std::max(Max, B.Count);
  for (size_t I = 1; I < N; ++I) {
    const BlockInfo &B = FB.Blocks[I];
    Warm[I] = B.Count != 0 && !B.IsEHPad && !IsCold(I) &&
              (long double)B.Count < WarmShare * (long double)Max;
  }
  if (!KeptOrder)
    return Warm;
  // Backward, so that whether the next block stays hot is already known.
  for (size_t I = N - 1; I-- > 1;) {
    const BlockInfo &B = FB.Blocks[I], &Next = FB.Blocks[I + 1];
    if (Warm[I] && !Warm[I + 1] && Next.Count != 0 &&
        B.Size <= KeepBeforeAlignedBytes && Next.Addr > B.Addr + B.Size)
      Warm[I] = false;
  }
  return Warm;
}

namespace {

/// The executed successors of each block of \p FB (self-loops left out),
/// and each block's executed predecessors.
struct BlockGraph {
  std::vector<SmallVector<std::pair<uint64_t, uint64_t>, 2>> Succ, Pred;
  explicit BlockGraph(const FunctionBlocks &FB)
      : Succ(FB.Blocks.size()), Pred(FB.Blocks.size()) {
    for (const auto &[E, N] : FB.Edges)
      if (N != 0 && E.first != E.second && E.first < Succ.size() &&
          E.second < Succ.size()) {
        Succ[E.first].push_back({E.second, N});
        Pred[E.second].push_back({E.first, N});
      }
  }
};

constexpr uint64_t NoBlock = ~uint64_t(0);

/// Adds to \p C what block \p I costs when \p Next follows it (NoBlock:
/// none): a successor that is not next is reached by a taken branch, and by
/// a jump unless the block's conditional branch goes there. Blocks of more
/// than two executed successors (a jump table) cost the same in any order.
void addBlockCost(const FunctionBlocks &FB, const BlockGraph &G, size_t I,
                  uint64_t Next, BranchCost &C) {
  const auto &S = G.Succ[I];
  if (S.empty() || S.size() > 2)
    return;
  std::optional<uint32_t> Cond = FB.Blocks[I].BranchTo;
  if (S.size() == 1) {
    if (S[0].first != Next) {
      C.Taken += S[0].second;
      if (Cond != S[0].first)
        C.Jumps += S[0].second;
    }
    return;
  }
  bool FirstNext = S[0].first == Next, SecondNext = S[1].first == Next;
  if (FirstNext || SecondNext) {
    C.Taken += FirstNext ? S[1].second : S[0].second;
    return;
  }
  C.Taken += S[0].second + S[1].second;
  if (Cond == S[0].first)
    C.Jumps += S[1].second;
  else if (Cond == S[1].first)
    C.Jumps += S[0].second;
  else
    C.Jumps += std::min(S[0].second, S[1].second);
}

double blockCost(const FunctionBlocks &FB, const BlockGraph &G, size_t I,
                 uint64_t Next) {
  BranchCost C;
  addBlockCost(FB, G, I, Next, C);
  return C.cost();
}

} // namespace

BranchCost estimateBranchCost(const FunctionBlocks &FB,
                              ArrayRef<uint64_t> Order) {
  std::vector<uint64_t> Next(FB.Blocks.size(), NoBlock);
  for (size_t P = 0; P + 1 < Order.size(); ++P)
    Next[Order[P]] = Order[P + 1];
  BlockGraph G(FB);
  BranchCost C;
  for (size_t I = 0; I < G.Succ.size(); ++I)
    addBlockCost(FB, G, I, Next[I], C);
  return C;
}

size_t refineJumps(const FunctionBlocks &FB, std::vector<uint64_t> &Order,
                   unsigned MaxPasses) {
  size_t N = FB.Blocks.size();
  if (Order.size() < 3 || Order.size() > N)
    return 0;
  // Not a permutation of block indices (an index out of range or twice):
  // left as it is rather than relinked into a wrong list.
  std::vector<bool> Seen(N, false);
  for (uint64_t B : Order) {
    if (B >= N || Seen[B])
      return 0;
    Seen[B] = true;
  }
  BlockGraph G(FB);
  // The order as a doubly linked list over block indices.
  std::vector<uint64_t> Prev(N, NoBlock), Next(N, NoBlock);
  for (size_t P = 0; P + 1 < Order.size(); ++P) {
    Next[Order[P]] = Order[P + 1];
    Prev[Order[P + 1]] = Order[P];
  }
  const uint64_t Entry = Order.front();
  auto Executed = [&](uint64_t B) { return FB.Blocks[B].Count != 0; };
  auto Cost = [&](uint64_t B, uint64_t Nx) {
    return B == NoBlock ? 0.0 : blockCost(FB, G, B, Nx);
  };
  // Hottest first, ties by index: the same moves on every run.
  std::vector<uint64_t> ByCount;
  for (uint64_t B : Order)
    if (B != Entry && Executed(B))
      ByCount.push_back(B);
  llvm::stable_sort(ByCount, [&](uint64_t A, uint64_t B) {
    return FB.Blocks[A].Count > FB.Blocks[B].Count;
  });
  size_t Moves = 0;
  for (unsigned Pass = 0; Pass < MaxPasses; ++Pass) {
    size_t Before = Moves;
    for (uint64_t X : ByCount) {
      // Where X could gain a fall-through: right after a predecessor, or
      // right before a successor (after the block now in front of it).
      SmallVector<uint64_t, 8> After;
      for (auto [P, C] : G.Pred[X])
        After.push_back(P);
      for (auto [S, C] : G.Succ[X])
        if (S != Entry && Prev[S] != NoBlock)
          After.push_back(Prev[S]);
      uint64_t A = Prev[X], Nx = Next[X];
      double Best = -1e-9, Base = Cost(A, X) + Cost(X, Nx);
      uint64_t BestY = NoBlock;
      for (uint64_t Y : After) {
        if (Y == X || Y == A || !Executed(Y))
          continue;
        uint64_t Ny = Next[Y];
        if (Ny == X)
          continue;
        double Delta =
            Cost(A, Nx) + Cost(X, Ny) + Cost(Y, X) - (Base + Cost(Y, Ny));
        if (Delta < Best) {
          Best = Delta;
          BestY = Y;
        }
      }
      if (BestY == NoBlock)
        continue;
      // Unlink X, then insert it after BestY.
      if (A != NoBlock)
        Next[A] = Nx;
      if (Nx != NoBlock)
        Prev[Nx] = A;
      uint64_t Ny = Next[BestY];
      Next[BestY] = X;
      Prev[X] = BestY;
      Next[X] = Ny;
      if (Ny != NoBlock)
        Prev[Ny] = X;
      ++Moves;
    }
    if (Moves == Before)
      break;
  }
  if (!Moves)
    return 0;
  std::vector<uint64_t> Out;
  Out.reserve(Order.size());
  for (uint64_t B = Entry; B != NoBlock; B = Next[B])
    Out.push_back(B);
  assert(Out.size() == Order.size() && "a block was lost");
  if (Out.size() != Order.size())
    return 0;
  Order = std::move(Out);
  return Moves;
}

static FunctionLayout layoutOne(const FunctionBlocks &FB,
                                const BlockLayoutOptions &Opts) {
  FunctionLayout L;
  L.Name = FB.Name;
  L.Weight = FB.Instructions;
  L.Weak = FB.Weak;
  std::vector<uint64_t> Sizes, Counts;
  for (const BlockInfo &B : FB.Blocks) {
    Sizes.push_back(std::max<uint64_t>(B.Size, 1));
    Counts.push_back(B.Count);
  }
  std::vector<codelayout::EdgeCount> Edges;
  for (const auto &[E, N] : FB.Edges)
    if (E.first != E.second)
      Edges.push_back({E.first, E.second, N});
  L.ScoreBefore = codelayout::calcExtTspScore(Sizes, Edges);
  std::vector<uint64_t> Order = keptOrder(FB, Opts.Split, Opts.RareShare);
  L.KeptOrder = true;
  if (Opts.Order != BlockOrder::Keep) {
    std::vector<uint64_t> Ext =
        codelayout::computeExtTspLayout(Sizes, Counts, Edges);
    // The entry block must stay first (it is the function's symbol).
    auto EntryIt = llvm::find(Ext, 0);
    if (EntryIt != Ext.begin() && EntryIt != Ext.end())
      std::rotate(Ext.begin(), EntryIt, EntryIt + 1);
    // Split: the never-executed blocks leave, so they go last here too.
    if (Opts.Split)
      std::stable_partition(Ext.begin(), Ext.end(), [&](uint64_t I) {
        return I == 0 || FB.Blocks[I].Count != 0;
      });
    // Ext-TSP's score is blind to jumps: refine its order to execute fewer.
    if (Opts.RefineJumps)
      L.JumpMoves = refineJumps(FB, Ext);
    // Guarded: Ext-TSP only for a clear gain over the kept order. Both
    // orders have the never-executed blocks last, so the scores compare
    // the executed code alone.
    bool UseExt = true;
    if (Opts.Order == BlockOrder::Guarded) {
      double Kept = codelayout::calcExtTspScore(Order, Sizes, Edges);
      double New = codelayout::calcExtTspScore(Ext, Sizes, Edges);
      UseExt = New > Kept && New >= Kept * (1 + Opts.ReorderGain);
    }
    BranchCost KeptCost = estimateBranchCost(FB, Order);
    BranchCost ExtCost = estimateBranchCost(FB, Ext);
    // Cheapest: the compiler's order only where it costs strictly less; on
    // a tie Ext-TSP's order, which also packs the hottest blocks together.
    if (Opts.Order == BlockOrder::Cheapest)
      UseExt = !(KeptCost.cost() < ExtCost.cost());
    L.Branches = UseExt ? ExtCost : KeptCost;
    L.OtherBranches = UseExt ? KeptCost : ExtCost;
    if (UseExt) {
      Order = std::move(Ext);
      L.KeptOrder = false;
    }
  } else {
    L.Branches = estimateBranchCost(FB, Order);
  }
  L.ScoreAfter = codelayout::calcExtTspScore(Order, Sizes, Edges);
  auto IsCold = [&](uint64_t I) {
    return Opts.Split &&
           (L.KeptOrder ? !staysHot(FB, I) : FB.Blocks[I].Count == 0 && I != 0);
  };
  std::vector<bool> Warm = warmBlocks(FB, Opts.WarmShare, L.KeptOrder, IsCold);
  for (uint64_t I : Order) {
    const BlockInfo &B = FB.Blocks[I];
    if (IsCold(I)) {
      L.ColdBlocks.push_back(B.ID);
    } else if (Warm[I]) {
      L.WarmOrder.push_back(B.ID);
      L.WarmSize += B.Size;
    } else {
      L.HotOrder.push_back(B.ID);
      L.HotSize += B.Size;
    }
  }
  llvm::sort(L.ColdBlocks);
  return L;
}

std::vector<FunctionLayout>
computeBlockLayout(ArrayRef<FunctionBlocks> Functions,
                   const BlockLayoutOptions &Opts) {
  std::vector<const FunctionBlocks *> ByWeight;
  uint64_t Total = 0;
  for (const FunctionBlocks &F : Functions)
    if (F.Instructions) {
      ByWeight.push_back(&F);
      Total += F.Instructions;
    }
  llvm::stable_sort(ByWeight, [](const FunctionBlocks *A, const FunctionBlocks *B) {
    return A->Instructions > B->Instructions;
  });
  std::vector<FunctionLayout> Out;
  uint64_t Covered = 0;
  for (const FunctionBlocks *F : ByWeight) {
    if (Total && double(Covered) / double(Total) >= Opts.HotCoverage)
      break;
    Covered += F->Instructions;
    Out.push_back(layoutOne(*F, Opts));
  }
  return Out;
}

namespace {

/// Bytes one hot block needs beyond its own in the rebuilt hot part (see
/// estimateHotSizes). \p Next is the block after it in the profiled build
/// (nullptr at the end), \p NextInOrder the one after it in the hot part.
uint64_t blockOverhead(const Binary &Bin, const FunctionBlocks &FB, size_t I,
                       const std::set<uint64_t> &ColdAddrs,
                       std::optional<uint32_t> NextInOrder) {
  const BlockInfo &B = FB.Blocks[I];
  const BlockInfo *Next = I + 1 < FB.Blocks.size() ? &FB.Blocks[I + 1] : nullptr;
  uint64_t Extra = 0;
  // Alignment padding before it in the profiled build: the compiler
  // aligned it (loop header) and will again.
  if (I > 0) {
    const BlockInfo &Prev = FB.Blocks[I - 1];
    if (B.Addr > Prev.Addr + Prev.Size && B.Size)
      Extra += 15;
  }
  bool FallsThrough = true;
  if (Error E = Bin.forEachInstruction(
          B.Addr, B.Addr + B.Size, [&](const InstInfo &II, const MCInst &) {
            FallsThrough = !(II.IsReturn ||
                             (II.IsBranch && !II.IsConditional));
            // A short branch to a block now in the cold part: rel32.
            if (II.IsBranch && II.Target && II.Size == 2 &&
                ColdAddrs.count(*II.Target))
              Extra += 4;
          }))
    consumeError(std::move(E));
  if (B.Size == 0)
    FallsThrough = true;
  if (FallsThrough && Next && Next->Addr == B.Addr + B.Size &&
      NextInOrder != Next->ID)
    Extra += 5; // jmp rel32 to where it used to fall
  return Extra;
}

} // namespace

void estimateHotSizes(const Binary &Bin, ArrayRef<FunctionBlocks> Functions,
                      MutableArrayRef<FunctionLayout> Layout) {
  std::map<StringRef, const FunctionBlocks *> ByName;
  for (const FunctionBlocks &FB : Functions)
    ByName.emplace(FB.Name, &FB);
  for (FunctionLayout &L : Layout) {
    auto It = ByName.find(L.Name);
    if (It == ByName.end())
      continue;
    const FunctionBlocks &FB = *It->second;
    std::map<uint32_t, size_t> IndexOf; // block ID -> index in FB.Blocks
    for (size_t I = 0; I < FB.Blocks.size(); ++I)
      IndexOf.emplace(FB.Blocks[I].ID, I);
    // Blocks outside the hot part: a short branch to a warm block becomes a
    // rel32 as one to a cold block does.
    std::set<uint64_t> ColdAddrs;
    for (const auto *Part : {&L.ColdBlocks, &L.WarmOrder})
      for (uint32_t ID : *Part)
        if (auto C = IndexOf.find(ID); C != IndexOf.end())
          ColdAddrs.insert(FB.Blocks[C->second].Addr);
    uint64_t Size = 0;
    for (size_t K = 0; K < L.HotOrder.size(); ++K) {
      auto B = IndexOf.find(L.HotOrder[K]);
      if (B == IndexOf.end())
        continue;
      std::optional<uint32_t> NextInOrder;
      if (K + 1 < L.HotOrder.size())
        NextInOrder = L.HotOrder[K + 1];
      Size += FB.Blocks[B->second].Size +
              blockOverhead(Bin, FB, B->second, ColdAddrs, NextInOrder);
    }
    L.HotSize = Size;
  }
}

namespace {
/// Names that more than one laid-out function has: local functions of several
/// objects (C++'s __cxx_global_array_dtor, a static helper in a header).
std::set<StringRef> sharedNames(ArrayRef<FunctionLayout> Layout) {
  std::set<StringRef> Seen, Shared;
  for (const FunctionLayout &L : Layout)
    if (!Seen.insert(L.Name).second)
      Shared.insert(L.Name);
  return Shared;
}
} // namespace

void writeBasicBlockSectionsProfile(ArrayRef<FunctionLayout> Layout,
                                    raw_ostream &OS) {
  // A name several functions share is left out: clang refuses a profile that
  // names a function twice ("duplicate profile for function"), and one entry
  // would apply one function's block IDs to every object's namesake. Those
  // functions keep the compiler's block order.
  std::set<StringRef> Shared = sharedNames(Layout);
  OS << "v1\n";
  for (const FunctionLayout &L : Layout) {
    if (Shared.count(L.Name))
      continue;
    OS << "f " << L.Name << '\n';
    OS << 'c';
    for (uint32_t ID : L.HotOrder)
      OS << ' ' << ID;
    OS << '\n';
    // The second cluster: clang emits it as "name.__part.1".
    if (L.WarmOrder.empty())
      continue;
    OS << 'c';
    for (uint32_t ID : L.WarmOrder)
      OS << ' ' << ID;
    OS << '\n';
  }
}

std::string warmPartSymbol(StringRef Function) {
  return (Function + ".__part.1").str();
}

void writeBlockSymbolOrder(ArrayRef<std::string> FunctionOrder,
                           ArrayRef<FunctionLayout> Layout, raw_ostream &OS) {
  std::set<std::string> Seen;
  for (const std::string &F : FunctionOrder)
    if (Seen.insert(F).second)
      OS << F << '\n';
  for (const FunctionLayout &L : Layout)
    if (Seen.insert(L.Name).second)
      OS << L.Name << '\n';
  // No warm or cold part for the names writeBasicBlockSectionsProfile
  // leaves out. The warm parts come after every hot part: the hot parts
  // stay as dense as the split can make them.
  std::set<StringRef> Shared = sharedNames(Layout);
  for (const FunctionLayout &L : Layout)
    if (!L.WarmOrder.empty() && !L.Weak && !Shared.count(L.Name))
      OS << warmPartSymbol(L.Name) << '\n';
  for (const FunctionLayout &L : Layout)
    if (!L.ColdBlocks.empty() && !L.Weak && !Shared.count(L.Name))
      OS << L.Name << ".cold\n";
}

void writeHotPartSizes(ArrayRef<std::string> FunctionOrder,
                       ArrayRef<FunctionLayout> Layout, raw_ostream &OS) {
  OS << "# layout-blocks: estimated bytes of each hot part: the blocks kept "
        "in it (sizes\n"
        "# from the profiled build's .llvm_bb_addr_map) plus the jumps and "
        "alignment\n"
        "# padding the new order is expected to need (an estimate, erring "
        "high).\n"
        "# For layout-order --spacers=W --section-sizes=THIS_FILE.\n";
  std::map<StringRef, uint64_t> Size;
  for (const FunctionLayout &L : Layout)
    Size.emplace(L.Name, L.HotSize);
  std::set<StringRef> Seen;
  auto Emit = [&](StringRef Name) {
    auto It = Size.find(Name);
    if (It != Size.end() && Seen.insert(Name).second)
      OS << Name << ' ' << It->second << '\n';
  };
  for (const std::string &F : FunctionOrder)
    Emit(F);
  for (const FunctionLayout &L : Layout)
    Emit(L.Name);
}

Expected<std::vector<FunctionLayout>>
planBlockLayout(const Binary &Bin, const AddressProfile &AP,
                const BlockLayoutOptions &Opts, BlockMapStats &Stats) {
  auto Fns = mapProfileToBlocks(Bin, AP, Stats);
  if (!Fns)
    return Fns.takeError();
  std::vector<FunctionLayout> Layout = computeBlockLayout(*Fns, Opts);
  estimateHotSizes(Bin, *Fns, Layout);
  return Layout;
}

} // namespace keel
