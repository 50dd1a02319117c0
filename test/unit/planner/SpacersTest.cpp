//===- SpacersTest.cpp - packing the hot text into W-byte packs -----------===//
#include "keel/Planner/Spacers.h"
#include "keel/Planner/Emit.h"

#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace keel;
using namespace llvm;

namespace {

std::vector<PackItem> items(std::initializer_list<uint64_t> Sizes,
                            uint64_t Align = 16) {
  std::vector<PackItem> V;
  for (uint64_t S : Sizes)
    V.push_back({S, Align});
  return V;
}

std::vector<size_t> spacerPositions(const Packing &P) {
  std::vector<size_t> Out;
  for (size_t I = 0; I < P.SpacerBefore.size(); ++I)
    if (P.SpacerBefore[I])
      Out.push_back(I);
  return Out;
}

} // namespace

TEST(Spacers, OverflowStartsTheNextPack) {
  // 0..1000, 1008..2008 (aligned to 16), then 2500 would end at 4516 > 4096.
  Packing P = packIntoWindows(items({1000, 1000, 2500, 100}), 4096);
  EXPECT_EQ(spacerPositions(P), std::vector<size_t>({2}));
  EXPECT_EQ(P.Spacers, 1u);
  EXPECT_EQ(P.PadBytes, 4096u - 2016u);
  EXPECT_EQ(P.End, 4096u + 2500 + 12 + 100); // 6596 aligned to 6608, +100
}

TEST(Spacers, AlignmentCountsBeforeTheBoundaryTest) {
  // 4000 bytes, then 90 bytes: at 4000 it would end at 4090 and fit, but
  // its 64-byte alignment moves it to 4032, where it would end at 4122.
  Packing P = packIntoWindows({{4000, 16}, {90, 64}}, 4096);
  EXPECT_EQ(spacerPositions(P), std::vector<size_t>({1}));
  EXPECT_EQ(P.PadBytes, 64u);
  EXPECT_EQ(P.End, 4096u + 90);
  // With 16-byte alignment it fits.
  EXPECT_EQ(packIntoWindows(items({4000, 90}), 4096).Spacers, 0u);
}

TEST(Spacers, FunctionExactlyOnePack) {
  // Exactly W fits a pack: aligned when it does not start on a boundary,
  // and then the next function starts on the next boundary with no spacer.
  Packing P = packIntoWindows(items({16, 4096, 16}), 4096);
  EXPECT_EQ(spacerPositions(P), std::vector<size_t>({1}));
  EXPECT_EQ(P.PadBytes, 4096u - 16);
  EXPECT_EQ(P.End, 2 * 4096u + 16);
  // At the start of a pack it needs nothing.
  EXPECT_EQ(packIntoWindows(items({4096, 4096}), 4096).Spacers, 0u);
}

TEST(Spacers, BiggerThanAPackIsNotAligned) {
  // 5000 > W crosses a boundary wherever it goes: no spacer for it; the
  // function after it is packed from where it ends (5016 -> 9016 crosses
  // 8192, so it gets one).
  Packing P = packIntoWindows(items({16, 5000, 4000}), 4096);
  EXPECT_EQ(spacerPositions(P), std::vector<size_t>({2}));
  EXPECT_EQ(P.PadBytes, 8192u - 5024);
}

TEST(Spacers, ZeroOrUnknownSizeNeverGetsASpacer) {
  Packing P = packIntoWindows(items({4090, 0, 0, 10}), 4096);
  // 0-size items sit at 4096 (aligned), the 10-byte one at 4096 too.
  EXPECT_EQ(P.Spacers, 0u);
  EXPECT_EQ(P.End, 4106u);
  // Alignment 0 means 1 (no rounding).
  Packing Q = packIntoWindows({{3, 0}, {5, 0}}, 64);
  EXPECT_EQ(Q.End, 8u);
}

TEST(Spacers, WindowZeroIsOff) {
  Packing P = packIntoWindows(items({1000, 5000, 3000, 4000}), 0);
  EXPECT_EQ(P.Spacers, 0u);
  EXPECT_EQ(P.PadBytes, 0u);
  EXPECT_EQ(P.SpacerBefore, std::vector<bool>(4, false));
  EXPECT_EQ(P.End, 1008u + 5008 + 3008 + 4000);
}

