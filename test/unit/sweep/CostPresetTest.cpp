//===- CostPresetTest.cpp - --cost presets, --print-cost, keel-sim output --===//
#include "keel/Sweep/SimBackend.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "gtest/gtest.h"

using namespace keel;
using namespace keel::sweep;
using namespace llvm;

namespace {

std::string errText(Error E) { return toString(std::move(E)); }

TEST(CostPreset, CachegrindIsTheDefaultCost) {
  Expected<CostPreset> P = costPreset("cachegrind");
  ASSERT_TRUE(bool(P));
  EXPECT_EQ(P->Weights, defaultWeights());
  EXPECT_EQ(P->Frontend, "");
  EXPECT_EQ(P->BranchEvents, (std::vector<std::string>{"Bcm", "Bim"}));
  // Ir + 10*I1mr + 10*D1mr + 100*(ILmr+DLmr) + 15*(Bcm+Bim)
  std::map<std::string, double> C = {{"Ir", 1000}, {"I1mr", 2}, {"D1mr", 3},
                                     {"ILmr", 1},  {"DLmr", 1}, {"Bcm", 4},
                                     {"Bim", 2},   {"Dr", 99}};
  EXPECT_DOUBLE_EQ(costOf(C, P->Weights), 1000 + 20 + 30 + 200 + 90);
}

TEST(CostPreset, SkylakeWeighsTheFrontEnd) {
  Expected<CostPreset> P = costPreset("skylake");
  ASSERT_TRUE(bool(P));
  EXPECT_EQ(P->Frontend, "skylake");
  EXPECT_EQ(P->BranchEvents, (std::vector<std::string>{"CondMiss", "IndMiss"}));
  CostWeights W = P->Weights;
  EXPECT_EQ(W["Ir"], 1);
  EXPECT_EQ(W["I1mr"], 10);
  EXPECT_EQ(W["D1mr"], 10);
  EXPECT_EQ(W["ILmr"], 100);
  EXPECT_EQ(W["DLmr"], 100);
  EXPECT_EQ(W["CondMiss"], 16);
  EXPECT_EQ(W["IndMiss"], 16);
  EXPECT_EQ(W["RasMiss"], 16);
  EXPECT_EQ(W["BtbMiss"], 8);
  EXPECT_EQ(W["FeWin"], 0.25);
  EXPECT_EQ(W["FeWinMiss"], 3);
  EXPECT_EQ(W["Taken"], 0.5);
  EXPECT_EQ(W["Alias4K"], 5);
  EXPECT_EQ(W["ItlbMiss"], 9);
  EXPECT_EQ(W["DtlbMiss"], 9);
  EXPECT_EQ(W["TlbWalk"], 30);
  // cachegrind's toy predictor is not in the front-end models' cost.
  EXPECT_EQ(W.count("Bcm"), 0u);
  EXPECT_EQ(W.count("Bim"), 0u);
  // Every weighted event is one keel-sim --frontend prints.
  for (const auto &[E, X] : W)
    EXPECT_TRUE(is_contained(cachegrindEvents(), E) ||
                is_contained(frontendEvents(), E))
        << E;
}

TEST(CostPreset, Zen4) {
  Expected<CostPreset> P = costPreset("zen4");
  ASSERT_TRUE(bool(P));
  EXPECT_EQ(P->Frontend, "zen4");
  EXPECT_EQ(P->Weights["CondMiss"], 13);
  EXPECT_EQ(P->Weights["IndMiss"], 13);
  EXPECT_EQ(P->Weights["ItlbMiss"], 7);
  EXPECT_EQ(P->Weights["DtlbMiss"], 7);
}

TEST(CostPreset, UnknownNameListsTheKnownOnes) {
  Expected<CostPreset> P = costPreset("bogus");
  ASSERT_FALSE(bool(P));
  std::string M = errText(P.takeError());
  EXPECT_NE(M.find("unknown --cost 'bogus'"), std::string::npos) << M;
  EXPECT_NE(M.find("cachegrind, skylake, zen4"), std::string::npos) << M;
}

TEST(CostPreset, WeightsOverrideAPreset) {
  Expected<CostPreset> P = costPreset("skylake");
  ASSERT_TRUE(bool(P));
  Expected<CostWeights> W = parseWeights("BtbMiss=20,Taken=0,Bcm=1", P->Weights);
  ASSERT_TRUE(bool(W));
  EXPECT_EQ((*W)["BtbMiss"], 20);
  EXPECT_EQ(W->count("Taken"), 0u);
  EXPECT_EQ((*W)["Bcm"], 1);
  EXPECT_EQ((*W)["CondMiss"], 16);
}

TEST(CostPreset, PrintCostJSON) {
  Expected<CostPreset> P = costPreset("skylake");
  ASSERT_TRUE(bool(P));
  std::string S = costPresetJSON(*P, P->Weights);
  EXPECT_EQ(S.rfind("{\"cost\":\"skylake\",\"weights\":{\"Ir\":1,\"I1mr\":10,", 0), 0u)
      << S;
  EXPECT_NE(S.find("\"FeWin\":0.25"), std::string::npos) << S;
  EXPECT_NE(S.find("},\"branch_events\":[\"CondMiss\",\"IndMiss\"]}"),
            std::string::npos)
      << S;
  Expected<json::Value> V = json::parse(S);
  ASSERT_TRUE(bool(V));
  EXPECT_EQ(V->getAsObject()->getObject("weights")->size(), P->Weights.size());
  Expected<CostPreset> C = costPreset("cachegrind");
  ASSERT_TRUE(bool(C));
  EXPECT_NE(costPresetJSON(*C, C->Weights).find("\"branch_events\":[\"Bcm\",\"Bim\"]"),
            std::string::npos);
}

TEST(KeelSimOutput, BaseVariantByEventName) {
  const char *Text = "keel-sim 1\n"
                     "geometry 0 I1=32768,8,64 D1=32768,8,64 LL=262144,8,64\n"
                     "variant 0 base unmapped 0\n"
                     "variant 1 v1 unmapped 0\n"
                     "events: Ir I1mr Bcm FeWin Taken\n"
                     "result 0 0 100 2 3 40 5\n"
                     "result 1 0 100 9 9 99 9\n";
  Expected<KeelSimOutput> K = parseKeelSimText(Text, "ks.out");
  ASSERT_TRUE(bool(K));
  ASSERT_EQ(K->Variants.size(), 2u);
  std::map<std::string, double> &C = K->Variants[0].Counters;
  EXPECT_EQ(C["Ir"], 100);
  EXPECT_EQ(C["FeWin"], 40);
  EXPECT_EQ(C["Taken"], 5);
  EXPECT_EQ(K->Variants[1].Counters["FeWin"], 99);
  Expected<KeelSimOutput> Short = parseKeelSimText(
      "keel-sim 1\nvariant 0 base unmapped 0\nevents: Ir I1mr\nresult 0 0 1\n",
      "ks.out");
  ASSERT_FALSE(bool(Short));
  EXPECT_NE(errText(Short.takeError()).find("ks.out:4"), std::string::npos);
  Expected<KeelSimOutput> None = parseKeelSimText("events: Ir\n", "ks.out");
  ASSERT_FALSE(bool(None));
  consumeError(None.takeError());
}

TEST(KeelSimOutput, MalformedLinesAreErrorsNotCrashes) {
  // A line of blanks is skipped; a truncated "fn" line (a run killed while
  // writing) is an error naming its line.
  Expected<KeelSimOutput> Blank = parseKeelSimText(
      "keel-sim 1\n   \nvariant 0 base unmapped 0\nevents: Ir\nresult 0 0 7\n",
      "ks.out");
  ASSERT_TRUE(bool(Blank));
  EXPECT_EQ(Blank->Variants[0].Counters["Ir"], 7);
  for (const char *Fn : {"fn", "fn ", "fn 5"}) {
    std::string Text = std::string("keel-sim 1\nvariant 0 base unmapped 0\n"
                                   "events: Ir\nresult 0 0 7\n") +
                       Fn + "\n";
    Expected<KeelSimOutput> K = parseKeelSimText(Text, "ks.out");
    ASSERT_FALSE(bool(K)) << Fn;
    EXPECT_NE(errText(K.takeError()).find("ks.out:5: bad 'fn' line"),
              std::string::npos)
        << Fn;
  }
}

TEST(KeelSimOutput, Arguments) {
  CacheGeometry G{{4096, 2, 64}, {32768, 8, 64}, {262144, 8, 64}};
  std::vector<std::string> A = keelSimArgs(G, "zen4", "o", "l");
  EXPECT_EQ(A.front(), "--tool=keel-sim");
  EXPECT_TRUE(is_contained(A, "--frontend=zen4"));
  EXPECT_TRUE(is_contained(A, "--I1=4096,2,64"));
  EXPECT_TRUE(is_contained(A, "--keel-sim-out-file=o"));
  EXPECT_TRUE(llvm::none_of(A, [](const std::string &S) {
    return StringRef(S).starts_with("--keel-sim-map-file");
  }));
  // The shared run: the map file too; without a front-end model, no
  // --frontend at all (cachegrind's 13 events).
  std::vector<std::string> M = keelSimArgs(G, "", "o", "l", "m");
  EXPECT_TRUE(is_contained(M, "--keel-sim-map-file=m"));
  EXPECT_TRUE(llvm::none_of(M, [](const std::string &S) {
    return StringRef(S).starts_with("--frontend");
  }));
}

} // namespace
