#include "keel/Support/Diagnostics.h"
#include "keel/Support/OutputFile.h"
#include "keel/Support/Process.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"

using namespace keel;
using namespace llvm;

TEST(SplitCommandTemplate, NoShellExpansion) {
  auto W = splitCommandTemplate("make relink 'PAD={pad}' \"OUT=a b\" $(rm -rf /);x");
  ASSERT_TRUE(bool(W));
  ASSERT_EQ(W->size(), 7u);
  EXPECT_EQ((*W)[2], "PAD={pad}");
  EXPECT_EQ((*W)[3], "OUT=a b");
  EXPECT_EQ((*W)[4], "$(rm");
  EXPECT_EQ((*W)[5], "-rf");
  EXPECT_EQ((*W)[6], "/);x");
}

TEST(SplitCommandTemplate, UnterminatedQuote) {
  auto W = splitCommandTemplate("a 'b");
  EXPECT_FALSE(bool(W));
  consumeError(W.takeError());
}

TEST(InputError, NamesFileAndLine) {
  Error E = inputError("x.fdata", 12, "bad hex '{0}'", "zz");
  EXPECT_EQ(toString(std::move(E)), "x.fdata:12: bad hex 'zz'");
}

TEST(ReportError, ExitCodes) {
  EXPECT_EQ(reportError("t", make_error<UnavailableError>("no PMU")), 3);
  EXPECT_EQ(reportError("t", inputError("f", 1, "bad")), 2);
}

TEST(WriteOutput, NothingLeftOnFailure) {
  auto Dir = makePrivateTempDir("keel-test");
  ASSERT_TRUE(bool(Dir));
  SmallString<128> P(*Dir);
  sys::path::append(P, "out.txt");
  Error E = writeOutput(P, [](raw_ostream &OS) -> Error {
    OS << "partial";
    return makeError("failed halfway");
  });
  EXPECT_TRUE(bool(E));
  consumeError(std::move(E));
  EXPECT_FALSE(sys::fs::exists(P));
  std::error_code EC;
  EXPECT_TRUE(sys::fs::directory_iterator(*Dir, EC) == sys::fs::directory_iterator());
  Error Ok = writeOutput(P, [](raw_ostream &OS) -> Error {
    OS << "whole";
    return Error::success();
  });
  ASSERT_FALSE(bool(Ok)) << toString(std::move(Ok));
  auto Text = readWholeFile(P);
  ASSERT_TRUE(bool(Text));
  EXPECT_EQ(*Text, "whole");
  sys::fs::remove_directories(*Dir);
}

TEST(QualityReport, Summarises) {
  QualityReport Q;
  Q.count("are outside the binary", 3);
  std::string S;
  raw_string_ostream OS(S);
  Q.print(OS, "tool", 300, "records");
  EXPECT_NE(S.find("3 of 300 records (1.00%) are outside the binary"), std::string::npos);
}