TEST(Spacers, EveryPackStaysWithinItsWindow) {
  // Invariant over a mix: no item of size <= W crosses a W boundary.
  std::vector<PackItem> V;
  for (uint64_t I = 0; I < 200; ++I)
    V.push_back({(I * 7919) % 1500 + 1, I % 3 ? 16u : 64u});
  const uint64_t W = 1024;
  Packing P = packIntoWindows(V, W);
  uint64_t Off = 0;
  for (size_t I = 0; I < V.size(); ++I) {
    Off = (Off + V[I].Align - 1) / V[I].Align * V[I].Align;
    if (P.SpacerBefore[I])
      Off = (Off + W - 1) / W * W;
    if (V[I].Size <= W)
      EXPECT_EQ(Off / W, (Off + V[I].Size - 1) / W) << "item " << I;
    Off += V[I].Size;
  }
  EXPECT_EQ(Off, P.End);
  EXPECT_GT(P.Spacers, 0u);
}

TEST(Spacers, SectionSizesFile) {
  auto S = parseSectionSizes("# header\n\nf 100\n  g\t 7\nh.cold 0\n", "s.txt");
  ASSERT_TRUE(bool(S)) << toString(S.takeError());
  EXPECT_EQ(S->size(), 3u);
  EXPECT_EQ(S->at("f"), 100u);
  EXPECT_EQ(S->at("h.cold"), 0u);
  for (const char *Bad : {"f\n", "f x\n", "f 1 2\n", "f -3\n"}) {
    auto E = parseSectionSizes(std::string("# h\n") + Bad, "s.txt");
    ASSERT_FALSE(bool(E)) << Bad;
    EXPECT_NE(toString(E.takeError()).find("s.txt:2:"), std::string::npos)
        << Bad;
  }
  auto Dup = parseSectionSizes("f 1\nf 2\n", "d.txt");
  ASSERT_FALSE(bool(Dup));
  EXPECT_NE(toString(Dup.takeError()).find("d.txt:2: 'f' is listed twice"),
            std::string::npos);
}

TEST(Spacers, PlanGetsSpacersInItsScript) {
  // Three executed functions of 3000 bytes: the second and third each
  // start a pack; an override shrinks the second so the third fits.
  CallGraph G;
  for (const char *N : {"a", "b", "c"})
    G.Nodes.push_back({N, "", ".text", 0, 3000, false, 100, 0});
  auto LP = makeLayoutPlan(G, {}, PlannerOptions());
  ASSERT_TRUE(bool(LP)) << toString(LP.takeError());
  SpacerOptions O;
  O.Window = 4096;
  EXPECT_EQ(addSpacers(*LP, O), 0u);
  EXPECT_EQ(LP->SpacerCount, 2u);
  EXPECT_EQ(LP->File.Spacers, 4096u);
  std::string Script;
  raw_string_ostream OS(Script);
  writeLinkerScript(*LP, ScriptFlavor::GNU, OS);
  size_t N = 0;
  for (size_t Pos = 0; (Pos = Script.find(
                            ". = __keel_hot_text_start + ALIGN(. - "
                            "__keel_hot_text_start, 4096);",
                            Pos)) != std::string::npos;
       ++Pos)
    ++N;
  EXPECT_EQ(N, 2u) << Script;

  O.Sizes = {{LP->Graph.Nodes[LP->TextOrder[1]].Name, 500}, {"zz", 1}};
  EXPECT_EQ(addSpacers(*LP, O), 1u);
  EXPECT_EQ(LP->SpacerCount, 1u);
  EXPECT_TRUE(LP->SpacerBefore[1] == false && LP->SpacerBefore[2] == true);
}

TEST(Spacers, EndsPackStartsTheNextItemOnABoundary) {
  // 100 bytes ending its pack: the next item (at 112 after alignment) gets
  // a spacer to 256 although it fits; an item after it does not.
  std::vector<PackItem> V = items({100, 50, 50});
  V[0].EndsPack = true;
  Packing P = packIntoWindows(V, 256);
  EXPECT_EQ(spacerPositions(P), std::vector<size_t>({1}));
  EXPECT_EQ(P.PackEnds, 1u);
  EXPECT_EQ(P.PadBytes, 256u - 112);
  EXPECT_EQ(P.End, 256u + 64 + 50);
  // Ending exactly on a boundary needs no spacer, nor does the last item.
  std::vector<PackItem> W = items({256, 10});
  W[0].EndsPack = W[1].EndsPack = true;
  Packing Q = packIntoWindows(W, 256);
  EXPECT_EQ(Q.Spacers, 0u);
  EXPECT_EQ(Q.PackEnds, 0u);
  // A pack end after an item bigger than W (an interpreter loop) too.
  std::vector<PackItem> X = items({16, 5000, 10});
  X[1].EndsPack = true;
  Packing R = packIntoWindows(X, 4096);
  EXPECT_EQ(spacerPositions(R), std::vector<size_t>({2}));
  EXPECT_EQ(R.End, 8192u + 10);
  // Window 0: no spacers whatever EndsPack says.
  EXPECT_EQ(packIntoWindows(V, 0).Spacers, 0u);
}

