#include "Options.h"
#include "PlanIndex.h"

#include "llvm/Support/CommandLine.h"
#include "gtest/gtest.h"

using namespace keel;
using namespace keel::layoutopt;
using namespace llvm;

TEST(LayoutOpt, PlanNameDropsThinLTOPromotionSuffix) {
  EXPECT_EQ(planName("helper.llvm.1234567"), "helper");
  EXPECT_EQ(planName("helper"), "helper");
  // Other dots are part of the name (clang's function-local statics).
  EXPECT_EQ(planName("f.counter"), "f.counter");
}

TEST(LayoutOpt, FileMatchesOnPathComponents) {
  EXPECT_TRUE(fileMatches("a.c", "a.c"));
  EXPECT_TRUE(fileMatches("a.c", "./a.c"));
  EXPECT_TRUE(fileMatches("util.c", "src/util.c"));
  EXPECT_TRUE(fileMatches("src/util.c", "/abs/proj/src/util.c"));
  EXPECT_TRUE(fileMatches("/abs/proj/src/util.c", "src/util.c"));
  EXPECT_FALSE(fileMatches("til.c", "src/util.c")); // not at a '/'
  EXPECT_FALSE(fileMatches("b.c", "a.c"));
  EXPECT_FALSE(fileMatches("", "a.c"));
}

TEST(LayoutOpt, RegionHeadsAreLowestOrderPerKind) {
  Plan P;
  P.Functions.push_back({"late", "", Temperature::Hot, 5, 0, 0});
  P.Functions.push_back({"cold_first", "", Temperature::Cold, 0, 0, 0});
  P.Functions.push_back({"early", "", Temperature::Hot, 1, 0, 0});
  P.Functions.push_back({"tie", "", Temperature::Hot, 1, 0, 0});
  P.Globals.push_back({"d1", "", DataKind::Data, 3, 0, false});
  P.Globals.push_back({"b0", "", DataKind::BSS, 9, 0, false});
  P.Globals.push_back({"d0", "", DataKind::Data, 2, 0, false});
  P.Globals.push_back({"s", "a.c", DataKind::Data, 7, 0, false});
  P.Globals.push_back({"s", "b.c", DataKind::Data, 8, 0, false});
  auto I = indexPlan(P);
  ASSERT_TRUE(I->TextRegionHead.has_value());
  EXPECT_EQ(*I->TextRegionHead, 2u); // "early": cold ones never head, ties by position
  EXPECT_EQ(I->DataRegionHead[unsigned(DataKind::Data)], std::optional<unsigned>(2));
  EXPECT_EQ(I->DataRegionHead[unsigned(DataKind::BSS)], std::optional<unsigned>(1));
  EXPECT_FALSE(I->DataRegionHead[unsigned(DataKind::ROData)].has_value());
  ASSERT_EQ(I->Globals.lookup("s").size(), 2u); // locals of two files
}

TEST(LayoutOpt, SettingsFromEnvironment) {
  auto S = resolveSettings(StringRef("-layout-plan='my plan.yaml' --layout-function-align=32 "
                                     "-layout-summary -layout-data-region-align=64"));
  ASSERT_TRUE(bool(S)) << toString(S.takeError());
  EXPECT_EQ(S->PlanPath, "my plan.yaml");
  EXPECT_EQ(S->FunctionAlign, std::optional<uint64_t>(32));
  EXPECT_EQ(S->HotDataAlign, std::optional<uint64_t>(64));
  EXPECT_FALSE(S->HotTextAlign.has_value());
  EXPECT_TRUE(S->Summary);

  auto None = resolveSettings(std::nullopt);
  ASSERT_TRUE(bool(None));
  EXPECT_TRUE(None->PlanPath.empty());
  EXPECT_FALSE(None->FunctionAlign.has_value());
}

TEST(LayoutOpt, BadEnvironmentSettingsNameTheVariable) {
  for (const char *Bad : {"-layout-function-align=48", "-layout-function-align=x",
                          "-layout-plan", "-layout-summary=maybe", "-bogus", "plan.yaml",
                          "-layout-text-region-align=0"}) {
    auto S = resolveSettings(StringRef(Bad));
    ASSERT_FALSE(bool(S)) << Bad;
    EXPECT_NE(toString(S.takeError()).find("KEEL_LAYOUT_OPTS"), std::string::npos) << Bad;
  }
}

TEST(LayoutOpt, CommandLineWinsOverEnvironment) {
  const char *Argv[] = {"test", "-layout-function-align=16"};
  ASSERT_TRUE(cl::ParseCommandLineOptions(2, Argv, "", &errs()));
  auto S = resolveSettings(StringRef("-layout-function-align=32 -layout-text-region-align=128"));
  ASSERT_TRUE(bool(S)) << toString(S.takeError());
  EXPECT_EQ(S->FunctionAlign, std::optional<uint64_t>(16));
  EXPECT_EQ(S->HotTextAlign, std::optional<uint64_t>(128));
}
