//===- FindingsTest.cpp - layout-falseshare report's library entry points -===//
//
// readReportInput, findSharing, writeReport and writePlanFile on small
// reports written here, without a binary (addresses and heap objects name
// the data).
//
//===----------------------------------------------------------------------===//
#include "keel/FalseShare/Findings.h"
#include "keel/Support/OutputFile.h"

#include "llvm/Support/FormatVariadic.h"

#include "../ScratchDir.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace keel;
using namespace keel::fs;

namespace {

using FalseShareFindings = keel::test::ScratchDir;

/// Two threads write bytes 0-3 and 8-11 of a 16-byte heap object at
/// 0x1000, \p N times each.
std::string heapReport(unsigned N) {
  return formatv("keel-fs 1\nline-size 64\nsample 1\nthreads 2\n"
                 "alloc 0x1000 16 5 3 main a.c\n"
                 "access 0x1000 1 0x0 0xf 0 {0}\n"
                 "site {0} 7 2 worker a.c\n"
                 "access 0x1000 2 0x0 0xf00 0 {0}\n"
                 "end\n",
                 N)
      .str();
}

std::string render(const ReportInput &In, const Findings &F, bool JSON) {
  std::string S;
  raw_string_ostream OS(S);
  writeReport(OS, In, F, JSON);
  return S;
}

TEST_F(FalseShareFindings, HeapObjectFalseSharingAndItsPadding) {
  ReportOptions O;
  O.Input = write("heap.out", heapReport(1000));
  Expected<ReportInput> In = readReportInput(O);
  ASSERT_TRUE(bool(In)) << toString(In.takeError());
  EXPECT_FALSE(In->BinaryMissing); // no `exe`: nothing to look for
  EXPECT_EQ(In->Bin, nullptr);
  Findings F = findSharing(*In, O);
  ASSERT_EQ(F.Views.size(), 1u);
  const LineView &LV = F.Views[0];
  EXPECT_EQ(LV.Kind, Sharing::False);
  EXPECT_EQ(LV.LinkAddr, 0x1000u);
  ASSERT_EQ(LV.Objects.size(), 1u);
  EXPECT_EQ(LV.Objects[0], "heap(16 bytes at a.c:5 in main)");
  ASSERT_EQ(LV.Threads.size(), 2u);
  EXPECT_EQ(LV.Threads[0].WriteBytes, "0-3");
  EXPECT_EQ(LV.Threads[1].Written[0], "heap(16 bytes at a.c:5 in main) bytes 8-11");
  ASSERT_EQ(LV.Fixes.size(), 1u);
  // Byte 8 moves to byte 3 + 64: 59 bytes of padding.
  EXPECT_NE(LV.Fixes[0].find("insert 59 bytes of padding before offset 8"),
            std::string::npos)
      << LV.Fixes[0];
  EXPECT_TRUE(F.P.FalseSharing.empty()); // a heap object has no plan entry
  EXPECT_EQ(F.Counts[unsigned(Sharing::False)], 1u);

  std::string Text = render(*In, F, /*JSON=*/false);
  EXPECT_EQ(Text.rfind(O.Input + ": 2 threads, 1 lines touched", 0), 0u);
  EXPECT_NE(Text.find("    a.c:7:2 in worker: 1000 accesses\n"),
            std::string::npos);
  EXPECT_NE(Text.find("summary: 1 false, 0 mixed, 0 true sharing lines, 0 "
                      "latent pairs\n"),
            std::string::npos);
  std::string JSON = render(*In, F, /*JSON=*/true);
  EXPECT_NE(JSON.find("\"sharing\": \"false\""), std::string::npos) << JSON;
  EXPECT_NE(JSON.find("\"line\": \"0x1000\""), std::string::npos) << JSON;
}

TEST_F(FalseShareFindings, MinAccessesDropsRareThreads) {
  ReportOptions O;
  O.Input = write("rare.out", heapReport(50));
  Expected<ReportInput> In = readReportInput(O);
  ASSERT_TRUE(bool(In)) << toString(In.takeError());
  EXPECT_TRUE(findSharing(*In, O).Views.empty());
  O.MinAccesses = 10;
  EXPECT_EQ(findSharing(*In, O).Views.size(), 1u);
}

TEST_F(FalseShareFindings, LatentPairsUnlessNoLatent) {
  // Thread 1 writes the last 4 bytes of line 0x1000, thread 2 the first 4
  // of 0x1040: different lines, 4 bytes apart.
  ReportOptions O;
  O.Input = write("latent.out",
                            "keel-fs 1\nthreads 2\n"
                            "access 0x1000 1 0x0 0xf000000000000000 0 500\n"
                            "access 0x1040 2 0x0 0xf 0 500\nend\n");
  Expected<ReportInput> In = readReportInput(O);
  ASSERT_TRUE(bool(In)) << toString(In.takeError());
  Findings F = findSharing(*In, O);
  EXPECT_TRUE(F.Views.empty());
  ASSERT_EQ(F.Latent.size(), 1u);
  EXPECT_EQ(F.Latent[0].TidA, 1u);
  EXPECT_EQ(F.Latent[0].TidB, 2u);
  EXPECT_EQ(F.Latent[0].Distance, 0u);
  EXPECT_EQ(F.Latent[0].Fix,
            "keep them 64 bytes apart or align the object to 64");
  EXPECT_NE(render(*In, F, false)
                .find("summary: 0 false, 0 mixed, 0 true sharing lines, 1 "
                      "latent pairs\n"),
            std::string::npos);
  O.NoLatent = true;
  EXPECT_TRUE(findSharing(*In, O).Latent.empty());
}

TEST_F(FalseShareFindings, BinaryNamedByTheReportOrTheOptions) {
  ReportOptions O;
  O.Input = write("exe.out",
                            "keel-fs 1\nexe /no/such/program\nend\n");
  Expected<ReportInput> In = readReportInput(O);
  ASSERT_TRUE(bool(In)) << toString(In.takeError());
  // The report's exe is missing: a warning for the tool, not an error.
  EXPECT_TRUE(In->BinaryMissing);
  EXPECT_EQ(In->BinPath, "/no/such/program");
  // Named on the command line, it must open.
  O.BinaryPath = "/no/such/program";
  Expected<ReportInput> Bad = readReportInput(O);
  ASSERT_FALSE(bool(Bad));
  consumeError(Bad.takeError());
}

TEST_F(FalseShareFindings, InputErrors) {
  ReportOptions O;
  Expected<ReportInput> None = readReportInput(O);
  ASSERT_FALSE(bool(None));
  EXPECT_NE(toString(None.takeError()).find("give the keelfs report"),
            std::string::npos);
  O.Input = write("bad.out", "keel-fs 1\nbogus\n");
  Expected<ReportInput> Bad = readReportInput(O);
  ASSERT_FALSE(bool(Bad));
  EXPECT_NE(toString(Bad.takeError()).find("bad.out:2"), std::string::npos);
}

TEST_F(FalseShareFindings, PlanFileNamesTheBinary) {
  ReportOptions O;
  O.Input = write("plan.out", heapReport(1000));
  Expected<ReportInput> In = readReportInput(O);
  ASSERT_TRUE(bool(In)) << toString(In.takeError());
  In->BinPath = "prog";
  Findings F = findSharing(*In, O);
  std::string Plan = path("fs.yaml");
  Error E = writePlanFile(Plan, *In, F);
  ASSERT_FALSE(bool(E)) << toString(std::move(E));
  EXPECT_EQ(F.P.Binary, "prog");
  Expected<std::string> Text = readWholeFile(Plan);
  ASSERT_TRUE(bool(Text)) << toString(Text.takeError());
  EXPECT_NE(Text->find("prog"), std::string::npos) << *Text;
}

} // namespace
