//===- TimelineTest.cpp - Ono et al.'s time assignment methods ------------===//
#include "keel/LBR/Timeline.h"

#include "gtest/gtest.h"

using namespace keel;

namespace {

// Seed 001's example: F1, F2, F3 called in turn with whole-run shares
// 10% : 30% : 10%; the sample lands in G (share 50%), the records' from
// sides are F3 (newest), F2, F1.
Window example() {
  Window W;
  W.Duration = 1000;
  W.Sampled = "G";
  W.Froms = {"F3", "F2", "F1"};
  return W;
}
const std::map<std::string, double> Share = {
    {"F1", 0.1}, {"F2", 0.3}, {"F3", 0.1}, {"G", 0.5}};

double at(const Window &W, TimeMethod M, const std::string &F) {
  auto It = W.Time[unsigned(M)].find(F);
  return It == W.Time[unsigned(M)].end() ? 0 : It->second;
}

TEST(Timeline, UniformShowsTheFunctionsEqual) {
  Window W = example();
  assignWindow(W, {}, Share, false);
  for (const char *F : {"F1", "F2", "F3", "G"})
    EXPECT_DOUBLE_EQ(at(W, TimeMethod::Uniform, F), 250) << F;
  EXPECT_DOUBLE_EQ(at(W, TimeMethod::IP, "G"), 1000);
}

TEST(Timeline, ProfileShareGivesTheRestToTheSampledFunction) {
  Window W = example();
  assignWindow(W, {}, Share, false);
  EXPECT_DOUBLE_EQ(at(W, TimeMethod::Profile, "F1"), 100);
  EXPECT_DOUBLE_EQ(at(W, TimeMethod::Profile, "F2"), 300);
  EXPECT_DOUBLE_EQ(at(W, TimeMethod::Profile, "F3"), 100);
  EXPECT_DOUBLE_EQ(at(W, TimeMethod::Profile, "G"), 500);
}

TEST(Timeline, SampleShareIsProportionalAmongThePresent) {
  Window W = example();
  W.Sampled = "F2"; // only F1, F2, F3 present: 1:3:1 of the interval
  assignWindow(W, {}, Share, false);
  EXPECT_DOUBLE_EQ(at(W, TimeMethod::Sample, "F1"), 200);
  EXPECT_DOUBLE_EQ(at(W, TimeMethod::Sample, "F2"), 600);
  EXPECT_DOUBLE_EQ(at(W, TimeMethod::Sample, "F3"), 200);
  EXPECT_DOUBLE_EQ(at(W, TimeMethod::Sample, "G"), 0);
}

TEST(Timeline, ProfileShareFitsTheIntervalWhenSharesExceedIt) {
  Window W = example();
  std::map<std::string, double> Big = {{"F1", 1}, {"F2", 1}, {"F3", 2}};
  assignWindow(W, {}, Big, false);
  EXPECT_DOUBLE_EQ(at(W, TimeMethod::Profile, "F3"), 500);
  EXPECT_DOUBLE_EQ(at(W, TimeMethod::Profile, "G"), 0);
}

TEST(Timeline, HardwareCyclesGoToTheCodeBeforeEachBranch) {
  Window W = example();
  assignWindow(W, {100, 300, 50}, Share, true);
  EXPECT_DOUBLE_EQ(at(W, TimeMethod::HW, "F3"), 100);
  EXPECT_DOUBLE_EQ(at(W, TimeMethod::HW, "F2"), 300);
  EXPECT_DOUBLE_EQ(at(W, TimeMethod::HW, "F1"), 50);
  EXPECT_DOUBLE_EQ(at(W, TimeMethod::HW, "G"), 550);
  // Records older than the interval: scaled into it, nothing left over.
  Window O = example();
  assignWindow(O, {1000, 500, 500}, Share, true);
  EXPECT_DOUBLE_EQ(at(O, TimeMethod::HW, "F3"), 500);
  EXPECT_DOUBLE_EQ(at(O, TimeMethod::HW, "G"), 0);
}

TEST(Timeline, SegmentsRunOldestFirstAndCoverTheWindow) {
  Window W = example();
  W.Start = 5000;
  assignWindow(W, {}, Share, false);
  const auto &S = W.Segments[unsigned(TimeMethod::Uniform)];
  ASSERT_EQ(S.size(), 4u);
  EXPECT_EQ(S[0].Function, "F1");
  EXPECT_EQ(S[3].Function, "G");
  EXPECT_DOUBLE_EQ(S[0].Start, 5000);
  EXPECT_DOUBLE_EQ(S[3].Start + S[3].Duration, 6000);
}

/// The fill of the first segment drawn for \p F in \p SVG.
std::string fillOf(const std::string &SVG, const std::string &F) {
  size_t At = SVG.find("<title>" + F + " window");
  if (At == std::string::npos)
    return "";
  size_t Fill = SVG.rfind("fill=\"", At);
  return SVG.substr(Fill + 6, SVG.find('"', Fill + 6) - Fill - 6);
}

TEST(Timeline, AFunctionHasOneColourInEveryMethod) {
  // IP gives the whole window to G (G ranks first); Profile gives F2 more
  // than F1 and F3: the rows differ between the methods, the colours not.
  Timeline T;
  T.Unit = "cycles";
  T.Windows.push_back(example());
  assignWindow(T.Windows[0], {}, Share, false);
  std::string IP, Profile;
  llvm::raw_string_ostream IPS(IP), PS(Profile);
  writeTimelineSVG(T, TimeMethod::IP, 0, 10, IPS);
  writeTimelineSVG(T, TimeMethod::Profile, 0, 10, PS);
  EXPECT_EQ(fillOf(IP, "G"), functionColour("G"));
  EXPECT_EQ(fillOf(Profile, "G"), functionColour("G"));
  EXPECT_EQ(fillOf(Profile, "F2"), functionColour("F2"));
  EXPECT_NE(functionColour("F1"), functionColour("F2"));
  // Fixed across runs and platforms (FNV-1a of the name).
  EXPECT_EQ(functionColour("main"), functionColour("main"));
  EXPECT_EQ(functionColour("main").rfind("hsl(", 0), 0u);
  EXPECT_NE(Profile.find("<g class=\"timeline-legend\">"), std::string::npos);
}

TEST(Timeline, MethodNames) {
  EXPECT_EQ(parseMethod("3"), TimeMethod::Sample);
  EXPECT_EQ(parseMethod("uniform"), TimeMethod::Uniform);
  EXPECT_FALSE(parseMethod("4").has_value());
}

} // namespace
