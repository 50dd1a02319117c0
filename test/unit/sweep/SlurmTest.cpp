//===- SlurmTest.cpp - --executor=slurm option checks and quoting ---------===//
#include "keel/Sweep/Engine.h"
#include "keel/Sweep/Slurm.h"

#include <cstdlib>

#include "gtest/gtest.h"

using namespace keel;
using namespace keel::sweep;

namespace {

/// "" on success, else the message.
std::string message(llvm::Error E) {
  return E ? llvm::toString(std::move(E)) : std::string();
}

TEST(SlurmTest, ShellQuoteKeepsEveryByte) {
  EXPECT_EQ(shellQuote("/opt/keel/bin/layout-sweep"), "'/opt/keel/bin/layout-sweep'");
  EXPECT_EQ(shellQuote(""), "''");
  EXPECT_EQ(shellQuote("a b$(rm -rf x)`y`;z"), "'a b$(rm -rf x)`y`;z'");
  EXPECT_EQ(shellQuote("it's"), "'it'\\''s'");
}

EngineOptions slurmOptions(std::string Args) {
  EngineOptions O;
  O.Executor = ExecutorKind::Slurm;
  O.SlurmArgs = std::move(Args);
  return O;
}

TEST(SlurmTest, OptionChecks) {
  EXPECT_EQ(message(checkSlurmOptions(slurmOptions(""))), "");
  EXPECT_EQ(message(checkSlurmOptions(
                slurmOptions("--partition=p --time='1:00:00' -A acct"))),
            "");
  for (const char *Ours : {"--array=0-3", "-a", "-a0-3", "--wrap=true", "--parsable"})
    EXPECT_NE(message(checkSlurmOptions(slurmOptions(std::string("-p x ") + Ours)))
                  .find("is layout-sweep's to set"),
              std::string::npos)
        << Ours;
  EXPECT_NE(message(checkSlurmOptions(slurmOptions("--partition='open")))
                .find("--slurm-args"),
            std::string::npos);
  EngineOptions Time = slurmOptions("");
  Time.Backend = BackendKind::Time;
  EXPECT_NE(message(checkSlurmOptions(Time))
                .find("--executor=slurm measures with a simulating backend only (sim or cachegrind)"),
            std::string::npos);
}

TEST(SlurmTest, TaskOutsideAnArray) {
  unsetenv("SLURM_ARRAY_TASK_ID");
  EXPECT_NE(message(runSlurmTask("/nonexistent/tasks.json"))
                .find("SLURM_ARRAY_TASK_ID is not set"),
            std::string::npos);
}

} // namespace
