//===- BlockLayoutTest.cpp - block order and hot/cold split decisions -----===//
#include "keel/Blocks/BlockLayout.h"

#include "llvm/ADT/STLExtras.h"

#include "gtest/gtest.h"

using namespace keel;

namespace {

/// A function of blocks (ID = index, 16 bytes each, consecutive) with the
/// given entry counts and (from, to, count) edges between block indices.
FunctionBlocks makeFunction(const char *Name, std::vector<uint64_t> Counts,
                            std::vector<std::tuple<unsigned, unsigned, uint64_t>> Edges) {
  FunctionBlocks F;
  F.Name = Name;
  F.Addr = 0x1000;
  for (unsigned I = 0; I < Counts.size(); ++I)
    F.Blocks.push_back({I, 0x1000 + 16 * I, 16, Counts[I]});
  for (auto [A, B, N] : Edges)
    F.Edges[{A, B}] = N;
  for (uint64_t C : Counts)
    F.Instructions += 4 * C;
  return F;
}

/// Blocks 0..5 of a loop: 0 -> 1; 1 -> 2 (hot, falls through); 2 -> 3 -> 1
/// (back edge); 1 -> 5, the exit, ran once; 1 -> 4 never ran.
///   order in the binary: 0 1 2 3 4 5
FunctionBlocks loop() {
  return makeFunction("loop", {1, 1000, 1000, 1000, 0, 1},
                      {{0, 1, 1}, {1, 2, 999}, {1, 5, 1}, {2, 3, 1000},
                       {3, 1, 999}, {1, 4, 0}});
}

TEST(BlockOrder, KeepSplitsWithoutReordering) {
  BlockLayoutOptions O;
  O.Order = BlockOrder::Keep;
  auto L = computeBlockLayout({loop()}, O);
  ASSERT_EQ(L.size(), 1u);
  EXPECT_EQ(L[0].HotOrder, (std::vector<uint32_t>{0, 1, 2, 3, 5}));
  EXPECT_EQ(L[0].ColdBlocks, (std::vector<uint32_t>{4}));
  EXPECT_TRUE(L[0].KeptOrder);
  EXPECT_EQ(L[0].HotSize, 5u * 16);
  // Without splitting, keep is the binary's order exactly.
  O.Split = false;
  L = computeBlockLayout({loop()}, O);
  EXPECT_EQ(L[0].HotOrder, (std::vector<uint32_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_TRUE(L[0].ColdBlocks.empty());
}

TEST(BlockOrder, KeepLeavesNoNewFallThroughIntoPadding) {
  // The compiler aligned block 5 (8 bytes of padding before it): block 4,
  // never executed, ends with a jump or return, so nothing fell into the
  // padding. Splitting 4 off would make 3 fall into it: 4 stays.
  FunctionBlocks F = loop();
  F.Blocks[5].Addr += 8;
  BlockLayoutOptions O;
  O.Order = BlockOrder::Keep;
  auto L = computeBlockLayout({F}, O);
  EXPECT_EQ(L[0].HotOrder, (std::vector<uint32_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_TRUE(L[0].ColdBlocks.empty());
  // A cold block bigger than KeepBeforeAlignedBytes leaves anyway.
  F.Blocks[4].Size = KeepBeforeAlignedBytes + 1;
  F.Blocks[5].Addr = F.Blocks[4].Addr + F.Blocks[4].Size + 8;
  L = computeBlockLayout({F}, O);
  EXPECT_EQ(L[0].HotOrder, (std::vector<uint32_t>{0, 1, 2, 3, 5}));
  EXPECT_EQ(L[0].ColdBlocks, (std::vector<uint32_t>{4}));
  // Ext-TSP does not apply the rule (it reorders anyway).
  O.Order = BlockOrder::ExtTsp;
  F.Blocks[4].Size = 16;
  F.Blocks[5].Addr = F.Blocks[4].Addr + 24;
  L = computeBlockLayout({F}, O);
  EXPECT_EQ(L[0].ColdBlocks, (std::vector<uint32_t>{4}));
}

TEST(BlockOrder, RareBlocksMoveBehindTheOthers) {
  // The loop with block 2 entered only 5 times of 1000 (a rare path the
  // compiler placed inline): at RareShare 0.01 it moves behind 3, with the
  // exit 5 (entered once), both in the compiler's order and still in the
  // hot part; 4 (never run) is split off as before.
  FunctionBlocks F = loop();
  F.Blocks[2].Count = 5;
  BlockLayoutOptions O;
  O.Order = BlockOrder::Keep;
  O.RareShare = 0.01;
  auto L = computeBlockLayout({F}, O);
  EXPECT_EQ(L[0].HotOrder, (std::vector<uint32_t>{0, 1, 3, 2, 5}));
  EXPECT_EQ(L[0].ColdBlocks, (std::vector<uint32_t>{4}));
  // Blocks at or above the share stay in place (at 0.004 only the exit is
  // rare, and it is last already); 0 is off.
  O.RareShare = 0.004;
  EXPECT_EQ(computeBlockLayout({F}, O)[0].HotOrder,
            (std::vector<uint32_t>{0, 1, 2, 3, 5}));
  O.RareShare = 0;
  EXPECT_EQ(computeBlockLayout({F}, O)[0].HotOrder,
            (std::vector<uint32_t>{0, 1, 2, 3, 5}));
}

/// The compiler put the hot successor of 1 far away: 0 1 2 3 [rare path] 4 5
/// 2 3, with 1 -> 4 taken 999 times.
FunctionBlocks badlyPlaced() {
  return makeFunction("bad", {1, 1000, 1, 1, 1000, 1000},
                      {{0, 1, 1}, {1, 4, 999}, {1, 2, 1}, {2, 3, 1},
                       {4, 5, 1000}, {5, 1, 999}, {3, 1, 0}});
}

TEST(BlockOrder, ExtTspReorders) {
  BlockLayoutOptions O; // exttsp is the default
  auto L = computeBlockLayout({badlyPlaced()}, O);
  ASSERT_EQ(L.size(), 1u);
  EXPECT_FALSE(L[0].KeptOrder);
  EXPECT_EQ(L[0].HotOrder.front(), 0u);
  // The hot cycle 1 -> 4 -> 5 -> 1: in the binary's order only 4 -> 5
  // falls through; Ext-TSP makes two of its three edges fall through.
  auto FallThroughs = [](const std::vector<uint32_t> &Order) {
    unsigned N = 0;
    for (auto [A, B] : {std::pair<uint32_t, uint32_t>{1, 4}, {4, 5}, {5, 1}})
      for (size_t I = 0; I + 1 < Order.size(); ++I)
        N += Order[I] == A && Order[I + 1] == B;
    return N;
  };
  EXPECT_EQ(FallThroughs({0, 1, 2, 3, 4, 5}), 1u);
  EXPECT_EQ(FallThroughs(L[0].HotOrder), 2u);
  EXPECT_GT(L[0].ScoreAfter, L[0].ScoreBefore);
}

TEST(BlockOrder, GuardedReordersOnlyForAClearGain) {
  BlockLayoutOptions O;
  O.Order = BlockOrder::Guarded;
  O.ReorderGain = 0.1;
  // The badly placed function gains far more than 10%: reordered as
  // Ext-TSP says.
  auto Bad = computeBlockLayout({badlyPlaced()}, O);
  BlockLayoutOptions E;
  auto Ext = computeBlockLayout({badlyPlaced()}, E);
  EXPECT_FALSE(Bad[0].KeptOrder);
  EXPECT_EQ(Bad[0].HotOrder, Ext[0].HotOrder);
  // The loop's hot path already falls through in the compiler's order:
  // kept, only block 4 leaves.
  auto Loop = computeBlockLayout({loop()}, O);
  EXPECT_TRUE(Loop[0].KeptOrder);
  EXPECT_EQ(Loop[0].HotOrder, (std::vector<uint32_t>{0, 1, 2, 3, 5}));
  // An impossible gain keeps every function's order.
  O.ReorderGain = 1e9;
  Bad = computeBlockLayout({badlyPlaced()}, O);
  EXPECT_TRUE(Bad[0].KeptOrder);
  EXPECT_EQ(Bad[0].HotOrder, (std::vector<uint32_t>{0, 1, 2, 3, 4, 5}));
}

TEST(BranchCost, CountsJumpsAndTakenBranchesOfAnOrder) {
  // The loop: 0 -> 1; 1 -> 2 (999), 1 -> 5 (1); 2 -> 3 (1000); 3 -> 1 (999).
  FunctionBlocks F = loop();
  // The binary's order 0 1 2 3 4 5: 1 falls into 2, 2 into 3; 3's back edge
  // is a jump (999), 1's exit a taken branch (1).
  BranchCost C = estimateBranchCost(F, {0, 1, 2, 3, 4, 5});
  EXPECT_EQ(C.Jumps, 999u);
  EXPECT_EQ(C.Taken, 1000u);
  // Rotated, 0 3 1 2 5 4: 0 jumps to 1 (once); 3 falls into 1; 1's
  // successors 2 (999) and 5 (1): 2 is next, so the exit is taken (1);
  // 2 -> 3 is a jump (1000).
  C = estimateBranchCost(F, {0, 3, 1, 2, 5, 4});
  EXPECT_EQ(C.Jumps, 1001u);
  EXPECT_EQ(C.Taken, 1002u);
  // Neither of 1's successors next (0 1 3 2 5 4): a taken branch for every
  // entry (1000), a jump for the rarer one (1); 3 -> 1 a jump (999); 2 -> 3
  // a jump (1000).
  C = estimateBranchCost(F, {0, 1, 3, 2, 5, 4});
  EXPECT_EQ(C.Jumps, 1u + 999 + 1000);
  EXPECT_EQ(C.Taken, 1000u + 999 + 1000);
  EXPECT_DOUBLE_EQ(C.cost(), 2000 + BranchCost::TakenWeight * 2999);
  // Block 1's conditional branch goes to the exit, 5 (decoded): with
  // neither successor next, the exit is the taken branch and the body, 2,
  // is reached by the jump (999 times).
  F.Blocks[1].BranchTo = 5;
  C = estimateBranchCost(F, {0, 1, 3, 2, 5, 4});
  EXPECT_EQ(C.Jumps, 999u + 999 + 1000);
  EXPECT_EQ(C.Taken, 1000u + 999 + 1000);
  // Block 3's back edge is its conditional branch: taken, no jump.
  F.Blocks[3].BranchTo = 1;
  C = estimateBranchCost(F, {0, 1, 2, 3, 4, 5});
  EXPECT_EQ(C.Jumps, 0u);
  EXPECT_EQ(C.Taken, 1000u);
}

/// A rotated loop in the compiler's order 0 1 2 3: 0 (the entry) jumps to
/// 2, the header (1001 entries); 2 -> 1, the body (1000), 2 -> 3, the exit
/// (1); 1 falls into 2 (1000).
FunctionBlocks unrotatedLoop() {
  FunctionBlocks F = makeFunction("rot", {1, 1000, 1001, 1},
                                  {{0, 2, 1}, {2, 1, 1000}, {2, 3, 1}, {1, 2, 1000}});
  return F;
}

TEST(BlockOrder, CheapestKeepsTheCompilersOrderWhereItExecutesFewerJumps) {
  // Block indices: 0 entry, 1 the body, 2 the header, 3 the exit (the
  // compiler's order 0 1 2 3 is the rotated loop: 0 jumps to the header).
  FunctionBlocks F = unrotatedLoop();
  BranchCost Kept = estimateBranchCost(F, {0, 1, 2, 3});
  EXPECT_EQ(Kept.Jumps, 1u);    // 0 -> 2, once
  EXPECT_EQ(Kept.Taken, 1001u); // and 2 -> 1 taken 1000 times
  BranchCost Unrotated = estimateBranchCost(F, {0, 2, 1, 3});
  EXPECT_EQ(Unrotated.Jumps, 1000u); // 1 -> 2 jumps back every time
  EXPECT_EQ(Unrotated.Taken, 1001u); // and 2 -> 3 is taken once
  BlockLayoutOptions O;
  O.Order = BlockOrder::Cheapest;
  auto L = computeBlockLayout({F}, O);
  ASSERT_EQ(L.size(), 1u);
  BlockLayoutOptions E;
  auto Ext = computeBlockLayout({F}, E);
  if (Ext[0].Branches.cost() > Kept.cost()) {
    // Ext-TSP chose a dearer order: cheapest keeps the compiler's.
    EXPECT_TRUE(L[0].KeptOrder);
    EXPECT_EQ(L[0].HotOrder, (std::vector<uint32_t>{0, 1, 2, 3}));
  } else {
    EXPECT_FALSE(L[0].KeptOrder);
    EXPECT_EQ(L[0].HotOrder, Ext[0].HotOrder);
  }
  EXPECT_LE(L[0].Branches.cost(), Kept.cost());
  EXPECT_LE(L[0].Branches.cost(), Ext[0].Branches.cost());
  // Where Ext-TSP's order is cheaper (the badly placed function), it stays.
  auto Bad = computeBlockLayout({badlyPlaced()}, O);
  auto BadExt = computeBlockLayout({badlyPlaced()}, E);
  EXPECT_FALSE(Bad[0].KeptOrder);
  EXPECT_EQ(Bad[0].HotOrder, BadExt[0].HotOrder);
  EXPECT_LT(Bad[0].Branches.cost(), Bad[0].OtherBranches.cost());
}

/// A loop entered by a jump over its latch, as Ext-TSP's greedy merging
/// left one in lz4's LZ4HC_compress_generic_noDictCtx: 0 the entry, 1 the
/// preheader (jumps to the header, 100 entries), 2 the latch (falls into
/// the header; its conditional branch goes back to it), 3 the header (900
/// times to the latch, 100 to the exit by its conditional branch), 4 the
/// exit, 5 never executed.
///   order 0 1 2 3 4 5: 1 jumps to 3 (100 jumps), 2 falls into 3, 3's back
///   edge to 2 is taken (900), 3 falls into the exit.
FunctionBlocks jumpIntoLoop() {
  FunctionBlocks F = makeFunction(
      "jump_into_loop", {100, 100, 900, 1000, 100, 0},
      {{0, 1, 100}, {1, 3, 100}, {2, 3, 900}, {3, 2, 900}, {3, 4, 100}});
  F.Blocks[2].BranchTo = 3;
  F.Blocks[3].BranchTo = 4;
  return F;
}

TEST(RefineJumps, MovesTheLatchAfterTheHeader) {
  FunctionBlocks F = jumpIntoLoop();
  std::vector<uint64_t> Order = {0, 1, 2, 3, 4, 5};
  BranchCost Before = estimateBranchCost(F, Order);
  EXPECT_EQ(Before.Jumps, 100u);
  EXPECT_EQ(Before.Taken, 1000u);
  // The latch moves behind the header: 1 falls into 3, 3 into 2, 2's
  // conditional branch goes back to 3 (taken 900) and 3's to the exit
  // (taken 100): as many taken branches, no jump.
  EXPECT_EQ(refineJumps(F, Order), 1u);
  EXPECT_EQ(Order, (std::vector<uint64_t>{0, 1, 3, 2, 4, 5}));
  BranchCost After = estimateBranchCost(F, Order);
  EXPECT_EQ(After.Jumps, 0u);
  EXPECT_EQ(After.Taken, 1000u);
  // Nothing left to gain: a second refinement moves nothing.
  EXPECT_EQ(refineJumps(F, Order), 0u);
  EXPECT_EQ(Order, (std::vector<uint64_t>{0, 1, 3, 2, 4, 5}));
}

TEST(RefineJumps, KeepsTheEntryFirstAndMovesOnlyExecutedBlocks) {
  // 0 -> 3 -> 2 -> 4 (10 each) in the order 0 5 2 4 3 1, 5 and 1 never
  // executed: 0 jumps to 3, 3 jumps to 2, 2 falls into 4 (20 jumps).
  FunctionBlocks F = makeFunction("entry", {10, 0, 10, 10, 10, 0},
                                  {{0, 3, 10}, {3, 2, 10}, {2, 4, 10}});
  std::vector<uint64_t> Order = {0, 5, 2, 4, 3, 1};
  EXPECT_EQ(estimateBranchCost(F, Order).Jumps, 20u);
  // 3 moves behind the entry (its jump goes); moving 2 behind 3 would
  // break 2 -> 4 for as much as it gains, so it stays: a one-block search
  // stops there. The entry stays first and the never-executed blocks move
  // only as their neighbours leave.
  EXPECT_EQ(refineJumps(F, Order), 1u);
  EXPECT_EQ(Order, (std::vector<uint64_t>{0, 3, 5, 2, 4, 1}));
  EXPECT_EQ(estimateBranchCost(F, Order).Jumps, 10u);
  EXPECT_EQ(estimateBranchCost(F, Order).Taken, 10u);
}

TEST(RefineJumps, LeavesAnOrderThatIsNotAPermutationAlone) {
  FunctionBlocks F = jumpIntoLoop();
  std::vector<uint64_t> OutOfRange = {0, 1, 2, 3, 4, 9};
  EXPECT_EQ(refineJumps(F, OutOfRange), 0u);
  EXPECT_EQ(OutOfRange, (std::vector<uint64_t>{0, 1, 2, 3, 4, 9}));
  std::vector<uint64_t> Twice = {0, 1, 2, 3, 2, 5};
  EXPECT_EQ(refineJumps(F, Twice), 0u);
  EXPECT_EQ(Twice, (std::vector<uint64_t>{0, 1, 2, 3, 2, 5}));
}

TEST(RefineJumps, ComputeBlockLayoutRefinesExtTspOnly) {
  // Whatever order Ext-TSP picks, refining it never costs more, and the
  // kept order is never refined (it stays the compiler's).
  BlockLayoutOptions O;
  EXPECT_FALSE(O.RefineJumps); // off by default
  O.RefineJumps = true;
  auto Refined = computeBlockLayout({jumpIntoLoop()}, O);
  O.RefineJumps = false;
  auto Plain = computeBlockLayout({jumpIntoLoop()}, O);
  ASSERT_EQ(Refined.size(), 1u);
  ASSERT_EQ(Plain.size(), 1u);
  EXPECT_LE(Refined[0].Branches.cost(), Plain[0].Branches.cost());
  EXPECT_EQ(Plain[0].JumpMoves, 0u);
  EXPECT_EQ(Refined[0].Branches.Jumps, 0u);
  O.Order = BlockOrder::Keep;
  O.RefineJumps = true;
  auto Kept = computeBlockLayout({jumpIntoLoop()}, O);
  EXPECT_EQ(Kept[0].HotOrder, (std::vector<uint32_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(Kept[0].JumpMoves, 0u);
}

TEST(BlockOrder, CoverageChoosesTheFunctionsLaidOut) {
  // Three functions of 4000, 900 and 100 executed instructions (4 per
  // block entry): at 0.8 the heaviest alone covers the share; at 1 every
  // executed function is laid out, heaviest first, and each is split.
  FunctionBlocks A = makeFunction("a", {1000, 0}, {{0, 1, 0}});
  FunctionBlocks B = makeFunction("b", {225, 0}, {{0, 1, 0}});
  FunctionBlocks C = makeFunction("c", {25, 0}, {{0, 1, 0}});
  BlockLayoutOptions O;
  O.Order = BlockOrder::Keep;
  O.HotCoverage = 0.8;
  auto L = computeBlockLayout({C, A, B}, O);
  ASSERT_EQ(L.size(), 1u);
  EXPECT_EQ(L[0].Name, "a");
  O.HotCoverage = 1.0;
  L = computeBlockLayout({C, A, B}, O);
  ASSERT_EQ(L.size(), 3u);
  EXPECT_EQ(L[0].Name, "a");
  EXPECT_EQ(L[1].Name, "b");
  EXPECT_EQ(L[2].Name, "c");
  for (const FunctionLayout &F : L)
    EXPECT_EQ(F.ColdBlocks, (std::vector<uint32_t>{1}));
}

/// try { g(f()); } catch (...) { cleanup(); throw; } with an error path
/// after it, as a branch-only profile (fdata) sees it: f and g may throw,
/// so each call ends its block; returns are not records. Calls enter block
/// 0 100 times; the calls in blocks 0 and 1 are records from them (100
/// each), the landing pad 3 calls its cleanup 5 times; nothing enters
/// blocks 1-3 and block 4 never ran.
///   0: ...; call f        (falls into 1 when f returns)
///   1: call g             (falls into 2)
///   2: ret
///   3: landing pad: call cleanup; call _Unwind_Resume (no fall-through)
///   4: error path, never run
FunctionBlocks tryCatch() {
  FunctionBlocks F = makeFunction("tc", {100, 0, 0, 0, 0}, {});
  F.Blocks[2].CanFallThrough = false;
  F.Blocks[3].IsEHPad = true;
  F.Blocks[3].CanFallThrough = false;
  return F;
}

TEST(BlockRecords, BlocksAfterCallsAndLandingPadsRan) {
  FunctionBlocks F = tryCatch();
  std::vector<BlockRecords> R(5);
  R[0].FromOneInstruction = 100; // call f
  R[1].FromOneInstruction = 100; // call g
  R[3].FromOneInstruction = 5;   // call cleanup
  std::vector<uint64_t> Given = inferUnenteredBlocks(F, R);
  EXPECT_EQ(Given, (std::vector<uint64_t>{0, 100, 100, 5, 0}));
  std::vector<uint64_t> Counts;
  for (const BlockInfo &B : F.Blocks)
    Counts.push_back(B.Count);
  EXPECT_EQ(Counts, (std::vector<uint64_t>{100, 100, 100, 5, 0}));
  // 1 was fallen into from 0 (it ran, nothing entered it), 2 from 1 (what
  // ran in 1 did not leave it by a record); nothing falls into the pad.
  EXPECT_EQ(F.Edges, (std::map<std::pair<unsigned, unsigned>, uint64_t>{
                         {{0, 1}, 100}, {{1, 2}, 100}}));
  // Every block that ran is hot; only the error path is split off.
  F.Instructions = 4 * 305;
  for (BlockOrder O : {BlockOrder::ExtTsp, BlockOrder::Keep}) {
    BlockLayoutOptions Opts;
    Opts.Order = O;
    auto L = computeBlockLayout({F}, Opts);
    ASSERT_EQ(L.size(), 1u);
    EXPECT_EQ(L[0].ColdBlocks, (std::vector<uint32_t>{4}));
  }
}

TEST(BlockRecords, CountsKeptAndPadsNotFallenInto) {
  // Block 0 ran 10 times and left by a record 4 times: 6 fell into 1,
  // beside the 3 of the record edge 0 -> 1. Block 1 had records entering it
  // (count 9): kept; it fell into 2 as often as it ran (6 as the backward
  // pass gave 2 its count, 3 more as nothing left 1 otherwise). Block 2 ran
  // (6 records from it) but 3 is a landing pad: nothing falls into it, and
  // 3 never ran.
  FunctionBlocks F = makeFunction("k", {10, 9, 0, 0}, {{0, 1, 3}});
  F.Blocks[3].IsEHPad = true;
  std::vector<BlockRecords> R(4);
  R[0].Leaving = 4;
  R[2].FromOneInstruction = 6;
  std::vector<uint64_t> Given = inferUnenteredBlocks(F, R);
  EXPECT_EQ(Given, (std::vector<uint64_t>{0, 0, 6, 0}));
  EXPECT_EQ(F.Blocks[1].Count, 9u);
  EXPECT_EQ(F.Blocks[3].Count, 0u);
  EXPECT_EQ(F.Edges, (std::map<std::pair<unsigned, unsigned>, uint64_t>{
                         {{0, 1}, 9}, {{1, 2}, 9}}));
}

TEST(BlockRecords, BlocksWithoutABranchFallIntoBlocksEnteredByRecords) {
  // A branch-only profile (fdata) of a loop: 0 -> 1 once; 1 ends in no
  // branch and falls into 2, the header, which a record from 3 also enters
  // (the back edge, 999); 2 -> 3 (the body, 999 taken), 2 -> 4 (the exit,
  // once: its fall-through record). Nothing records 1 -> 2: it is inferred
  // though 2 has a count (1000) of its own.
  FunctionBlocks F = makeFunction("ft", {1, 1, 1000, 999, 1},
                                  {{0, 1, 1}, {3, 2, 999}, {2, 3, 999}, {2, 4, 1}});
  std::vector<BlockRecords> R(5);
  R[0].Leaving = 1;
  R[2].Leaving = 1000;
  R[3].Leaving = 999;
  std::vector<uint64_t> Given = inferUnenteredBlocks(F, R);
  EXPECT_EQ(Given, (std::vector<uint64_t>{0, 0, 0, 0, 0}));
  EXPECT_EQ(F.Edges, (std::map<std::pair<unsigned, unsigned>, uint64_t>{
                         {{0, 1}, 1}, {{1, 2}, 1}, {{2, 3}, 999}, {{2, 4}, 1}, {{3, 2}, 999}}));
}

TEST(BlockSymbolOrder, NoColdPartOfWeakFunctions) {
  // A weak (COMDAT) function's cold part is a local symbol of every copy:
  // the order file names the hot part only.
  FunctionLayout Strong, Weak;
  Strong.Name = "f";
  Strong.ColdBlocks = {2};
  Weak.Name = "_ZN4PoolIiE3addEi";
  Weak.ColdBlocks = {1};
  Weak.Weak = true;
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  writeBlockSymbolOrder({"main"}, {Strong, Weak}, OS);
  EXPECT_EQ(Out, "main\nf\n_ZN4PoolIiE3addEi\nf.cold\n");
}

TEST(BlockSectionsProfile, LeavesOutSharedLocalNames) {
  // Two objects' local __cxx_global_array_dtor: clang rejects a profile that
  // names a function twice, and one entry would fit only one of them.
  FunctionLayout F, D1, D2;
  F.Name = "f";
  F.HotOrder = {0, 2};
  F.ColdBlocks = {1};
  D1.Name = D2.Name = "__cxx_global_array_dtor";
  D1.HotOrder = {0, 2};
  D2.HotOrder = {0, 1};
  D1.ColdBlocks = D2.ColdBlocks = {3};
  std::string Profile, Order;
  llvm::raw_string_ostream PS(Profile), OS(Order);
  writeBasicBlockSectionsProfile({F, D1, D2}, PS);
  EXPECT_EQ(Profile, "v1\nf f\nc 0 2\n");
  writeBlockSymbolOrder({"main"}, {F, D1, D2}, OS);
  EXPECT_EQ(Order, "main\nf\n__cxx_global_array_dtor\nf.cold\n");
}

/// A loop with a rare path: 0 -> 1 (header) -> 3 (latch) -> 1, and 1 -> 2
/// -> 3 taken 5 times of 1000; 1 -> 4 never ran; 3 -> 5, the exit, once.
///   order in the binary: 0 1 2 3 4 5
FunctionBlocks rarePath() {
  return makeFunction("rare", {1, 1000, 5, 1000, 0, 1},
                      {{0, 1, 1}, {1, 2, 5}, {1, 3, 995}, {2, 3, 5},
                       {3, 1, 999}, {3, 5, 1}, {1, 4, 0}});
}

TEST(WarmSplit, RareBlocksLeaveTheHotPart) {
  // At 0.01 of the hottest block (1000), the rare path 2 (5) and the exit
  // 5 (1) go to the warm part; the entry, entered once, stays first in the
  // hot part; 4 (never run) goes cold as before.
  BlockLayoutOptions O;
  O.Order = BlockOrder::Keep;
  O.WarmShare = 0.01;
  auto L = computeBlockLayout({rarePath()}, O);
  ASSERT_EQ(L.size(), 1u);
  EXPECT_EQ(L[0].HotOrder, (std::vector<uint32_t>{0, 1, 3}));
  EXPECT_EQ(L[0].WarmOrder, (std::vector<uint32_t>{2, 5}));
  EXPECT_EQ(L[0].ColdBlocks, (std::vector<uint32_t>{4}));
  EXPECT_EQ(L[0].HotSize, 3u * 16);
  EXPECT_EQ(L[0].WarmSize, 2u * 16);
  // At 0.004 only the exit (1 < 4) is warm; at 0 (the default) none.
  O.WarmShare = 0.004;
  L = computeBlockLayout({rarePath()}, O);
  EXPECT_EQ(L[0].HotOrder, (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(L[0].WarmOrder, (std::vector<uint32_t>{5}));
  BlockLayoutOptions Off;
  Off.Order = BlockOrder::Keep;
  L = computeBlockLayout({rarePath()}, Off);
  EXPECT_EQ(L[0].HotOrder, (std::vector<uint32_t>{0, 1, 2, 3, 5}));
  EXPECT_TRUE(L[0].WarmOrder.empty());
  EXPECT_EQ(L[0].WarmSize, 0u);
}

TEST(WarmSplit, ExtTspOrderKeptInsideEachPart) {
  // With Ext-TSP the hot and warm parts are the Ext-TSP order with the
  // other part's blocks taken out: the split moves blocks, it does not
  // reorder them.
  BlockLayoutOptions O;
  auto Whole = computeBlockLayout({rarePath()}, O)[0].HotOrder;
  O.WarmShare = 0.01;
  auto L = computeBlockLayout({rarePath()}, O);
  EXPECT_FALSE(L[0].KeptOrder);
  std::vector<uint32_t> Hot, Warm;
  for (uint32_t ID : Whole)
    (ID == 2 || ID == 5 ? Warm : Hot).push_back(ID);
  EXPECT_EQ(L[0].HotOrder, Hot);
  EXPECT_EQ(L[0].WarmOrder, Warm);
  // Ext-TSP makes the back edge 3 -> 1 (999) the fall-through.
  EXPECT_EQ(L[0].HotOrder, (std::vector<uint32_t>{0, 3, 1}));
  EXPECT_EQ(L[0].WarmOrder.size(), 2u);
  EXPECT_EQ(L[0].ColdBlocks, (std::vector<uint32_t>{4}));
}

TEST(WarmSplit, EntryAndLandingPadsStayHot) {
  // Everything but the header is rare at 0.5: the entry is the function's
  // symbol and stays; a landing pad stays (clang would move every pad of
  // the function to one .text.eh section once they sit in different parts).
  FunctionBlocks F = rarePath();
  F.Blocks[3].Count = 400;
  F.Blocks[2].IsEHPad = true;
  BlockLayoutOptions O;
  O.Order = BlockOrder::Keep;
  O.WarmShare = 0.5;
  auto L = computeBlockLayout({F}, O);
  EXPECT_EQ(L[0].HotOrder, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(L[0].WarmOrder, (std::vector<uint32_t>{3, 5}));
  EXPECT_EQ(L[0].HotOrder.front(), 0u);
  // A function whose blocks are all rare but the entry keeps the entry hot.
  FunctionBlocks G = makeFunction("g", {1000, 2, 3}, {{0, 1, 2}, {0, 2, 3}});
  L = computeBlockLayout({G}, O);
  EXPECT_EQ(L[0].HotOrder, (std::vector<uint32_t>{0}));
  EXPECT_EQ(L[0].WarmOrder, (std::vector<uint32_t>{1, 2}));
  G.Blocks[0].Count = 1;
  L = computeBlockLayout({G}, O);
  EXPECT_EQ(L[0].HotOrder.front(), 0u);
}

TEST(WarmSplit, KeepLeavesNoNewFallThroughIntoPadding) {
  // The compiler aligned the latch 3 (8 bytes of padding before it): the
  // rare block 2 before it stays hot in the kept order, as a never-executed
  // one would (the header would otherwise fall into the padding).
  FunctionBlocks F = rarePath();
  for (unsigned I = 3; I < F.Blocks.size(); ++I)
    F.Blocks[I].Addr += 8;
  BlockLayoutOptions O;
  O.Order = BlockOrder::Keep;
  O.WarmShare = 0.01;
  auto L = computeBlockLayout({F}, O);
  EXPECT_EQ(L[0].HotOrder, (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(L[0].WarmOrder, (std::vector<uint32_t>{5}));
  // Bigger than KeepBeforeAlignedBytes, it leaves.
  F.Blocks[2].Size = KeepBeforeAlignedBytes + 1;
  for (unsigned I = 3; I < F.Blocks.size(); ++I)
    F.Blocks[I].Addr += KeepBeforeAlignedBytes + 1;
  L = computeBlockLayout({F}, O);
  EXPECT_EQ(L[0].HotOrder, (std::vector<uint32_t>{0, 1, 3}));
  EXPECT_EQ(L[0].WarmOrder, (std::vector<uint32_t>{2, 5}));
}

TEST(WarmSplit, SecondClusterAndWarmPartsAfterEveryHotPart) {
  FunctionLayout F, G, W;
  F.Name = "f";
  F.HotOrder = {0, 1, 3};
  F.WarmOrder = {2, 5};
  F.ColdBlocks = {4};
  G.Name = "g";
  G.HotOrder = {0};
  G.WarmOrder = {1};
  W.Name = "_ZN4PoolIiE3addEi"; // weak: its parts are locals of every copy
  W.HotOrder = {0};
  W.WarmOrder = {2};
  W.ColdBlocks = {1};
  W.Weak = true;
  std::string Profile, Order;
  llvm::raw_string_ostream PS(Profile), OS(Order);
  writeBasicBlockSectionsProfile({F, G, W}, PS);
  EXPECT_EQ(Profile, "v1\nf f\nc 0 1 3\nc 2 5\nf g\nc 0\nc 1\n"
                     "f _ZN4PoolIiE3addEi\nc 0\nc 2\n");
  writeBlockSymbolOrder({"main", "g", "f"}, {F, G, W}, OS);
  EXPECT_EQ(Order, "main\ng\nf\n_ZN4PoolIiE3addEi\nf.__part.1\n"
                   "g.__part.1\nf.cold\n");
  EXPECT_EQ(warmPartSymbol("f"), "f.__part.1");
}

TEST(BlockOrder, Names) {
  for (BlockOrder O : {BlockOrder::ExtTsp, BlockOrder::Keep, BlockOrder::Guarded,
                       BlockOrder::Cheapest})
    EXPECT_EQ(parseBlockOrder(blockOrderName(O)), O);
  EXPECT_FALSE(parseBlockOrder("ext-tsp").has_value());
}

} // namespace
