//===- ToolTest.cpp - the exit-code table and the tool skeleton -----------===//
//
// docs/conventions.md's table (0 ok, 1 a gate or check failed, 2 bad usage
// or input, 3 the machine lacks what was asked for), how reportError maps
// error kinds onto it, and runTool's exit status for each way a tool ends.
// runTool owns the process (InitLLVM, the global command line), so those
// cases run in a forked child (a death test) and check its exit status.
//
//===----------------------------------------------------------------------===//
#include "keel/Support/Diagnostics.h"
#include "keel/Support/Tool.h"

#include "llvm/Support/CommandLine.h"
#include "gtest/gtest.h"

#include <cstdlib>

using namespace llvm;
using namespace keel;

namespace {

TEST(ExitCodes, TheDocumentedTable) {
  EXPECT_EQ(ExitOK, 0);
  EXPECT_EQ(ExitCheckFailed, 1);
  EXPECT_EQ(ExitBadInput, 2);
  EXPECT_EQ(ExitUnavailable, 3);
}

TEST(ExitCodes, ReportErrorMapsEachKind) {
  testing::internal::CaptureStderr();
  EXPECT_EQ(reportError("t", inputError("f.txt", 3, "bad")), ExitBadInput);
  EXPECT_EQ(reportError("t", make_error<UnavailableError>("no PMU")),
            ExitUnavailable);
  EXPECT_EQ(reportError("t", makeError("crashed")), ExitBadInput);
  std::string Err = testing::internal::GetCapturedStderr();
  EXPECT_NE(Err.find("t: error: f.txt:3: bad"), std::string::npos) << Err;
  EXPECT_NE(Err.find("t: error: no PMU"), std::string::npos) << Err;
  EXPECT_NE(Err.find("t: error: crashed"), std::string::npos) << Err;
}

TEST(ExitCodes, ExitStatusOfAnError) {
  Expected<int> OK = exitStatus(Error::success());
  ASSERT_TRUE(bool(OK));
  EXPECT_EQ(*OK, ExitOK);
  Expected<int> Bad = exitStatus(makeError("x"));
  ASSERT_FALSE(bool(Bad));
  EXPECT_EQ(toString(Bad.takeError()), "x");
}

cl::OptionCategory TestCat("runtool-test options");
cl::opt<bool> Flag("runtool-flag", cl::desc("a flag"), cl::cat(TestCat));

/// runTool on \p Args (argv[0] first) in this process; for EXPECT_EXIT.
[[noreturn]] void runAndExit(std::vector<const char *> Args, bool Parse,
                             function_ref<Expected<int>()> Run) {
  Args.push_back(nullptr);
  ToolInfo Info{"runtool-test", "a test tool\n", {&TestCat}, Parse};
  std::exit(runTool(int(Args.size() - 1), const_cast<char **>(Args.data()),
                    Info, Run));
}

TEST(RunToolDeathTest, ValueIsTheExitStatus) {
  EXPECT_EXIT(runAndExit({"t"}, true, [] { return Expected<int>(ExitOK); }),
              testing::ExitedWithCode(0), "");
  EXPECT_EXIT(runAndExit({"t", "--runtool-flag"}, true,
                         []() -> Expected<int> {
                           return Flag ? ExitCheckFailed : ExitOK;
                         }),
              testing::ExitedWithCode(1), "");
  // A tool that passes on its program's status (layout-record, layout-link).
  EXPECT_EXIT(runAndExit({"t"}, true, [] { return Expected<int>(42); }),
              testing::ExitedWithCode(42), "");
}

TEST(RunToolDeathTest, ErrorsGoThroughTheTable) {
  EXPECT_EXIT(runAndExit({"t"}, true,
                         []() -> Expected<int> {
                           return inputError("in.txt", 2, "bad line");
                         }),
              testing::ExitedWithCode(2), "runtool-test: error: in.txt:2: bad line");
  EXPECT_EXIT(runAndExit({"t"}, true,
                         []() -> Expected<int> {
                           return make_error<UnavailableError>("no valgrind");
                         }),
              testing::ExitedWithCode(3), "runtool-test: error: no valgrind");
  EXPECT_EXIT(runAndExit({"t"}, true,
                         [] { return exitStatus(makeError("it crashed")); }),
              testing::ExitedWithCode(2), "runtool-test: error: it crashed");
}

TEST(RunToolDeathTest, BadUsageIsTwo) {
  bool Ran = false;
  EXPECT_EXIT(runAndExit({"t", "--no-such-option"}, true,
                         [&] {
                           Ran = true;
                           return Expected<int>(ExitOK);
                         }),
              testing::ExitedWithCode(2),
              "runtool-test: error: unknown option '--no-such-option'");
  EXPECT_FALSE(Ran);
}

TEST(RunToolDeathTest, WithoutParsingTheArgvIsLeftAlone) {
  // layout-sweep --slurm-task FILE: no option parsing at all.
  EXPECT_EXIT(runAndExit({"t", "--slurm-task", "f"}, false,
                         [] { return Expected<int>(ExitOK); }),
              testing::ExitedWithCode(0), "");
}

// cl's own texts (as LLVM 22 prints them) become one line in Keel's style.
TEST(OptionErrorMessage, RewordsWhatClSays) {
  std::vector<const char *> None;
  EXPECT_EQ(optionErrorMessage("t: for the --profile option: must be specified "
                               "at least once!\n"
                               "t: for the --binary option: must be specified "
                               "at least once!\n",
                               "t", None),
            "missing required options --profile, --binary (see --help)");
  EXPECT_EQ(optionErrorMessage("t: for the --top option: '-1' value invalid "
                               "for ulong argument!\n",
                               "t", None),
            "invalid value '-1' for --top: expected a non-negative integer");
  EXPECT_EQ(optionErrorMessage("t: Not enough positional command line arguments "
                               "specified!\nMust specify at least 1 positional "
                               "argument: See: t --help\n",
                               "t", None, "<binary>"),
            "missing <binary> (see --help)");
  // An alias is named as the user spelled it.
  std::vector<const char *> Alias = {"--to=bogus"};
  EXPECT_EQ(optionErrorMessage("t: for the --format option: Cannot find option "
                               "named 'bogus'!\n",
                               "t", Alias),
            "invalid value 'bogus' for --to (see --help for its values)");
}

TEST(OptionErrorMessage, NoHelpSuggestionAndCommandOptionsAfterDashes) {
  std::vector<const char *> Link = {"-o", "foo", "--", "clang-22"};
  EXPECT_EQ(optionErrorMessage("t: Unknown command line argument '-o'.  Try: "
                               "'t --help'\nt: Did you mean '-h'?\n",
                               "t", Link),
            "unknown option '-o'; the command's own options go after '--'");
  std::vector<const char *> Order = {"--bogus"};
  EXPECT_EQ(optionErrorMessage("t: Unknown command line argument '--bogus'.  "
                               "Try: 't --help'\nt: Did you mean '--blocks'?\n",
                               "t", Order),
            "unknown option '--bogus'; did you mean '--blocks'?");
}

} // namespace