TEST(Spacers, PackEndShareSelectsTheDominantFunctions) {
  // Weights 70, 20, 10 (percent), kept in address order (a, b, c): a
  // threshold of 50 ends a's pack (b gets a spacer), 15 a's and b's (b and
  // c do), 0 none.
  CallGraph G;
  G.Nodes.push_back({"a", "", ".text", 0, 1000, false, 700, 0});
  G.Nodes.push_back({"b", "", ".text", 0, 1000, false, 200, 0});
  G.Nodes.push_back({"c", "", ".text", 0, 1000, false, 100, 0});
  PlannerOptions PO;
  PO.Order = OrderAlgorithm::None;
  auto LP = makeLayoutPlan(G, {}, PO);
  ASSERT_TRUE(bool(LP)) << toString(LP.takeError());
  std::vector<std::string> Names;
  for (uint32_t N : LP->TextOrder)
    Names.push_back(LP->Graph.Nodes[N].Name);
  ASSERT_EQ(Names, std::vector<std::string>({"a", "b", "c"}));
  auto Spacers = [&] {
    return std::vector<bool>(LP->SpacerBefore.begin(), LP->SpacerBefore.end());
  };
  SpacerOptions O;
  O.Window = 4096;
  addSpacers(*LP, O);
  EXPECT_EQ(LP->SpacerCount, 0u);
  EXPECT_EQ(Spacers(), std::vector<bool>({false, false, false}));
  O.PackEndShare = 50;
  addSpacers(*LP, O);
  EXPECT_EQ(LP->PackEndCount, 1u);
  EXPECT_EQ(Spacers(), std::vector<bool>({false, true, false}));
  O.PackEndShare = 15;
  addSpacers(*LP, O);
  EXPECT_EQ(LP->PackEndCount, 2u);
  EXPECT_EQ(LP->SpacerCount, 2u);
  EXPECT_EQ(Spacers(), std::vector<bool>({false, true, true}));
}

TEST(Spacers, MaxPadLeavesOutExpensiveSpacers) {
  // As OverflowStartsTheNextPack: the spacer before the 2500-byte item
  // would add 2080 bytes. Capped at 2080 it stays, and so does the one
  // before the 3000-byte item (at 6608: 1584 bytes to 8192); at 2079 the
  // first is left out and the item straddles 4096; the 3000-byte item
  // after it (at 4528) then needs 8192 - 4528 = 3664 bytes: left out too.
  std::vector<PackItem> V = items({1000, 1000, 2500, 3000});
  Packing P = packIntoWindows(V, 4096, 2080);
  EXPECT_EQ(spacerPositions(P), std::vector<size_t>({2, 3}));
  P = packIntoWindows(V, 4096, 2079);
  EXPECT_TRUE(spacerPositions(P).empty());
  EXPECT_EQ(P.PadBytes, 0u);
  EXPECT_EQ(P.End, 4528u + 3000);
  // A cheap spacer is kept under the cap: 100 bytes at 4000 cross 4096.
  Packing Q = packIntoWindows(items({4000, 100}), 4096, 512);
  EXPECT_EQ(spacerPositions(Q), std::vector<size_t>({1}));
  EXPECT_EQ(Q.PadBytes, 96u);
  // Pack ends are not capped.
  std::vector<PackItem> W = items({100, 50});
  W[0].EndsPack = true;
  Packing R = packIntoWindows(W, 4096, 64);
  EXPECT_EQ(spacerPositions(R), std::vector<size_t>({1}));
  EXPECT_EQ(R.PadBytes, 4096u - 112);
}

