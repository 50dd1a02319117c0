//===- SubcommandsTest.cpp - layout-roofline's library entry points -------===//
//
// Ceilings from options, the model subcommand's report and chart, the
// machine and run charts, the chart subcommand's points, and the checks
// each makes before any work.
//
//===----------------------------------------------------------------------===//
#include "keel/Roofline/Subcommands.h"
#include "keel/Support/OutputFile.h"


#include "../ScratchDir.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace keel;
using namespace keel::roofline;

namespace {

using RooflineFiles = keel::test::ScratchDir;

template <typename T> std::string errorOf(Expected<T> V) {
  if (V)
    return "";
  return toString(V.takeError());
}

CeilingOptions flags(double M, double L2, double L1, double P) {
  CeilingOptions O;
  O.Mband = M;
  O.L2band = L2;
  O.L1band = L1;
  O.Ppeak = P;
  return O;
}

TEST(RooflineSubcommands, CeilingsFlagsWinOverTheKComputer) {
  CeilingOptions O;
  EXPECT_NE(errorOf(ceilingsFrom(O)).find("ceilings missing"),
            std::string::npos);
  O.KComputer = true;
  O.Ppeak = 100;
  Expected<Ceilings> C = ceilingsFrom(O);
  ASSERT_TRUE(bool(C)) << toString(C.takeError());
  EXPECT_EQ(C->Mband, 46);
  EXPECT_EQ(C->Ppeak, 100);
  EXPECT_EQ(C->Name, kComputerCeilings().Name);
  Expected<Ceilings> F = ceilingsFrom(flags(1, 2, 3, 4));
  ASSERT_TRUE(bool(F)) << toString(F.takeError());
  EXPECT_EQ(F->Name, "command line");
  EXPECT_FALSE(bool(ceilingsFrom(flags(1, 2, 3, 0))));
  consumeError(ceilingsFrom(flags(1, 2, 3, 0)).takeError());
}

TEST_F(RooflineFiles, MachineFileGivesCeilingsAndOverlap) {
  CeilingOptions O;
  O.MachineFile = write("m.json",
                            R"({"Mband": 10, "L2band": 20, "L1band": 40,
  "Ppeak": 16, "level_overlap": {"mode": "sum"}})");
  std::optional<LevelOverlap> Measured;
  Expected<Ceilings> C = ceilingsFrom(O, &Measured);
  ASSERT_TRUE(bool(C)) << toString(C.takeError());
  EXPECT_EQ(C->L2band, 20);
  ASSERT_TRUE(Measured.has_value());
  EXPECT_EQ(Measured->Mode, Overlap::Sum);

  ModelOptions M;
  M.Roofs = O;
  M.KernelNames = {"1M-8L2-16F"};
  Expected<ModelReport> R = modelKernels(M);
  ASSERT_TRUE(bool(R)) << toString(R.takeError());
  EXPECT_EQ(R->Choice.Mode, Overlap::Sum); // auto: the file's mode
  M.Explicit = Overlap::Max;
  R = modelKernels(M);
  ASSERT_TRUE(bool(R)) << toString(R.takeError());
  EXPECT_EQ(R->Choice.Mode, Overlap::Max);
}

TEST(RooflineSubcommands, ModelReportChartAndJSON) {
  ModelOptions O;
  O.Roofs.KComputer = true;
  O.KernelNames = {"5M-21L2-12L1S-6L1L-43F"};
  Expected<ModelReport> R = modelKernels(O);
  ASSERT_TRUE(bool(R)) << toString(R.takeError());
  ASSERT_EQ(R->Kernels.size(), 1u);
  ASSERT_EQ(R->Estimates.size(), 1u);
  EXPECT_EQ(R->Choice.Mode, Overlap::Max);
  ChartData D = modelChart(*R);
  EXPECT_EQ(D.Title, "cache-aware estimates");
  ASSERT_EQ(D.Roofs.size(), 3u);
  ASSERT_EQ(D.Points.size(), 1u);
  EXPECT_DOUBLE_EQ(D.Points[0].Intensity, 43.0 / (5 * 8));
  EXPECT_DOUBLE_EQ(D.Points[0].GFlops, R->Estimates[0].GFlops);
  json::Object J = toJSON(*R);
  ASSERT_NE(J.getObject("overlap"), nullptr);
  EXPECT_EQ(J.getObject("overlap")->getString("mode"), "max");
  ASSERT_NE(J.getArray("kernels"), nullptr);
  EXPECT_EQ(J.getArray("kernels")->size(), 1u);
  std::string Text;
  raw_string_ostream OS(Text);
  printText(OS, *R);
  EXPECT_EQ(Text.rfind("overlap: max (", 0), 0u) << Text;
}

