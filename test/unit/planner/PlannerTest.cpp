//===- PlannerTest.cpp - classification, C3, Pettis-Hansen, data ranking --===//
#include "keel/Planner/Classify.h"
#include "keel/Planner/Emit.h"
#include "keel/Planner/FunctionOrder.h"
#include "keel/Planner/HotData.h"
#include "keel/Planner/Planner.h"

#include "gtest/gtest.h"

#include <numeric>

using namespace keel;

namespace {

/// A graph from (name, size, weight) nodes and (caller, callee, count) arcs.
CallGraph makeGraph(std::vector<std::tuple<const char *, uint64_t, uint64_t>> Ns,
                    std::vector<std::tuple<uint32_t, uint32_t, uint64_t>> As) {
  CallGraph G;
  uint64_t Addr = 0x1000;
  for (auto [Name, Size, Weight] : Ns) {
    FunctionNode N;
    N.Name = Name;
    N.Size = Size;
    N.Weight = Weight;
    N.Addr = Addr;
    N.Section = ".text";
    Addr += Size;
    G.Nodes.push_back(N);
  }
  for (auto [F, T, C] : As) {
    G.addArc(F, T, C);
    G.Nodes[T].Calls += C;
  }
  return G;
}

std::vector<std::string> names(const CallGraph &G,
                               const std::vector<uint32_t> &Order) {
  std::vector<std::string> Out;
  for (uint32_t N : Order)
    Out.push_back(G.Nodes[N].Name);
  return Out;
}

std::vector<uint32_t> all(const CallGraph &G) {
  std::vector<uint32_t> V(G.Nodes.size());
  std::iota(V.begin(), V.end(), 0);
  return V;
}

using Names = std::vector<std::string>;

TEST(Classify, CoverageSplitsHotWarmCold) {
  // 1000 + 900 = 1900 of 2000 = 95%: at 0.95 the first two are hot; the
  // function that crosses the threshold is included, so at 0.96 the third.
  std::vector<uint64_t> W = {900, 0, 1000, 60, 40};
  auto C = classifyByCoverage(W, 0.95);
  EXPECT_EQ(C, (std::vector<Temperature>{Temperature::Hot, Temperature::Cold,
                                         Temperature::Hot, Temperature::Warm,
                                         Temperature::Warm}));
  C = classifyByCoverage(W, 0.96);
  EXPECT_EQ(C[3], Temperature::Hot);
  EXPECT_EQ(C[4], Temperature::Warm);
  C = classifyByCoverage(W, 1.0);
  EXPECT_EQ(C, (std::vector<Temperature>{Temperature::Hot, Temperature::Cold,
                                         Temperature::Hot, Temperature::Hot,
                                         Temperature::Hot}));
}

TEST(Classify, TiesBreakByIndex) {
  auto C = classifyByCoverage({5, 5, 5, 5}, 0.5);
  EXPECT_EQ(C, (std::vector<Temperature>{Temperature::Hot, Temperature::Hot,
                                         Temperature::Warm, Temperature::Warm}));
}

TEST(C3, CalleeFollowsItsHottestCaller) {
  // main calls a (hot) and c; a calls b. C3 appends b after a, a after main.
  CallGraph G = makeGraph({{"c", 64, 10},
                           {"b", 64, 500},
                           {"main", 64, 100},
                           {"a", 64, 800}},
                          {{2, 3, 100}, {3, 1, 90}, {2, 0, 5}});
  EXPECT_EQ(names(G, orderC3(G, all(G))),
            (Names{"main", "a", "b", "c"}));
}

TEST(C3, ClusterLimitStopsMerging) {
  CallGraph G = makeGraph({{"main", 3000, 100}, {"a", 3000, 800}},
                          {{0, 1, 100}});
  // Together 6000 bytes > a 4 KB limit: separate clusters by density.
  EXPECT_EQ(names(G, orderC3(G, all(G), 4096)), (Names{"a", "main"}));
  EXPECT_EQ(names(G, orderC3(G, all(G))), (Names{"main", "a"}));
}

TEST(C3, UnlikelyArcDoesNotMerge) {
  // b is called 100 times from x, once from main: main's arc is unlikely.
  CallGraph G = makeGraph({{"main", 64, 1000}, {"x", 64, 10}, {"b", 64, 50}},
                          {{0, 2, 1}, {1, 2, 100}});
  auto Order = names(G, orderC3(G, all(G)));
  // b joins x (its hottest caller), not main.
  auto X = std::find(Order.begin(), Order.end(), "x");
  ASSERT_NE(X, Order.end());
  ASSERT_NE(X + 1, Order.end());
  EXPECT_EQ(*(X + 1), "b");
}

TEST(PettisHansen, HeaviestEdgesFirstAndOrientation) {
  // Edges: a-b 100, c-d 90, b-c 50. PH merges [a b], [c d], then joins
  // them so b and c are adjacent: a b c d.
  CallGraph G = makeGraph({{"a", 16, 10},
                           {"b", 16, 10},
                           {"c", 16, 10},
                           {"d", 16, 10}},
                          {{0, 1, 100}, {2, 3, 90}, {1, 2, 50}});
  EXPECT_EQ(names(G, orderPettisHansen(G, all(G))),
            (Names{"a", "b", "c", "d"}));
  // b-d instead of b-c: d must end up next to b: a b d c.
  CallGraph H = makeGraph({{"a", 16, 10},
                           {"b", 16, 10},
                           {"c", 16, 10},
                           {"d", 16, 10}},
                          {{0, 1, 100}, {2, 3, 90}, {1, 3, 50}});
  EXPECT_EQ(names(H, orderPettisHansen(H, all(H))),
            (Names{"a", "b", "d", "c"}));
}

TEST(PettisHansen, UnconnectedByDensity) {
  CallGraph G = makeGraph({{"x", 100, 10}, {"y", 10, 10}, {"z", 10, 1}}, {});
  EXPECT_EQ(names(G, orderPettisHansen(G, all(G))), (Names{"y", "x", "z"}));
}

TEST(Order, EveryAlgorithmReturnsAPermutationOfTheHotSet) {
  CallGraph G = makeGraph({{"a", 40, 10},
                           {"b", 80, 300},
                           {"c", 20, 5},
                           {"d", 60, 900},
                           {"e", 30, 0}},
                          {{0, 1, 50}, {1, 3, 70}, {3, 2, 5}, {0, 4, 1}});
  std::vector<uint32_t> Hot = {0, 1, 2, 3};
  for (auto A : {OrderAlgorithm::C3, OrderAlgorithm::PettisHansen,
                 OrderAlgorithm::CDSort, OrderAlgorithm::ExtTsp,
                 OrderAlgorithm::None}) {
    auto O = orderFunctions(A, G, Hot);
    auto Sorted = O;
    std::sort(Sorted.begin(), Sorted.end());
    EXPECT_EQ(Sorted, Hot) << orderAlgorithmName(A).str();
    EXPECT_EQ(O, orderFunctions(A, G, Hot)) << "deterministic";
  }
  EXPECT_EQ(parseOrderAlgorithm("ph"), OrderAlgorithm::PettisHansen);
  EXPECT_FALSE(parseOrderAlgorithm("hfsort2"));
}

SymbolInfo dataSym(const char *Name, uint64_t Addr, uint64_t Size) {
  SymbolInfo S;
  S.Name = Name;
  S.Addr = Addr;
  S.Size = Size;
  return S;
}

SectionInfo section(const char *Name, uint64_t Addr, uint64_t Size,
                    bool Write, bool BSS = false) {
  SectionInfo S;
  S.Name = Name;
  S.Addr = Addr;
  S.Size = Size;
  S.IsAlloc = true;
  S.IsWrite = Write;
  S.IsBSS = BSS;
  return S;
}

TEST(HotData, WeightsKindsAndWrites) {
  std::vector<SectionInfo> Secs = {section(".rodata", 0x1000, 0x100, false),
                                   section(".data.rel.ro", 0x2000, 0x100, true),
                                   section(".data", 0x3000, 0x100, true),
                                   section(".bss", 0x4000, 0x100, true, true)};
  std::vector<SymbolInfo> Syms = {
      dataSym("table", 0x1000, 0x40), dataSym("vtable", 0x2000, 0x10),
      dataSym("counts", 0x3000, 0x20), dataSym("flags", 0x3020, 0x8),
      dataSym("buf", 0x4000, 0x80)};
  std::vector<DataReference> Refs = {
      {0x1008, 500, false},  // table[1]
      {0x1010, 300, false},  // table[2]
      {0x2000, 50, false},   // relro: not moved
      {0x3004, 200, false},  // counts, load
      {0x3004, 100, true},   // counts, store
      {0x3020, 900, false},  // flags
      {0x4040, 10, true},    // buf
      {0x5000, 7, false}};   // no symbol (GOT, literal)
  QualityReport Q;
  auto D = rankHotData(Syms, Secs, Refs, Q);
  ASSERT_EQ(D.size(), 4u);
  EXPECT_EQ(D[0].Name, "flags");
  EXPECT_EQ(D[0].Weight, 900u);
  EXPECT_EQ(D[1].Name, "table");
  EXPECT_EQ(D[1].Weight, 800u);
  EXPECT_EQ(D[1].Kind, DataKind::ROData);
  EXPECT_EQ(D[2].Name, "counts");
  EXPECT_EQ(D[2].Weight, 300u);
  EXPECT_TRUE(D[2].Written);
  EXPECT_EQ(D[3].Name, "buf");
  EXPECT_EQ(D[3].Kind, DataKind::BSS);
  EXPECT_EQ(Q.get("data references have no data symbol (GOT, literals)"), 1u);
  EXPECT_EQ(Q.counts().size(), 2u);
}

TEST(Planner, PlanPutsReadMostlyBeforeWrittenAndListsCold) {
  CallGraph G = makeGraph({{"main", 64, 1000}, {"f", 64, 500}, {"dead", 64, 0}},
                          {{0, 1, 10}});
  std::vector<HotDatum> Data(3);
  Data[0].Name = "w";
  Data[0].Weight = 100;
  Data[0].Written = true;
  Data[1].Name = "r";
  Data[1].Weight = 50;
  Data[2].Name = "rare";
  Data[2].Weight = 1;
  PlannerOptions O;
  O.DataCoverage = 0.98;
  auto LP = makeLayoutPlan(G, Data, O);
  ASSERT_TRUE(bool(LP)) << llvm::toString(LP.takeError());
  EXPECT_EQ(names(LP->Graph, LP->HotOrder), (Names{"main", "f"}));
  ASSERT_EQ(LP->HotData.size(), 2u);
  EXPECT_EQ(LP->HotData[0].Name, "r");
  EXPECT_EQ(LP->HotData[1].Name, "w");
  ASSERT_EQ(LP->File.Functions.size(), 3u);
  EXPECT_EQ(LP->File.Functions[2].Name, "dead");
  EXPECT_EQ(LP->File.Functions[2].Class, Temperature::Cold);
  EXPECT_EQ(LP->File.Globals[1].Written, true);

  std::string Script;
  llvm::raw_string_ostream OS(Script);
  writeLinkerScript(*LP, ScriptFlavor::LLD, OS);
  EXPECT_NE(Script.find("DEFINED(__keel_code_pad) ? __keel_code_pad : 0"),
            std::string::npos);
  EXPECT_LT(Script.find("*(.text.main "), Script.find("*(.text.f "));
  EXPECT_LT(Script.find(".data.r "), Script.find(".data.w "));
}

TEST(Planner, CodePadBecomesTheScriptsDefault) {
  CallGraph G = makeGraph({{"main", 64, 1000}, {"f", 64, 500}}, {{0, 1, 10}});
  PlannerOptions O;
  O.CodePad = 64;
  auto LP = makeLayoutPlan(G, {}, O);
  ASSERT_TRUE(bool(LP)) << llvm::toString(LP.takeError());
  EXPECT_EQ(LP->File.CodePad, 64u);
  for (ScriptFlavor F : {ScriptFlavor::LLD, ScriptFlavor::GNU}) {
    std::string Script;
    llvm::raw_string_ostream OS(Script);
    writeLinkerScript(*LP, F, OS);
    // The baked default, still overridable by --defsym; the data pad stays 0.
    EXPECT_NE(Script.find("PROVIDE_HIDDEN(__keel_code_pad = 64);"),
              std::string::npos);
    EXPECT_NE(Script.find("DEFINED(__keel_code_pad) ? __keel_code_pad : 64"),
              std::string::npos);
    EXPECT_NE(Script.find("PROVIDE_HIDDEN(__keel_data_pad = 0);"),
              std::string::npos);
  }
}

TEST(Planner, NothingExecutedIsAnError) {
  CallGraph G = makeGraph({{"main", 64, 0}}, {});
  auto LP = makeLayoutPlan(G, {}, PlannerOptions());
  ASSERT_FALSE(bool(LP));
  EXPECT_NE(llvm::toString(LP.takeError()).find("nothing to plan"),
            std::string::npos);
}

TEST(Emit, ScriptSafeNames) {
  EXPECT_TRUE(isScriptSafeName("_ZN3foo3barEv"));
  EXPECT_TRUE(isScriptSafeName("helper.cold"));
  EXPECT_FALSE(isScriptSafeName("operator*"));
  EXPECT_FALSE(isScriptSafeName(""));
}

} // namespace
