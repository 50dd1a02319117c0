//===- RecorderTest.cpp - error messages, and recording where counters exist ===//
#include "keel/Record/Recorder.h"
#include "keel/Support/Diagnostics.h"
#include "keel/Support/PerfEvent.h"

#include "TestErrors.h"
#include "gtest/gtest.h"

#include <cerrno>
#include <set>

using namespace keel;
using keel::test::errText;

namespace {

std::string messageOf(const OpenFailure &F, bool &Unavailable) {
  std::string Msg;
  Unavailable = false;
  llvm::handleAllErrors(
      openFailureError(F),
      [&](const UnavailableError &U) {
        Unavailable = true;
        Msg = U.message();
      },
      [&](const llvm::ErrorInfoBase &E) { Msg = E.message(); });
  return Msg;
}

OpenFailure failure(int Errno) {
  OpenFailure F;
  F.Errno = Errno;
  F.Event = "cycles";
  F.BranchFilter = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER;
  F.Paranoid = 2;
  return F;
}

TEST(Recorder, NoPMU) {
  bool U;
  EXPECT_EQ(messageOf(failure(ENOENT), U),
            "no hardware performance counters: perf_event_open for 'cycles' "
            "failed (No such file or directory); virtual machines often have "
            "no PMU");
  EXPECT_TRUE(U);
}

TEST(Recorder, NoBranchStacks) {
  OpenFailure F = failure(EOPNOTSUPP);
  F.WorksWithoutBranchStack = true;
  bool U;
  EXPECT_EQ(messageOf(F, U),
            "no branch stacks: this PMU cannot sample 'cycles' with "
            "--lbr=any,user (Operation not supported); use a machine with "
            "Intel LBR or AMD BRS/LbrExtV2, or --lbr=none for samples without "
            "branches");
  EXPECT_TRUE(U);
  // If the event fails without the branch stack too, the PMU is missing.
  F.WorksWithoutBranchStack = false;
  EXPECT_EQ(messageOf(F, U).rfind("no hardware performance counters", 0), 0u);
}

TEST(Recorder, ParanoidTooStrictPrintsTheSysctl) {
  OpenFailure F = failure(EACCES);
  F.Paranoid = 3; // Debian's default
  bool U;
  EXPECT_EQ(messageOf(F, U),
            "perf_event_paranoid is 3, but sampling user code needs at most "
            "2: run 'sudo sysctl -w kernel.perf_event_paranoid=2' (or give "
            "this tool CAP_PERFMON)");
  EXPECT_TRUE(U);
  F.Errno = EPERM;
  F.Kernel = true;
  F.Paranoid = 2;
  EXPECT_EQ(messageOf(F, U),
            "perf_event_paranoid is 2, but sampling kernel code needs at most "
            "1: run 'sudo sysctl -w kernel.perf_event_paranoid=1' (or give "
            "this tool CAP_PERFMON)");
  // Denied although paranoid allows it: not the sysctl's fault.
  F.Paranoid = 0;
  EXPECT_NE(messageOf(F, U).find("a security policy"), std::string::npos);
  EXPECT_TRUE(U);
}

TEST(Recorder, OldKernelWithoutInheritedGroupReads) {
  OpenFailure F = failure(EINVAL);
  F.WorksWithoutInherit = true;
  bool U;
  EXPECT_NE(messageOf(F, U).find("--no-inherit"), std::string::npos);
  EXPECT_TRUE(U);
  F.WorksWithoutInherit = false;
  EXPECT_EQ(messageOf(F, U),
            "perf_event_open for 'cycles' failed: Invalid argument");
  EXPECT_FALSE(U);
}

TEST(Recorder, LiveLBRRecording) {
  if (!hardwareCountersAvailable())
    GTEST_SKIP() << "no hardware counters (perf_event_open for cycles fails)";
  RecordOptions O;
  O.Freq = 0;
  O.Period = 20000;
  llvm::Expected<RecordResult> R =
      record({"/bin/sh", "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done"},
             O);
  if (!R) {
    // Counters but no branch stacks (e.g. a VM with a vPMU but no LBR).
    std::string Msg = llvm::toString(R.takeError());
    if (Msg.rfind("no branch stacks", 0) == 0)
      GTEST_SKIP() << Msg;
    FAIL() << Msg;
  }
  EXPECT_EQ(R->ExitCode, 0);
  ASSERT_FALSE(R->Rec.Samples.empty());
  EXPECT_FALSE(R->Rec.Mappings.empty());
  uint64_t WithStack = 0, WithCPI = 0;
  for (const RecordedSample &S : R->Rec.Samples) {
    WithStack += !S.Sample.Stack.empty();
    WithCPI += S.Sample.Cycles && S.Sample.Instructions;
  }
  EXPECT_GT(WithStack, 0u);
  EXPECT_GT(WithCPI, 0u);
}

// The software clock samples without a PMU, so the whole recorder (fork,
// enable_on_exec, one ring per CPU, poll, drain, MMAP2/COMM parsing,
// waitpid) runs for real even on machines without counters.
TEST(Recorder, LiveSoftwareClock) {
  RecordOptions O;
  O.Event = "cpu-clock";
  O.LBR = "none";
  O.CyclesEvent = O.InstructionsEvent = "";
  O.Freq = 4000;
  // The shell loops, then a child shell loops too: inherit follows it.
  llvm::Expected<RecordResult> R = record(
      {"/bin/sh", "-c",
       "i=0; while [ $i -lt 60000 ]; do i=$((i+1)); done; "
       "/bin/sh -c 'j=0; while [ $j -lt 60000 ]; do j=$((j+1)); done'; "
       "exit 7"},
      O);
  if (!R) {
    // Kernels that cannot read groups of inherited events (< 6.12) or
    // sandboxes without perf_event_open.
    GTEST_SKIP() << llvm::toString(R.takeError());
  }
  EXPECT_EQ(R->ExitCode, 7);
  EXPECT_EQ(R->Signal, 0);
  const PerfRecording &Rec = R->Rec;
  ASSERT_FALSE(Rec.Samples.empty());
  EXPECT_EQ(Rec.Info.LBR, "none");
  // The shell's own text is mapped (PIE or not) and named by its exec.
  bool SawShell = false, SawExec = false;
  for (const Mapping &M : Rec.Mappings)
    SawShell |= llvm::StringRef(M.Path).ends_with("sh") && (M.Prot & 4);
  for (const TaskEvent &T : Rec.Tasks)
    SawExec |= T.Kind == TaskEvent::Comm && T.Exec;
  EXPECT_TRUE(SawShell);
  EXPECT_TRUE(SawExec);
  uint64_t Mapped = 0, Last = 0;
  for (const RecordedSample &S : Rec.Samples) {
    EXPECT_TRUE(S.Sample.Stack.empty());
    EXPECT_GE(S.Sample.Time, Last); // time order
    Last = S.Sample.Time;
    Mapped += Rec.mappingAt(S.Sample.Pid, S.Sample.IP, S.Sample.Time) != nullptr;
  }
  // Most samples of a shell loop are in user code that is mapped (the
  // child's through its own exec's mappings).
  EXPECT_GT(Mapped, Rec.Samples.size() / 2);
  std::set<uint32_t> Pids;
  for (const RecordedSample &S : Rec.Samples)
    Pids.insert(S.Sample.Pid);
  EXPECT_GE(Pids.size(), 2u) << "no samples of the child process";
  EXPECT_TRUE(llvm::any_of(Rec.Tasks, [](const TaskEvent &T) {
    return T.Kind == TaskEvent::Fork && T.Pid != T.PPid;
  }));
}

TEST(Recorder, MissingProgramIsAnError) {
  EXPECT_NE(errText(record({"/nonexistent/keel-no-such-program"}, {})), "");
}

TEST(Recorder, SaysWhatIsMissingHere) {
  if (hardwareCountersAvailable())
    GTEST_SKIP() << "this machine has counters";
  // The child is forked, the open fails, the child is released and reaped.
  llvm::Expected<RecordResult> R = record({"true"}, {});
  ASSERT_FALSE(bool(R));
  bool Unavailable = false;
  std::string Msg;
  llvm::handleAllErrors(R.takeError(),
                        [&](const UnavailableError &U) {
                          Unavailable = true;
                          Msg = U.message();
                        },
                        [&](const llvm::ErrorInfoBase &E) { Msg = E.message(); });
  EXPECT_TRUE(Unavailable) << Msg;
  EXPECT_FALSE(Msg.empty());
}

} // namespace