TEST(Spacers, GivenSizesOverrideTheEstimates) {
  // a, b, c (3000-byte symbols) in this order, estimated at 1000 bytes
  // each: 0, 1008 and 2016 fit one pack. A given 3000 for b (its linked
  // size) puts b at 1008..4008, so c (at 4016) would cross 4096 and gets a
  // spacer. The order never changes; a given size naming no function of
  // the hot text is not counted.
  CallGraph G;
  for (const char *N : {"a", "b", "c"})
    G.Nodes.push_back({N, "", ".text", 0, 3000, false, 100, 0});
  PlannerOptions PO;
  PO.Order = OrderAlgorithm::None;
  auto LP = makeLayoutPlan(G, {}, PO);
  ASSERT_TRUE(bool(LP)) << toString(LP.takeError());
  const std::vector<uint32_t> Order = LP->TextOrder;
  SpacerOptions O;
  O.Window = 4096;
  O.Sizes = {{"a", 1000}, {"b", 1000}, {"c", 1000}};
  EXPECT_EQ(addSpacers(*LP, O), 3u);
  EXPECT_EQ(LP->SpacerCount, 0u);
  EXPECT_EQ(LP->PackedTextBytes, 2016u + 1000);
  EXPECT_EQ(LP->packedFrom(PackSizeSource::Estimated), 3u);

  O.GivenSizes = {{"b", 3000}, {"elsewhere", 5}};
  EXPECT_EQ(addSpacers(*LP, O), 3u);
  EXPECT_EQ(LP->TextOrder, Order);
  EXPECT_EQ(std::vector<bool>(LP->SpacerBefore.begin(), LP->SpacerBefore.end()),
            std::vector<bool>({false, false, true}));
  EXPECT_EQ(LP->SpacerCount, 1u);
  EXPECT_EQ(LP->SpacerPadBytes, 4096u - 4016);
  EXPECT_EQ(LP->PackedTextBytes, 4096u + 1000);
  ASSERT_EQ(LP->Packed.size(), 3u);
  std::vector<uint64_t> Offsets, Sizes;
  for (const PackedFunction &F : LP->Packed) {
    Offsets.push_back(F.Offset);
    Sizes.push_back(F.Size);
  }
  EXPECT_EQ(Offsets, std::vector<uint64_t>({0, 1008, 4096}));
  EXPECT_EQ(Sizes, std::vector<uint64_t>({1000, 3000, 1000}));
  EXPECT_EQ(LP->Packed[1].Source, PackSizeSource::Given);
  EXPECT_EQ(LP->packedFrom(PackSizeSource::Given), 1u);
  EXPECT_EQ(LP->packedFrom(PackSizeSource::Estimated), 2u);
  EXPECT_EQ(packedSizeSources(*LP), "1 given, 2 estimated");

  // A given size beats the symbol's too (no estimate): c at 100 bytes.
  SpacerOptions S;
  S.Window = 4096;
  S.GivenSizes = {{"c", 100}};
  addSpacers(*LP, S);
  EXPECT_EQ(LP->Packed[2].Size, 100u);
  EXPECT_EQ(packedSizeSources(*LP), "1 given, 2 symbol");
}

TEST(Spacers, SummaryShowsThePackedSizesAndTheirSource) {
  CallGraph G;
  for (const char *N : {"a", "b"})
    G.Nodes.push_back({N, "", ".text", 0, 3000, false, 100, 0});
  PlannerOptions PO;
  PO.Order = OrderAlgorithm::None;
  auto LP = makeLayoutPlan(G, {}, PO);
  ASSERT_TRUE(bool(LP)) << toString(LP.takeError());
  SpacerOptions O;
  O.Window = 4096;
  O.Sizes = {{"a", 1000}, {"b", 1000}};
  O.GivenSizes = {{"b", 1200}};
  addSpacers(*LP, O);

  std::string Summary;
  raw_string_ostream SS(Summary);
  printPlanSummary(*LP, SS);
  EXPECT_NE(Summary.find("hot text 2208 bytes (estimated), sizes: 1 given, "
                         "1 estimated\n"),
            std::string::npos)
      << Summary;
  EXPECT_NE(Summary.find(" offset    1008 weight 100 (50.00%) packed 1200 "
                         "given\n"),
            std::string::npos)
      << Summary;

  std::string File;
  raw_string_ostream FS(File);
  writeSpacerSizes(*LP, FS);
  EXPECT_NE(File.find("\na 1000 estimated 0\nb 1200 given 1008\n"),
            std::string::npos)
      << File;
  EXPECT_EQ(File.front(), '#');

  std::string JSON;
  raw_string_ostream JS(JSON);
  printPlanJSON(*LP, JS);
  EXPECT_NE(JSON.find("\"given\": 1,\n"), std::string::npos) << JSON;
  EXPECT_NE(JSON.find("\"estimated\": 1,\n"), std::string::npos) << JSON;
  EXPECT_NE(JSON.find("\"symbol\": 0\n"), std::string::npos) << JSON;
}
