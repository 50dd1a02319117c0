//===- BuildFlagsTest.cpp - compile.rsp and link.rsp ----------------------===//
#include "keel/Planner/BuildFlags.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/StringSaver.h"

#include "gtest/gtest.h"

using namespace keel;
using namespace llvm;

namespace {

/// What clang reads back from a response file holding \p Text.
std::vector<std::string> readBack(StringRef Text) {
  BumpPtrAllocator A;
  StringSaver Saver(A);
  SmallVector<const char *, 16> Argv;
  cl::TokenizeGNUCommandLine(Text, Saver, Argv);
  return std::vector<std::string>(Argv.begin(), Argv.end());
}

std::string render(ArrayRef<std::string> Args) {
  std::string S;
  raw_string_ostream OS(S);
  writeResponseFile(Args, OS);
  return S;
}

TEST(BuildFlags, BlockPlanHasTheRecipesFlags) {
  BuildFlagOptions O;
  O.PlanDir = "/w/app.plan";
  O.Blocks = true;
  O.AlignLoops = 1;
  O.DataPad = 2048;
  BuildFlags F = planBuildFlags(O);
  EXPECT_EQ(F.Compile, (std::vector<std::string>{
                           "-ffunction-sections", "-fdata-sections",
                           "-fbasic-block-address-map",
                           "-fbasic-block-sections=list=/w/app.plan/"
                           "bbsections.txt",
                           "-falign-loops=1"}));
  EXPECT_EQ(F.Link, (std::vector<std::string>{
                        "-fuse-ld=lld",
                        "-Wl,--symbol-ordering-file=/w/app.plan/order.txt",
                        "-Wl,-T,/w/app.plan/layout.ld",
                        "-Wl,-z,keep-text-section-prefix",
                        "-Wl,-z,separate-code",
                        "-Wl,--defsym=__keel_data_pad=2048"}));
  // Plain words are written as they are, one a line.
  EXPECT_EQ(render(F.Compile), "-ffunction-sections\n-fdata-sections\n"
                               "-fbasic-block-address-map\n"
                               "-fbasic-block-sections=list=/w/app.plan/"
                               "bbsections.txt\n-falign-loops=1\n");
}

TEST(BuildFlags, FunctionPlanGetsTheSmallerFiles) {
  BuildFlagOptions O;
  O.PlanDir = "/w/p";
  O.AlignLoops = 1; // only with blocks
  BuildFlags F = planBuildFlags(O);
  EXPECT_EQ(F.Compile, (std::vector<std::string>{"-ffunction-sections",
                                                 "-fdata-sections"}));
  EXPECT_EQ(F.Link, (std::vector<std::string>{
                        "-fuse-ld=lld",
                        "-Wl,--symbol-ordering-file=/w/p/order.txt",
                        "-Wl,-T,/w/p/layout.ld", "-Wl,-z,separate-code"}));
}

TEST(BuildFlags, CommaInThePathUsesXlinker) {
  BuildFlagOptions O;
  O.PlanDir = "/w/a,b";
  BuildFlags F = planBuildFlags(O);
  EXPECT_EQ(F.Link, (std::vector<std::string>{
                        "-fuse-ld=lld", "-Xlinker",
                        "--symbol-ordering-file=/w/a,b/order.txt", "-Xlinker",
                        "-T", "-Xlinker", "/w/a,b/layout.ld",
                        "-Wl,-z,separate-code"}));
}

TEST(BuildFlags, QuotingRoundTripsThroughClangsReader) {
  std::vector<std::string> Args = {
      "-fbasic-block-sections=list=/w/my plan/bbsections.txt",
      "/w/it's/x", "a\\b", "\"q\"", "$HOME", "tab\there", "plain-1.0"};
  EXPECT_EQ(readBack(render(Args)), Args);
  EXPECT_EQ(quoteResponseFileArg("plain-1.0"), "plain-1.0");
  EXPECT_EQ(quoteResponseFileArg("it's"), "'it\\'s'");
  EXPECT_EQ(quoteResponseFileArg("a\\b"), "'a\\\\b'");
}

} // namespace
