//===- OverlapTest.cpp - the measured level overlap and model's choice ----===//
//
// `layout-roofline machine` writes "level_overlap" into the machine JSON;
// `model --overlap=auto` reads it back. These tests check the factor's
// definition, the mode threshold, the JSON round trip through a whole
// machine report, backward compatibility (no field: max) and the choice.
//
//===----------------------------------------------------------------------===//
#include "keel/Roofline/Machine.h"
#include "keel/Roofline/Model.h"

#include "llvm/Support/FormatVariadic.h"

#include "gtest/gtest.h"

using namespace keel::roofline;

namespace {

TEST(RooflineOverlap, FactorDefinition) {
  // Perfect overlap: both together take as long as the longer part.
  EXPECT_DOUBLE_EQ(overlapFactor(1.0, 0.5, 1.0), 0.0);
  // No overlap: the times add.
  EXPECT_DOUBLE_EQ(overlapFactor(1.0, 0.5, 1.5), 1.0);
  // Symmetric in the two parts; half the shorter part hidden.
  EXPECT_DOUBLE_EQ(overlapFactor(0.4, 0.8, 1.0), 0.5);
  // Not clamped: slower than the sum is reported as measured.
  EXPECT_DOUBLE_EQ(overlapFactor(0.5, 0.5, 1.25), 1.5);
  // Missing times give 0 (max), never a division by zero.
  EXPECT_EQ(overlapFactor(0, 0.5, 1.0), 0.0);
}

TEST(RooflineOverlap, ModeFromFactor) {
  EXPECT_EQ(modeForOverlapFactor(0.0), Overlap::Max);
  EXPECT_EQ(modeForOverlapFactor(-0.2), Overlap::Max);
  EXPECT_EQ(modeForOverlapFactor(SumOverlapThreshold), Overlap::Max);
  EXPECT_EQ(modeForOverlapFactor(0.51), Overlap::Sum);
  EXPECT_EQ(modeForOverlapFactor(1.14), Overlap::Sum);
}

TEST(RooflineOverlap, MachineReportRoundTrip) {
  MachineReport R;
  R.OneCore = {"this machine, one core", 14, 105, 140, 44};
  R.AllCores = R.OneCore;
  LevelOverlap L;
  L.MemArrays = 1;
  L.L2Arrays = 8;
  L.MemNs = 0.55;
  L.L2Ns = 0.54;
  L.BothNs = 1.17;
  L.Factor = overlapFactor(L.MemNs, L.L2Ns, L.BothNs);
  L.Mode = modeForOverlapFactor(L.Factor);
  R.MeasuredOverlap = L;
  llvm::json::Value V(toJSON(R));
  // Through text, as a file would go.
  std::string Text = llvm::formatv("{0:2}", V).str();
  llvm::Expected<llvm::json::Value> Back = llvm::json::parse(Text);
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  auto P = parseLevelOverlap(*Back, "m.json", Text);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  ASSERT_TRUE(P->has_value());
  const LevelOverlap &Q = **P;
  EXPECT_EQ(Q.Mode, Overlap::Sum);
  EXPECT_TRUE(Q.HasFactor);
  EXPECT_DOUBLE_EQ(Q.Factor, L.Factor);
  EXPECT_DOUBLE_EQ(Q.MemNs, 0.55);
  EXPECT_DOUBLE_EQ(Q.L2Ns, 0.54);
  EXPECT_DOUBLE_EQ(Q.BothNs, 1.17);
  EXPECT_EQ(Q.MemArrays, 1u);
  EXPECT_EQ(Q.L2Arrays, 8u);
  // The ceilings still parse from the same report.
  auto C = parseCeilings(*Back, "one_core", "m.json");
  ASSERT_TRUE(bool(C)) << llvm::toString(C.takeError());
  EXPECT_DOUBLE_EQ(C->Mband, 14);
}

TEST(RooflineOverlap, OldMachineFilesMeanMax) {
  // A report written before the field existed, and hand-written ceilings.
  MachineReport R;
  R.OneCore = {"old", 14, 105, 140, 44};
  R.AllCores = R.OneCore;
  llvm::json::Value Old(toJSON(R));
  ASSERT_EQ(Old.getAsObject()->get("level_overlap"), nullptr);
  auto P = parseLevelOverlap(Old, "old.json");
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  EXPECT_FALSE(P->has_value());
  OverlapChoice C = chooseOverlap(std::nullopt, *P);
  EXPECT_EQ(C.Mode, Overlap::Max);
  EXPECT_FALSE(C.Factor.has_value());
  llvm::json::Value K = llvm::json::Object{
      {"Mband", 46}, {"L2band", 146}, {"L1band", 241}, {"Ppeak", 128}};
  auto PK = parseLevelOverlap(K, "k.json");
  ASSERT_TRUE(bool(PK));
  EXPECT_FALSE(PK->has_value());
}

TEST(RooflineOverlap, Choice) {
  LevelOverlap Measured;
  Measured.Factor = 0.83;
  Measured.Mode = modeForOverlapFactor(0.83);
  // auto: the measured mode, and why.
  OverlapChoice A = chooseOverlap(std::nullopt, Measured);
  EXPECT_EQ(A.Mode, Overlap::Sum);
  ASSERT_TRUE(A.Factor.has_value());
  EXPECT_DOUBLE_EQ(*A.Factor, 0.83);
  EXPECT_NE(A.Why.find("measured on this machine: f=0.83"), std::string::npos)
      << A.Why;
  // An explicit mode wins over the measurement.
  OverlapChoice E = chooseOverlap(Overlap::Max, Measured);
  EXPECT_EQ(E.Mode, Overlap::Max);
  EXPECT_NE(E.Why.find("--overlap=max"), std::string::npos) << E.Why;
  // A machine that overlaps well keeps the paper's max().
  Measured.Factor = 0.1;
  Measured.Mode = modeForOverlapFactor(0.1);
  EXPECT_EQ(chooseOverlap(std::nullopt, Measured).Mode, Overlap::Max);
  // A hand-written file may give only the mode.
  auto P = parseLevelOverlap(llvm::json::Object{{"Mband", 1},
                                                {"level_overlap",
                                                 llvm::json::Object{
                                                     {"mode", "sum"}}}},
                             "h.json");
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  ASSERT_TRUE(P->has_value());
  EXPECT_FALSE((*P)->HasFactor);
  OverlapChoice H = chooseOverlap(std::nullopt, *P);
  EXPECT_EQ(H.Mode, Overlap::Sum);
  EXPECT_FALSE(H.Factor.has_value());
}

TEST(RooflineOverlap, BadField) {
  std::string Text = "{\n \"Mband\": 1,\n \"level_overlap\": {\"mode\": "
                     "\"often\"}\n}";
  auto V = llvm::json::parse(Text);
  ASSERT_TRUE(bool(V));
  auto P = parseLevelOverlap(*V, "bad.json", Text);
  ASSERT_FALSE(bool(P));
  std::string Msg = llvm::toString(P.takeError());
  EXPECT_NE(Msg.find("bad.json:3"), std::string::npos) << Msg;
  auto F = parseLevelOverlap(
      llvm::json::Object{{"level_overlap",
                          llvm::json::Object{{"mode", "max"},
                                             {"factor", "high"}}}},
      "f.json");
  ASSERT_FALSE(bool(F));
  llvm::consumeError(F.takeError());
}

} // namespace
