//===- HitmRecordTest.cpp - layout-falseshare record's library entry ------===//
//
// recordHitm's checks (before anything runs) and a replay: no PMU needed.
//
//===----------------------------------------------------------------------===//
#include "keel/FalseShare/HitmRecord.h"
#include "keel/Support/OutputFile.h"

#include "llvm/Support/FileSystem.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace keel;
using namespace keel::fs;

namespace {

/// Rings and reports, in a private directory removed after each test.
class FalseShareReplay : public ::testing::Test {
protected:
  void SetUp() override {
    Expected<std::string> D = makePrivateTempDir("keel-fs-record-test");
    ASSERT_TRUE(bool(D)) << toString(D.takeError());
    Dir = *D;
  }
  void TearDown() override { sys::fs::remove_directories(Dir); }

  std::string path(StringRef Name) { return (Dir + "/" + Name).str(); }
  /// \p Text in the file \p Name; returns its path.
  std::string write(StringRef Name, StringRef Text) {
    std::string P = path(Name);
    Error E = writeOutput(P, [&](raw_ostream &OS) {
      OS << Text;
      return Error::success();
    });
    EXPECT_FALSE(bool(E)) << toString(std::move(E));
    return P;
  }

  std::string Dir;
};

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
  EXPECT_NE(errorOf(O).find("cannot find the program '/no/such/program'"),
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
