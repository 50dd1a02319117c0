//===- HotSetTest.cpp - hot set by density under a cache budget -----------===//
#include "keel/Planner/Classify.h"
#include "keel/Planner/Emit.h"
#include "keel/Planner/Planner.h"
#include "keel/Planner/Spacers.h"

#include "gtest/gtest.h"

using namespace keel;
using llvm::toString;

namespace {

constexpr Temperature H = Temperature::Hot, W = Temperature::Warm,
                      C = Temperature::Cold;

TEST(HotSet, DensestFirstWithinTheBudget) {
  // Densities (weight / size): a 1, b 10, c 5, d 0 (never ran), e 2.
  // Densest first: b (100 B), c (200 B), e (500 B), a (1000 B). A budget
  // of 800 takes b, c and e (800 B); a (the heaviest function) is warm.
  std::vector<uint64_t> Wt = {1000, 1000, 1000, 0, 1000};
  std::vector<uint64_t> Sz = {1000, 100, 200, 50, 500};
  EXPECT_EQ(classifyByDensity(Wt, Sz, 800, 1.0),
            (std::vector<Temperature>{W, H, H, C, H}));
  // One byte less: e does not fit, and the hot set is a prefix of the
  // density order, so nothing after e is hot either.
  EXPECT_EQ(classifyByDensity(Wt, Sz, 799, 1.0),
            (std::vector<Temperature>{W, H, H, C, W}));
  // Coverage still caps it: b and c cover 50% of 4000, so at 0.5 nothing
  // more is taken, at 0.51 e is.
  EXPECT_EQ(classifyByDensity(Wt, Sz, 1 << 20, 0.5),
            (std::vector<Temperature>{W, H, H, C, W}));
  EXPECT_EQ(classifyByDensity(Wt, Sz, 1 << 20, 0.51),
            (std::vector<Temperature>{W, H, H, C, H}));
}

TEST(HotSet, DensestIsHotEvenOverBudgetAndTiesByIndex) {
  // The densest function alone (4000 B) exceeds a 1 KB budget: hot anyway.
  EXPECT_EQ(classifyByDensity({8000, 10}, {4000, 100}, 1024, 1.0),
            (std::vector<Temperature>{H, W}));
  // Equal densities (2 per byte): index order; size 0 counts as 1 byte of
  // density but 0 bytes of budget.
  EXPECT_EQ(classifyByDensity({200, 400, 2, 100}, {100, 200, 0, 50}, 300, 1.0),
            (std::vector<Temperature>{H, H, H, W}));
}

TEST(HotSet, PlanPutsTheHotTierFirstAndPacksOnlyIt) {
  // Call chains main -> big -> leaf, main -> tiny. Densities: tiny 8,
  // leaf 4, main 2, big 0.5. C3 (densest first) appends tiny to main and
  // leaf to big, then big's cluster to main's: main tiny big leaf. With a
  // 600-byte budget the hot tier is tiny, leaf, main (500 B); big is warm
  // and goes after all of them, the rest keep C3's order.
  CallGraph G;
  G.Nodes.push_back({"main", "", ".text", 0x1000, 300, false, 600, 0});
  G.Nodes.push_back({"big", "", ".text", 0x2000, 3000, false, 1500, 0});
  G.Nodes.push_back({"leaf", "", ".text", 0x3000, 100, false, 400, 0});
  G.Nodes.push_back({"tiny", "", ".text", 0x4000, 100, false, 800, 0});
  G.Nodes.push_back({"never", "", ".text", 0x5000, 100, false, 0, 0});
  G.addArc(0, 1, 10);
  G.Nodes[1].Calls = 10;
  G.addArc(1, 2, 100);
  G.Nodes[2].Calls = 100;
  G.addArc(0, 3, 5);
  G.Nodes[3].Calls = 5;
  auto Names = [](const LayoutPlan &LP, llvm::ArrayRef<uint32_t> Order) {
    std::vector<std::string> Out;
    for (uint32_t N : Order)
      Out.push_back(LP.Graph.Nodes[N].Name);
    return Out;
  };
  PlannerOptions Cov; // coverage alone: one interleaved C3 sequence
  Cov.HotCoverage = 1.0;
  auto Old = makeLayoutPlan(G, {}, Cov);
  ASSERT_TRUE(bool(Old)) << toString(Old.takeError());
  EXPECT_EQ(Names(*Old, Old->TextOrder),
            (std::vector<std::string>{"main", "tiny", "big", "leaf"}));
  EXPECT_FALSE(Old->HotFirst);

  PlannerOptions PO;
  PO.HotCoverage = 1.0;
  PO.HotBudget = 600;
  auto LP = makeLayoutPlan(G, {}, PO);
  ASSERT_TRUE(bool(LP)) << toString(LP.takeError());
  EXPECT_TRUE(LP->HotFirst);
  EXPECT_EQ(LP->HotBytes, 500u);
  EXPECT_EQ(Names(*LP, LP->TextOrder),
            (std::vector<std::string>{"main", "tiny", "leaf", "big"}));
  EXPECT_EQ(Names(*LP, LP->HotOrder),
            (std::vector<std::string>{"main", "tiny", "leaf"}));
  EXPECT_EQ(Names(*LP, LP->WarmOrder), (std::vector<std::string>{"big"}));
  EXPECT_EQ(Names(*LP, LP->Cold), (std::vector<std::string>{"never"}));

  // Sizes override the symbol sizes (the hot parts after splitting): big
  // shrunk to 200 bytes is denser (7.5) than main and leaf and fits.
  PO.Sizes = {{"big", 200}};
  auto Split = makeLayoutPlan(G, {}, PO);
  ASSERT_TRUE(bool(Split)) << toString(Split.takeError());
  EXPECT_EQ(Names(*Split, Split->WarmOrder), (std::vector<std::string>{"main"}));
  EXPECT_EQ(Split->HotBytes, 400u);

  // Spacers pack the hot tier only: with 256-byte packs main (300 B) is
  // bigger than a pack, tiny (304..404) stays inside the second pack,
  // leaf (from 416) would cross 512 and gets a spacer; the tier (ending
  // at 612) ends its pack with at least a pack of slack, so big, the first
  // warm function, starts at the fixed offset 768 + 256 = 1024, and is not
  // packed otherwise.
  SpacerOptions SO;
  SO.Window = 256;
  addSpacers(*LP, SO);
  EXPECT_EQ(LP->SpacerBefore, (std::vector<bool>{false, false, true, true}));
  EXPECT_EQ(LP->WarmStart, 1024u);
  EXPECT_EQ(LP->WarmStartIndex, 3u);
  EXPECT_EQ(LP->PackedTextBytes, 1024u);
  EXPECT_EQ(LP->SpacerCount, 2u);
  EXPECT_EQ(LP->PackEndCount, 1u);
  std::string Script;
  llvm::raw_string_ostream OS(Script);
  writeLinkerScript(*LP, ScriptFlavor::LLD, OS);
  EXPECT_NE(Script.find("    . = MAX(., __keel_hot_text_start + 1024);\n"
                        "    *(.text.big "),
            std::string::npos)
      << Script;
  EXPECT_NE(Script.find("The 3 hot functions (the densest, 500 bytes for a "
                        "budget of 600) come first"),
            std::string::npos)
      << Script;
}

TEST(HotSet, DominantFunctionsGoLastHeaviestLast) {
  // No arcs, order none: address order a b c d e. Shares: a 40%, b 5%,
  // c 30%, d 20%, e 5%. With --dominant-last=20, c (30%) and a (40%)
  // move to the end of the hot tier, lighter first; d (20%) too. e is
  // warm (it does not fit the budget) and stays behind the hot tier.
  CallGraph G;
  G.Nodes.push_back({"a", "", ".text", 0x1000, 400, false, 400, 0});
  G.Nodes.push_back({"b", "", ".text", 0x2000, 50, false, 50, 0});
  G.Nodes.push_back({"c", "", ".text", 0x3000, 300, false, 300, 0});
  G.Nodes.push_back({"d", "", ".text", 0x4000, 200, false, 200, 0});
  G.Nodes.push_back({"e", "", ".text", 0x5000, 1000, false, 50, 0});
  PlannerOptions PO;
  PO.Order = OrderAlgorithm::None;
  PO.HotCoverage = 1.0;
  PO.HotBudget = 1000;
  PO.DominantLastShare = 20;
  auto LP = makeLayoutPlan(G, {}, PO);
  ASSERT_TRUE(bool(LP)) << toString(LP.takeError());
  std::vector<std::string> Names;
  for (uint32_t N : LP->TextOrder)
    Names.push_back(LP->Graph.Nodes[N].Name);
  EXPECT_EQ(Names, (std::vector<std::string>{"b", "d", "c", "a", "e"}));
  // Off: the planned (address) order, hot tier first.
  PO.DominantLastShare = 0;
  LP = makeLayoutPlan(G, {}, PO);
  ASSERT_TRUE(bool(LP)) << toString(LP.takeError());
  Names.clear();
  for (uint32_t N : LP->TextOrder)
    Names.push_back(LP->Graph.Nodes[N].Name);
  EXPECT_EQ(Names, (std::vector<std::string>{"a", "b", "c", "d", "e"}));
}

} // namespace
