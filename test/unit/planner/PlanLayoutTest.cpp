//===- PlanLayoutTest.cpp - planLayout: a plan from loaded profiles -------===//
//
// The binaries are test/Inputs/planner/prog.c (_start calls f ten times in
// a loop), built with and without -fbasic-block-address-map. The profiles
// are made here from their disassembly: the call, the return and the loop
// branch, with the fall-through ranges between them.
//
//===----------------------------------------------------------------------===//
#include "keel/Blocks/BlockLayout.h"
#include "keel/Planner/PlanLayout.h"
#include "keel/Profile/Binary.h"
#include "keel/Profile/Formats.h"

#include "llvm/ADT/Twine.h"

#include "gtest/gtest.h"

#include <map>

using namespace keel;
using namespace llvm;

namespace {

std::unique_ptr<Binary> openBinary(StringRef Name) {
  auto B = Binary::open((Twine(KEEL_PLANNER_BINARIES) + "/" + Name).str());
  if (!B) {
    ADD_FAILURE() << toString(B.takeError());
    return nullptr;
  }
  return std::move(*B);
}

/// The instructions of the function \p Name.
std::vector<InstInfo> instructions(const Binary &Bin, StringRef Name) {
  std::vector<InstInfo> Out;
  const SymbolInfo *F = Bin.functionNamed(Name);
  if (!F) {
    ADD_FAILURE() << "no function " << Name.str();
    return Out;
  }
  for (uint64_t A = F->Addr; A < F->Addr + F->Size;) {
    auto I = Bin.instructionAt(A);
    if (!I) {
      ADD_FAILURE() << toString(I.takeError());
      break;
    }
    Out.push_back(*I);
    A += I->Size;
  }
  return Out;
}

/// What a branch-stack profile of prog's run records, by address: the ten
/// calls of f and returns from it, the nine loop back-edges, and the
/// fall-through ranges between them; \p Scale times.
LoadedProfile runProfile(const Binary &Bin, uint64_t Scale = 1) {
  LoadedProfile LP;
  LP.Path = "run.perf";
  LP.Format = ProfileFormat::PerfScript;
  std::vector<InstInfo> Start = instructions(Bin, "_start");
  std::vector<InstInfo> F = instructions(Bin, "f");
  const InstInfo *Call = nullptr, *Loop = nullptr, *Ret = nullptr;
  for (const InstInfo &I : Start) {
    if (I.IsCall && !Call)
      Call = &I;
    if (I.IsConditional && Call && !Loop)
      Loop = &I;
  }
  for (const InstInfo &I : F)
    if (I.IsReturn && !Ret)
      Ret = &I;
  if (!Call || !Loop || !Ret || !Loop->Target) {
    ADD_FAILURE() << "prog's call, loop branch or return not found";
    return LP;
  }
  uint64_t Back = Call->Addr + Call->Size;
  AddressProfile &AP = LP.Addr;
  AP.Branches[{Call->Addr, F.front().Addr}].Count = 10 * Scale;
  AP.Branches[{Ret->Addr, Back}].Count = 10 * Scale;
  AP.Branches[{Loop->Addr, *Loop->Target}].Count = 9 * Scale;
  AP.FallThroughs[{F.front().Addr, Ret->Addr}] = 10 * Scale;
  AP.FallThroughs[{Back, Loop->Addr}] = 10 * Scale;
  AP.FallThroughs[{*Loop->Target, Call->Addr}] = 9 * Scale;
  LP.NumItems = AP.Branches.size() + AP.FallThroughs.size();
  return LP;
}

/// An fdata profile read from \p Text.
LoadedProfile fdataProfile(StringRef Text, StringRef Path) {
  LoadedProfile LP;
  LP.Path = Path.str();
  LP.Format = ProfileFormat::Fdata;
  LP.Symbolic = true;
  auto P = readFdata(Text, Path);
  if (!P)
    ADD_FAILURE() << toString(P.takeError());
  else
    LP.Sym = std::move(*P);
  return LP;
}

/// Function name -> weight in the plan file.
std::map<std::string, uint64_t> weights(const LayoutPlan &LP) {
  std::map<std::string, uint64_t> W;
  for (const auto &F : LP.File.Functions)
    W[F.Name] = F.Weight;
  return W;
}

/// Plan with the block layout (every executed function laid out).
LayoutOptions withBlocks() {
  LayoutOptions Opts;
  Opts.Blocks = BlockLayoutOptions();
  Opts.Blocks->HotCoverage = 1;
  return Opts;
}

std::string errorOf(Expected<PlannedLayout> P) {
  if (P) {
    ADD_FAILURE() << "planned, expected an error";
    return "";
  }
  return toString(P.takeError());
}

TEST(PlanLayout, PlansFromLoadedProfiles) {
  auto Bin = openBinary("prog");
  ASSERT_TRUE(Bin);
  LoadedProfile P = runProfile(*Bin);
  PlanReport R;
  auto Planned = planLayout(*Bin, {P}, LayoutOptions(), R);
  ASSERT_TRUE(bool(Planned)) << toString(Planned.takeError());
  const LayoutPlan &LP = Planned->Plan;
  EXPECT_EQ(LP.HotOrder.size(), 2u);
  EXPECT_FALSE(Planned->Blocks);
  std::map<std::string, uint64_t> W = weights(LP);
  EXPECT_GT(W["_start"], 0u);
  EXPECT_GT(W["f"], 0u);
  EXPECT_EQ(R.ProfiledFunctions, 2u);
  EXPECT_EQ(R.MatchedFunctions, 2u);
  EXPECT_TRUE(R.Analysed);
  EXPECT_EQ(R.Records, 6u); // the 3 branches and 3 ranges, symbolized
  EXPECT_FALSE(R.BlocksLaidOut);
}

TEST(PlanLayout, ProfilesAreMerged) {
  // Two profiles plan as one with their counts added.
  auto Bin = openBinary("prog");
  ASSERT_TRUE(Bin);
  LoadedProfile Once = runProfile(*Bin), Twice = runProfile(*Bin, 2);
  PlanReport R1, R2;
  auto Two = planLayout(*Bin, {Once, Once}, LayoutOptions(), R1);
  auto One = planLayout(*Bin, {Twice}, LayoutOptions(), R2);
  ASSERT_TRUE(bool(Two)) << toString(Two.takeError());
  ASSERT_TRUE(bool(One)) << toString(One.takeError());
  EXPECT_EQ(weights(Two->Plan), weights(One->Plan));
  EXPECT_EQ(Two->Plan.TextOrder, One->Plan.TextOrder);
}

TEST(PlanLayout, NothingToPlan) {
  auto Bin = openBinary("prog");
  ASSERT_TRUE(Bin);
  PlanReport R;
  EXPECT_EQ(errorOf(planLayout(*Bin, {}, LayoutOptions(), R)),
            "no profile: nothing to plan");
  LoadedProfile Empty = fdataProfile("", "empty.fdata");
  EXPECT_EQ(errorOf(planLayout(*Bin, {Empty}, LayoutOptions(), R)),
            "empty.fdata: the profile is empty: nothing to plan");
  // A profile of another binary: counted, then refused before any analysis.
  LoadedProfile Other = fdataProfile("1 foo 0 1 bar 0 0 10\n", "other.fdata");
  PlanReport RO;
  std::string E = errorOf(planLayout(*Bin, {Other}, LayoutOptions(), RO));
  EXPECT_NE(E.find("other.fdata: no function of the profile exists in "),
            std::string::npos)
      << E;
  EXPECT_EQ(RO.ProfiledFunctions, 2u);
  EXPECT_EQ(RO.MatchedFunctions, 0u);
  EXPECT_FALSE(RO.Analysed);
  // Records that never executed.
  LoadedProfile Zero = fdataProfile("1 _start 0 1 f 0 0 0\n", "zero.fdata");
  PlanReport RZ;
  EXPECT_EQ(errorOf(planLayout(*Bin, {Zero}, LayoutOptions(), RZ)),
            "zero.fdata: no function of the binary executed in the profile: "
            "nothing to plan");
  EXPECT_TRUE(RZ.Analysed);
}

TEST(PlanLayout, LaysOutBlocks) {
  auto Bin = openBinary("prog");
  ASSERT_TRUE(Bin);
  LoadedProfile P = runProfile(*Bin);
  LayoutOptions Opts = withBlocks();
  Opts.Planner.HotBudget = 1 << 20; // every executed function hot
  PlanReport R;
  auto Planned = planLayout(*Bin, {P}, Opts, R);
  ASSERT_TRUE(bool(Planned)) << toString(Planned.takeError());
  ASSERT_TRUE(Planned->Blocks);
  const std::vector<FunctionLayout> &Blocks = *Planned->Blocks;
  ASSERT_FALSE(Blocks.empty());
  EXPECT_TRUE(R.BlocksLaidOut);
  EXPECT_EQ(R.BlockFunctions, Blocks.size());
  EXPECT_GT(R.BlockStats.coverage(), 0.0);
  // The hot set's budget counts the laid-out functions' hot parts.
  const LayoutPlan &LP = Planned->Plan;
  uint64_t Expected = 0;
  for (uint32_t N : LP.HotOrder) {
    const FunctionNode &Node = LP.Graph.Nodes[N];
    uint64_t Size = Node.Size;
    for (const FunctionLayout &F : Blocks)
      if (F.Name == Node.Name)
        Size = F.HotSize;
    Expected += Size;
  }
  EXPECT_EQ(LP.HotBytes, Expected);
}

TEST(PlanLayout, BlocksNeedABlockMap) {
  // The analyses ran (their counts can be reported) before the block layout
  // failed.
  auto Bin = openBinary("prog-nomap");
  ASSERT_TRUE(Bin);
  LoadedProfile P = runProfile(*Bin);
  PlanReport R;
  std::string E = errorOf(planLayout(*Bin, {P}, withBlocks(), R));
  EXPECT_NE(E.find("no .llvm_bb_addr_map section"), std::string::npos) << E;
  EXPECT_TRUE(R.Analysed);
  EXPECT_FALSE(R.BlocksLaidOut);
}

TEST(PlanLayout, BlocksCheckTheBuildID) {
  auto Bin = openBinary("prog");
  ASSERT_TRUE(Bin);
  ASSERT_FALSE(Bin->buildID().empty());
  LoadedProfile P = runProfile(*Bin);
  P.Addr.BuildID = "00ff";
  PlanReport R;
  // Only the block layout reads the profiles by address and checks it.
  EXPECT_TRUE(bool(planLayout(*Bin, {P}, LayoutOptions(), R)));
  EXPECT_EQ(errorOf(planLayout(*Bin, {P}, withBlocks(), R)),
            ("run.perf: profile of build-id 00ff, binary has " +
             Bin->buildID())
                .str());
}

TEST(PlanLayout, SpacersCountTheSizesUsed) {
  auto Bin = openBinary("prog");
  ASSERT_TRUE(Bin);
  LoadedProfile P = runProfile(*Bin);
  LayoutOptions Opts;
  Opts.Spacers.Window = 64;
  Opts.Spacers.Sizes = {{"f", 8}, {"gone", 8}};
  PlanReport R;
  auto Planned = planLayout(*Bin, {P}, Opts, R);
  ASSERT_TRUE(bool(Planned)) << toString(Planned.takeError());
  EXPECT_EQ(R.SpacerSizesUsed, 1u);
  EXPECT_EQ(Planned->Plan.File.Spacers, 64u);
}

} // namespace

// layout-order's default preset plans blocks only for a binary with a
// block map: hasBlockMap tells the two builds of prog apart.
TEST(PlanLayout, HasBlockMapOnlyWithTheAddressMap) {
  auto Bin = openBinary("prog");
  auto NoMap = openBinary("prog-nomap");
  ASSERT_TRUE(Bin && NoMap);
  EXPECT_TRUE(hasBlockMap(*Bin));
  EXPECT_FALSE(hasBlockMap(*NoMap));
}
