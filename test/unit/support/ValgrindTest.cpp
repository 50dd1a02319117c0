//===- ValgrindTest.cpp - the valgrind launcher and its argv --------------===//
//
// valgrindArgv's shape (what every tool's counts depend on), which launcher
// findValgrind picks for Debian's sh wrapper and for a plain executable, its
// messages when valgrind is missing, and that runValgrind hands the argv to
// the executable as built. The valgrind here is a small sh script on a
// private PATH: no real valgrind runs.
//
//===----------------------------------------------------------------------===//
#include "keel/Support/Diagnostics.h"
#include "keel/Support/OutputFile.h"
#include "keel/Support/Valgrind.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"

#include <cstdlib>
#include <fstream>

using namespace llvm;
using namespace keel;

namespace {

using Argv = std::vector<std::string>;

TEST(ValgrindArgv, CoreOptionsToolOptionsProgram) {
  ValgrindCommand C;
  C.CoreOptions = {"-q"};
  C.Tool = "callgrind";
  C.ToolOptions = {"--collect-jumps=yes", "--callgrind-out-file=/d/cg.%p"};
  C.Program = {"./prog", "--flag", "arg"};
  EXPECT_EQ(valgrindArgv("/usr/bin/valgrind", C),
            (Argv{"/usr/bin/valgrind", "-q", "--tool=callgrind",
                  "--collect-jumps=yes", "--callgrind-out-file=/d/cg.%p",
                  "./prog", "--flag", "arg"}));
}

TEST(ValgrindArgv, SeparatorBeforeTheProgram) {
  ValgrindCommand C;
  C.Tool = "callgrind";
  C.ToolOptions = {"--cache-sim=yes"};
  C.Separator = true;
  C.Program = {"-weird-name", "x"};
  EXPECT_EQ(valgrindArgv("vg", C), (Argv{"vg", "--tool=callgrind",
                                         "--cache-sim=yes", "--",
                                         "-weird-name", "x"}));
}

TEST(ValgrindArgv, NoOptionsNoSeparator) {
  ValgrindCommand C;
  C.Tool = "lackey";
  C.Program = {"p"};
  EXPECT_EQ(valgrindArgv("vg", C), (Argv{"vg", "--tool=lackey", "p"}));
}

/// A private directory put first (alone) on PATH for one test.
class FakeValgrind : public ::testing::Test {
protected:
  void SetUp() override {
    Expected<std::string> D = makePrivateTempDir("keel-valgrind-test");
    ASSERT_TRUE(bool(D)) << toString(D.takeError());
    Dir = *D;
    if (const char *P = std::getenv("PATH"))
      OldPath = P;
    setenv("PATH", Dir.c_str(), 1);
  }
  void TearDown() override {
    setenv("PATH", OldPath.c_str(), 1);
    sys::fs::remove_directories(Dir);
  }
  std::string write(StringRef Name, StringRef Text) {
    std::string Path = (Dir + "/" + Name).str();
    std::ofstream(Path) << Text.str();
    sys::fs::setPermissions(Path, sys::fs::all_read | sys::fs::all_exe |
                                      sys::fs::owner_write);
    return Path;
  }
  std::string Dir, OldPath;
};

TEST_F(FakeValgrind, DebianWrapperScriptOrItsBinary) {
  std::string Script = write("valgrind", "#!/bin/sh\nexec valgrind.bin \"$@\"\n");
  std::string Bin = write("valgrind.bin", "#!/bin/sh\nexit 0\n");
  Expected<std::string> S = findValgrind(ValgrindLauncher::Script);
  ASSERT_TRUE(bool(S)) << toString(S.takeError());
  EXPECT_EQ(*S, Script);
  Expected<std::string> B = findValgrind(ValgrindLauncher::Binary);
  ASSERT_TRUE(bool(B)) << toString(B.takeError());
  EXPECT_EQ(*B, Bin);
}

TEST_F(FakeValgrind, BinaryLauncherWithoutWrapper) {
  // Not a script (no "#!"): valgrind itself, even with a valgrind.bin.
  std::string Exe = write("valgrind", "\x7f" "ELF not really\n");
  write("valgrind.bin", "#!/bin/sh\nexit 0\n");
  Expected<std::string> B = findValgrind(ValgrindLauncher::Binary);
  ASSERT_TRUE(bool(B)) << toString(B.takeError());
  EXPECT_EQ(*B, Exe);
}

TEST_F(FakeValgrind, ScriptWithoutBinaryBeside) {
  std::string Script = write("valgrind", "#!/bin/sh\nexit 0\n");
  Expected<std::string> B = findValgrind(ValgrindLauncher::Binary);
  ASSERT_TRUE(bool(B)) << toString(B.takeError());
  EXPECT_EQ(*B, Script);
}

TEST_F(FakeValgrind, MissingIsUnavailableWithTheCallersMessage) {
  Expected<std::string> Own =
      findValgrind(ValgrindLauncher::Script, "valgrind is not installed");
  ASSERT_FALSE(bool(Own));
  Error E = Own.takeError();
  EXPECT_TRUE(E.isA<UnavailableError>());
  EXPECT_EQ(toString(std::move(E)), "valgrind is not installed");

  Expected<std::string> Default = findValgrind(ValgrindLauncher::Binary);
  ASSERT_FALSE(bool(Default));
  Error D = Default.takeError();
  EXPECT_TRUE(D.isA<UnavailableError>());
  EXPECT_NE(toString(std::move(D)).find("'valgrind' was not found"),
            std::string::npos);
}

TEST_F(FakeValgrind, RunValgrindPassesTheArgvAsBuilt) {
  std::string Script =
      write("valgrind", "#!/bin/sh\nprintf '%s\\n' \"$@\"\nexit 7\n");
  ValgrindCommand C;
  C.CoreOptions = {"-q"};
  C.Tool = "lackey";
  C.ToolOptions = {"--trace-mem=yes"};
  C.Separator = true;
  C.Program = {"prog", "a b"};
  RunOptions Opts;
  Opts.Stdout = Dir + "/out";
  Expected<RunResult> R = runValgrind(Script, C, Opts);
  ASSERT_TRUE(bool(R)) << toString(R.takeError());
  EXPECT_EQ(R->ExitCode, 7); // the caller decides what an exit status means
  EXPECT_FALSE(R->Crashed);
  Expected<std::string> Out = readWholeFile(Dir + "/out");
  ASSERT_TRUE(bool(Out)) << toString(Out.takeError());
  EXPECT_EQ(*Out, "-q\n--tool=lackey\n--trace-mem=yes\n--\nprog\na b\n");
}

} // namespace
