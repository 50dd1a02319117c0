//===- HitmRecordTest.cpp - layout-falseshare record's library entry ------===//
//
// recordHitm's checks (before anything runs) and a replay: no PMU needed.
//
//===----------------------------------------------------------------------===//
#include "keel/FalseShare/HitmRecord.h"
#include "keel/Support/OutputFile.h"


#include "../ScratchDir.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace keel;
using namespace keel::fs;

namespace {

using FalseShareReplay = keel::test::ScratchDir;

std::string errorOf(const HitmRecordOptions &O) {
  Expected<HitmRecordResult> R = recordHitm(O);
  if (R)
    return "";
  return toString(R.takeError());
}

TEST(FalseShareRecord, OptionsAreCheckedFirst) {
  HitmRecordOptions O;
  O.Source = "ibs";
  O.Program = "x";
  EXPECT_NE(errorOf(O).find("unknown --source=ibs"), std::string::npos);
  O.Source = "perf";
  O.Program = "";
  EXPECT_NE(errorOf(O).find("give the program to run"), std::string::npos);
  O.Program = "x";
  O.Period = 0;
  EXPECT_NE(errorOf(O).find("--period must be at least 1"), std::string::npos);
  O.Period = 1000;
  O.Program = "/no/such/program";
  EXPECT_NE(errorOf(O).find("/no/such/program: no such program"),
            std::string::npos);
}

TEST_F(FalseShareReplay, ReplayOfNoRecordsWritesAnEmptyReport) {
  std::string Out = path("fs.out");
  HitmRecordOptions O;
  O.Program = "/proc/self/exe"; // any ELF names the binary
  O.Replay = write("empty.perf", "");
  O.Output = Out;
  Expected<HitmRecordResult> R = recordHitm(O);
  ASSERT_TRUE(bool(R)) << toString(R.takeError());
  EXPECT_EQ(R->Stats.Samples, 0u);
  EXPECT_EQ(R->Stats.Lines, 0u);
  EXPECT_EQ(R->ExitCode, 0);
  EXPECT_EQ(R->Signal, 0);
  EXPECT_EQ(R->Lost, 0u);
  Expected<std::string> Text = readWholeFile(Out);
  ASSERT_TRUE(bool(Text)) << toString(Text.takeError());
  EXPECT_EQ(Text->rfind("keel-fs 1\n", 0), 0u) << *Text;

  O.Replay = path("missing.perf");
  EXPECT_FALSE(errorOf(O).empty());
}

} // namespace
