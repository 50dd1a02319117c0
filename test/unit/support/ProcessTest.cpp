//===- ProcessTest.cpp - runProgram with files on fixed descriptors -------===//
//
// RunOptions::FdFiles / ExecPath (posix_spawn path of runProgram): the file
// is on the descriptor in the child only, the mapped file is what runs while
// argv[0] stays as given, exit codes and timeouts are reported as by the
// LLVM path, and parallel spawns each see their own file.
//
//===----------------------------------------------------------------------===//
#include "keel/Support/Diagnostics.h"
#include "keel/Support/OutputFile.h"
#include "keel/Support/Process.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"

#include <fstream>
#include <chrono>
#include <csignal>
#include <thread>
#include <unistd.h>

using namespace llvm;
using namespace keel;

namespace {

/// The error text of a failed Expected ("" when it succeeded).
template <typename T> std::string errorOf(Expected<T> E) {
  if (E)
    return "";
  return toString(E.takeError());
}

#define ASSERT_OK(E)                                                           \
  ASSERT_TRUE(bool(E)) << toString(E.takeError())

class ProcessFdTest : public ::testing::Test {
protected:
  void SetUp() override {
    SmallString<128> D;
    ASSERT_FALSE(sys::fs::createUniqueDirectory("keel-process-test", D));
    Dir = D.str().str();
  }
  void TearDown() override { sys::fs::remove_directories(Dir); }

  std::string path(StringRef Name) { return (Dir + "/" + Name).str(); }
  std::string write(StringRef Name, StringRef Text) {
    std::string P = path(Name);
    std::ofstream(P, std::ios::binary) << Text.str();
    return P;
  }
  /// A copy of a system program under another name.
  std::string copyOf(StringRef Program, StringRef Name) {
    Expected<std::string> Src = findProgram(Program);
    if (!Src) {
      ADD_FAILURE() << toString(Src.takeError());
      return "";
    }
    std::string P = path(Name);
    EXPECT_FALSE(sys::fs::copy_file(*Src, P));
    sys::fs::setPermissions(P, sys::fs::owner_all);
    return P;
  }
  std::string read(StringRef P) {
    Expected<std::string> T = readWholeFile(P);
    if (!T) {
      ADD_FAILURE() << toString(T.takeError());
      return "";
    }
    return *T;
  }