TEST_F(RooflineFiles, ModelInputErrors) {
  ModelOptions O;
  EXPECT_NE(errorOf(modelKernels(O)).find("ceilings missing"),
            std::string::npos);
  O.Roofs.KComputer = true;
  EXPECT_NE(errorOf(modelKernels(O)).find("give --input=kernel.json"),
            std::string::npos);
  O.KernelNames = {"bogus"};
  EXPECT_FALSE(errorOf(modelKernels(O)).empty());
  O.KernelNames.clear();
  O.Input = write("k.json", "{\n");
  EXPECT_NE(errorOf(modelKernels(O)).find("k.json"), std::string::npos);
}

TEST(RooflineSubcommands, MachineChartAddsL3AndOneThreadPeaks) {
  MachineReport R;
  R.OneCore = Ceilings{"m", 10, 20, 40, 16};
  LevelCeiling L3;
  L3.Level = "L3";
  L3.ReadGBs = 15;
  R.Levels = {L3};
  R.Peaks = {{"scalar_fma", 1, 4}, {"avx2_fma", 1, 16}, {"avx2_fma", 8, 128}};
  ChartData D = machineChart(R);
  ASSERT_EQ(D.Roofs.size(), 4u);
  EXPECT_EQ(D.Roofs[2].Name, "L3");
  EXPECT_EQ(D.Roofs[3].Name, "memory");
  ASSERT_EQ(D.Peaks.size(), 2u);
  EXPECT_EQ(D.Peaks[1].Name, "avx2_fma");
  EXPECT_EQ(D.Peaks[1].GFlops, 16);
}

TEST(RooflineSubcommands, RunChecksBeforeRunningAndChartsLevels) {
  RunOptions O;
  EXPECT_NE(errorOf(placeProgram(O)).find("ceilings missing"),
            std::string::npos);
  O.Roofs = flags(10, 20, 40, 16);
  EXPECT_NE(errorOf(placeProgram(O)).find("give a program"),
            std::string::npos);
  O.Config.CallgrindOut = "callgrind.out";
  EXPECT_NE(errorOf(placeProgram(O)).find("needs --seconds"),
            std::string::npos);

  RunPlacement P;
  P.Config.Argv = {"./prog"};
  P.Config.Roofs = Ceilings{"m", 10, 20, 40, 16};
  P.Report.AchievedGFlops = 2;
  LevelPlacement L1{"L1", 100, 0.5, 20, 40}, Mem{"memory", 0, 0, 0, 10};
  P.Report.Levels = {L1, Mem};
  ChartData D = runChart(P);
  ASSERT_EQ(D.Points.size(), 1u); // no traffic to memory: no point
  EXPECT_EQ(D.Points[0].Label, "./prog (L1 bytes)");
  EXPECT_EQ(D.Points[0].GFlops, 2);
  EXPECT_EQ(D.Points[0].EstimateGFlops, 16); // the roof, capped at the peak
}

TEST_F(RooflineFiles, PointsChart) {
  ChartOptions O;
  O.Roofs.KComputer = true;
  EXPECT_NE(errorOf(pointsChart(O)).find("chart needs --svg=FILE"),
            std::string::npos);
  O.SVG = "c.svg";
  Expected<ChartData> Empty = pointsChart(O);
  ASSERT_TRUE(bool(Empty)) << toString(Empty.takeError());
  EXPECT_TRUE(Empty->Points.empty());
  O.Points = write("p.json", R"({"title": "t", "points": [
  {"label": "a", "intensity": 1, "gflops": 2, "estimate": 3},
  {"intensity": 0.5, "gflops": 1}]})");
  Expected<ChartData> D = pointsChart(O);
  ASSERT_TRUE(bool(D)) << toString(D.takeError());
  EXPECT_EQ(D->Title, "t");
  ASSERT_EQ(D->Points.size(), 2u);
  EXPECT_EQ(D->Points[0].Label, "a");
  EXPECT_EQ(D->Points[0].EstimateGFlops, 3);
  EXPECT_FALSE(D->Points[1].EstimateGFlops.has_value());
  O.Points = write("bad.json", "{\"points\":\n [{\"gflops\": 2}]}");
  EXPECT_NE(errorOf(pointsChart(O)).find("bad.json:1"), std::string::npos);
}

TEST_F(RooflineFiles, ChartFileOnlyWhenNamed) {
  ChartData D = chartFor(Ceilings{"m", 10, 20, 40, 16}, "t");
  Error None = writeChartFile("", D);
  EXPECT_FALSE(bool(None));
  std::string Path = write("c.svg", "");
  Error E = writeChartFile(Path, D);
  ASSERT_FALSE(bool(E)) << toString(std::move(E));
  Expected<std::string> SVG = readWholeFile(Path);
  ASSERT_TRUE(bool(SVG));
  EXPECT_NE(SVG->find("<svg"), std::string::npos);
}

} // namespace