  std::string Dir;
};

TEST_F(ProcessFdTest, FileIsOnTheDescriptor) {
  std::string In = write("in.txt", "on descriptor 100\n");
  RunOptions RO;
  RO.FdFiles = {{100, In}};
  RO.Stdout = path("out.txt");
  Expected<RunResult> R = runProgram({"cat", "/dev/fd/100"}, RO);
  ASSERT_OK(R);
  EXPECT_EQ(R->ExitCode, 0);
  EXPECT_FALSE(R->Crashed);
  EXPECT_EQ(read(path("out.txt")), "on descriptor 100\n");
}

// The mapped file is what runs; argv[0] is passed on unchanged (cat shows
// its own argv through /proc/self/cmdline).
TEST_F(ProcessFdTest, ExecPathRunsTheMappedFileWithArgv0AsGiven) {
  std::string Cat = copyOf("cat", "renamed-cat");
  RunOptions RO;
  RO.FdFiles = {{100, Cat}};
  RO.ExecPath = "/dev/fd/100";
  RO.Stdout = path("out.txt");
  Expected<RunResult> R =
      runProgram({"any name at all", "/proc/self/cmdline"}, RO);
  ASSERT_OK(R);
  EXPECT_EQ(R->ExitCode, 0);
  EXPECT_EQ(read(path("out.txt")),
            std::string("any name at all\0/proc/self/cmdline\0", 35));
}

TEST_F(ProcessFdTest, ExitCodesAndEnvironment) {
  std::string False = copyOf("false", "f");
  RunOptions RO;
  RO.FdFiles = {{100, False}};
  RO.ExecPath = "/dev/fd/100";
  // argv[0] says "true": the exit code shows the mapped file ran.
  Expected<RunResult> R = runProgram({"true"}, RO);
  ASSERT_OK(R);
  EXPECT_EQ(R->ExitCode, 1);
  EXPECT_FALSE(R->Crashed);

  RunOptions E;
  E.FdFiles = {{100, copyOf("cat", "c")}};
  E.ExecPath = "/dev/fd/100";
  E.Env = std::vector<std::string>{"KEEL_A=1", "KEEL_B=two"};
  E.Stdout = path("env.txt");
  R = runProgram({"cat", "/proc/self/environ"}, E);
  ASSERT_OK(R);
  EXPECT_EQ(read(path("env.txt")), std::string("KEEL_A=1\0KEEL_B=two\0", 20));
}

// One file for stdout and stderr: both streams, in order, nothing lost.
TEST_F(ProcessFdTest, SameFileForStdoutAndStderr) {
  std::string In = write("in.txt", "first\n");
  RunOptions RO;
  RO.FdFiles = {{100, In}};
  RO.Stdout = RO.Stderr = path("log.txt");
  Expected<RunResult> R =
      runProgram({"cat", "/dev/fd/100", path("missing")}, RO);
  ASSERT_OK(R);
  EXPECT_EQ(R->ExitCode, 1);
  std::string Log = read(path("log.txt"));
  EXPECT_EQ(Log.rfind("first\n", 0), 0u) << Log;
  EXPECT_NE(Log.find("missing"), std::string::npos) << Log;
}

TEST_F(ProcessFdTest, TimeoutKillsTheChild) {
  RunOptions RO;
  RO.FdFiles = {{100, copyOf("sleep", "s")}};
  RO.ExecPath = "/dev/fd/100";
  RO.TimeoutSeconds = 1;
  Expected<RunResult> R = runProgram({"sleep", "30"}, RO);
  ASSERT_OK(R);
  EXPECT_TRUE(R->Crashed);
  EXPECT_EQ(R->ExitCode, -2);
  EXPECT_EQ(R->Message, "timed out after 1 s");

  // A quick program under a timeout finishes normally.
  RO.FdFiles = {{100, copyOf("true", "t")}};
  R = runProgram({"true"}, RO);
  ASSERT_OK(R);
  EXPECT_FALSE(R->Crashed);
  EXPECT_EQ(R->ExitCode, 0);
}

// Threads spawn at once, each with its own file on descriptor 100: the
// dup2 happens in each child, so none sees another's file.
TEST_F(ProcessFdTest, ParallelSpawnsSeeTheirOwnFile) {
  constexpr int Threads = 4, Runs = 8;
  std::vector<std::string> Ins;
  for (int T = 0; T < Threads; ++T)
    Ins.push_back(write(("in" + Twine(T)).str(), ("file " + Twine(T)).str()));
  std::vector<int> Good(Threads, 0);
  std::vector<std::thread> Pool;
  for (int T = 0; T < Threads; ++T)
    Pool.emplace_back([&, T] {
      for (int I = 0; I < Runs; ++I) {
        RunOptions RO;
        RO.FdFiles = {{100, Ins[T]}};
        std::string Out = path(("out" + Twine(T) + "-" + Twine(I)).str());
        RO.Stdout = Out;
        Expected<RunResult> R = runProgram({"cat", "/dev/fd/100"}, RO);
        if (!R) {
          consumeError(R.takeError());
          continue;
        }
        Expected<std::string> Text = readWholeFile(Out);
        if (Text && R->ExitCode == 0 && *Text == ("file " + Twine(T)).str())
          ++Good[T];
        else if (!Text)
          consumeError(Text.takeError());
      }
    });
  for (std::thread &T : Pool)
    T.join();
  for (int T = 0; T < Threads; ++T)
    EXPECT_EQ(Good[T], Runs) << "thread " << T;
}

TEST_F(ProcessFdTest, Errors) {
  RunOptions RO;
  RO.FdFiles = {{100, path("does-not-exist")}};
  EXPECT_NE(errorOf(runProgram({"true"}, RO)).find("cannot open"),
            std::string::npos);
  RO.FdFiles = {{1, write("x", "x")}};
  EXPECT_NE(errorOf(runProgram({"true"}, RO)).find("would replace stdin"),
            std::string::npos);
  // The mapped file is not executable: cannot run (an error, not an exit code).
  RO.FdFiles = {{100, write("data", "not a program")}};
  RO.ExecPath = "/dev/fd/100";
  EXPECT_NE(errorOf(runProgram({"true"}, RO)).find("cannot run"),
            std::string::npos);
}

} // namespace

// A signal under StopOnSignals kills the running child's process group (the
// shell's child too), starts no other, and is remembered; the process
// lives on. Death test: the handlers and the remembered signal stay in the
// child process the test forks.
TEST(StopOnSignalsDeathTest, SignalKillsChildrenAndIsRemembered) {
  EXPECT_EXIT(
      {
        StopOnSignals Stop;
        std::thread Killer([] {
          std::this_thread::sleep_for(std::chrono::milliseconds(300));
          ::kill(::getpid(), SIGTERM);
        });
        auto Start = std::chrono::steady_clock::now();
        Expected<RunResult> R = runProgram({"sh", "-c", "sleep 30; true"},
                                           RunOptions());
        double Took = std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - Start)
                          .count();
        Killer.join();
        bool Started = !!R;
        consumeError(R.takeError());
        Expected<RunResult> Again = runProgram({"true"}, RunOptions());
        bool Refused = !Again;
        consumeError(Again.takeError());
        // 0: as expected; else which check failed.
        std::exit(!Started ? 10 : Took > 20 ? 11 : stopSignal() != SIGTERM ? 12
                  : !Refused ? 13 : 0);
      },
      testing::ExitedWithCode(0), "");
}
