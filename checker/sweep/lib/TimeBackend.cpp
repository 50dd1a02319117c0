//===- TimeBackend.cpp - interleaved, shuffled, pinned timing -------------===//
//
// measure() reads top to bottom: make the A/A copies, pin the CPU, run the
// warm-up rounds, run the measured rounds (each in its own shuffled order),
// then turn the samples into medians with bootstrap intervals.
//
//===----------------------------------------------------------------------===//
#include "keel/Sweep/TimeBackend.h"
#include "keel/Sweep/Perturb.h"

#include "keel/Support/Diagnostics.h"
#include "keel/Support/OutputFile.h"
#include "keel/Support/Process.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <chrono>
#include <sched.h>

using namespace llvm;

namespace keel {
namespace sweep {

std::vector<size_t> roundOrder(size_t N, uint64_t Seed, unsigned Round) {
  std::vector<size_t> Order(N);
  for (size_t I = 0; I < N; ++I)
    Order[I] = I;
  Rng R(Seed ^ (0x9e3779b97f4a7c15ULL * (Round + 1)));
  for (size_t I = N; I > 1; --I)
    std::swap(Order[I - 1], Order[R.below(I)]);
  return Order;
}

std::optional<std::string> sameLengthCopyPath(StringRef Dir, unsigned Index,
                                              size_t Len) {
  std::string P = (Dir + "/aa" + Twine(Index)).str();
  if (P.size() > Len)
    return std::nullopt;
  P.append(Len - P.size(), '_');
  return P;
}

namespace {

/// Pins the calling thread (and so every child it spawns, which inherits the
/// mask across posix_spawn/exec) to one CPU; restores the old mask on exit.
class CpuPin {
public:
  CpuPin(int Want, std::vector<std::string> &Notes) {
    if (Want == -2 || sched_getaffinity(0, sizeof(Old), &Old) != 0)
      return;
    int Cpu = Want;
    if (Cpu == -1)
      for (int C = CPU_SETSIZE - 1; C >= 0; --C)
        if (CPU_ISSET(C, &Old)) {
          Cpu = C;
          break;
        }
    cpu_set_t One;
    CPU_ZERO(&One);
    if (Cpu >= 0 && Cpu < CPU_SETSIZE)
      CPU_SET(Cpu, &One);
    if (Cpu < 0 || sched_setaffinity(0, sizeof(One), &One) != 0) {
      Notes.push_back(formatv("could not pin to CPU {0}: timing unpinned", Cpu));
      return;
    }
    Pinned = Cpu;
  }
  ~CpuPin() {
    if (Pinned >= 0)
      sched_setaffinity(0, sizeof(Old), &Old);
  }
  int cpu() const { return Pinned; }

private:
  cpu_set_t Old;
  int Pinned = -1;
};

/// One command of the schedule (a variant or an A/A copy) and its samples.
struct Job {
  TimedCommand Cmd;
  std::string Exe, Out, Err;
  bool IsCopy = false;
  bool Failed = false;
  std::string FailReason;
  std::vector<double> Cpu, Wall;
};

/// Run a job once; record its times unless it fails.
Error runOnce(Job &J, const TimeOptions &O, bool Record) {
  std::vector<StringRef> Args(J.Cmd.Argv.begin(), J.Cmd.Argv.end());
  std::optional<std::vector<StringRef>> Env;
  if (J.Cmd.Env)
    Env.emplace(J.Cmd.Env->begin(), J.Cmd.Env->end());
  // stdout/stderr go to files in every variant: libc buffers differently for
  // a pipe or a terminal, and output must not cost differently per variant.
  std::optional<StringRef> Redirects[3] = {StringRef(""), StringRef(J.Out),
                                           StringRef(J.Err)};
  std::string Msg;
  bool ExecFailed = false;
  std::optional<sys::ProcessStatistics> Stat;
  int Code;
  double Wall;
  if (!J.Cmd.ExecFile.empty()) {
    // --exec-as=fd: the binary on a fixed descriptor, executed as
    // /dev/fd/N; LLVM's ExecuteAndWait cannot map descriptors (Process.h).
    RunOptions RO;
    RO.Env = J.Cmd.Env;
    RO.Stdin = "";
    RO.Stdout = J.Out;
    RO.Stderr = J.Err;
    RO.TimeoutSeconds = O.TimeoutSeconds;
    RO.FdFiles = {{VariantExecFd, J.Cmd.ExecFile}};
    RO.ExecPath = VariantExecPath;
    auto Start = std::chrono::steady_clock::now();
    Expected<RunResult> R = runProgram(J.Cmd.Argv, RO);
    Wall = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         Start)
               .count();
    if (!R)
      return R.takeError();
    Code = R->ExitCode;
    Msg = R->Message;
    if (R->Crashed && Code >= 0)
      Code = -1;
    Stat = sys::ProcessStatistics{
        std::chrono::microseconds(int64_t(R->CpuSeconds * 1e6)),
        std::chrono::microseconds(0), 0};
  } else {
    auto Start = std::chrono::steady_clock::now();
    Code = sys::ExecuteAndWait(J.Exe, Args, Env, Redirects, O.TimeoutSeconds, 0,
                               &Msg, &ExecFailed, &Stat);
    Wall = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         Start)
               .count();
    if (ExecFailed)
      return makeError("cannot run '{0}': {1}", J.Exe, Msg);
  }
  if (Code != 0) {
    J.Failed = true;
    J.FailReason = Code < 0 ? (Msg.empty() ? "killed" : Msg)
                            : formatv("exit code {0}", Code).str();
    return Error::success();
  }
  if (Record) {
    J.Wall.push_back(Wall);
    J.Cpu.push_back(Stat ? Stat->TotalTime.count() / 1e6 : Wall);
  }
  return Error::success();
}

/// \p Normalized: this job's samples with the round-to-round drift removed
/// (normalizeByRound over every job); the cost and its interval use them,
/// Samples keeps the raw values.
Measurement toMeasurement(const Job &J, ArrayRef<double> Normalized,
                          const TimeOptions &O) {
  Measurement M;
  M.V = J.Cmd.V;
  if (J.Failed) {
    M.Failed = true;
    M.FailReason = J.FailReason;
    return M;
  }
  M.Samples = O.Metric == TimeOptions::CPUTime ? J.Cpu : J.Wall;
  M.Cost = median(Normalized);
  if (auto CI = bootstrapMedianCI(Normalized, O.Confidence, O.Resamples, O.Seed)) {
    M.Counters["median_ci_low"] = CI->Low;
    M.Counters["median_ci_high"] = CI->High;
  }
  M.Counters["cpu_s"] = median(J.Cpu);
  M.Counters["wall_s"] = median(J.Wall);
  return M;
}

/// Copy the baseline binary AACopies times to paths as long as the variants'.
Expected<std::vector<Job>> makeCopies(ArrayRef<TimedCommand> Variants,
                                      const TimedCommand &Baseline,
                                      StringRef WorkDir, unsigned Copies) {
  std::vector<Job> Jobs;
  if (Baseline.Argv.empty())
    return makeError("the baseline command is empty");
  // With ExecFile the binary runs as /dev/fd/N and the path is not seen by
  // the program; the copies still get same-length paths.
  auto BinaryOf = [](const TimedCommand &C) -> const std::string & {
    return C.ExecFile.empty() ? C.Argv[0] : C.ExecFile;
  };
  const std::string &Bin = BinaryOf(Baseline);
  size_t Len = Variants.empty() || Variants[0].Argv.empty()
                   ? Bin.size()
                   : BinaryOf(Variants[0]).size();
  for (unsigned I = 0; I < Copies; ++I) {
    // Prefer the work directory; else beside the variant (shorter prefix).
    std::optional<std::string> P = sameLengthCopyPath(WorkDir, I, Len);
    if (!P) {
      StringRef Like =
          Variants.empty() ? StringRef(Bin) : StringRef(BinaryOf(Variants[0]));
      P = sameLengthCopyPath(sys::path::parent_path(Like).empty()
                                 ? StringRef(".")
                                 : sys::path::parent_path(Like),
                             I, Len);
    }
    if (!P)
      return makeError("cannot make an A/A copy of '{0}' with a path of {1} "
                       "characters: use a longer variant path",
                       Bin, Len);
    if (std::error_code EC = sys::fs::copy_file(Bin, *P))
      return makeError("cannot copy '{0}' to '{1}': {2}", Bin, *P, EC.message());
    sys::fs::setPermissions(*P, sys::fs::owner_all);
    Job J;
    J.IsCopy = true;
    J.Cmd = Baseline;
    if (!J.Cmd.ExecFile.empty())
      J.Cmd.ExecFile = *P; // argv stays: every copy sees the same argv[0]
    else
      for (std::string &W : J.Cmd.Argv)
        if (W == Bin)
          W = *P;
    J.Cmd.V = Variant{Baseline.V.Series, "aa", int64_t(I)};
    Jobs.push_back(std::move(J));
  }
  return Jobs;
}

} // namespace

Expected<TimeResult> TimeBackend::measure(ArrayRef<TimedCommand> Variants,
                                          const TimedCommand &Baseline) {
  if (Variants.empty())
    return makeError("time backend: no variants to measure");
  std::string Work = Opts.WorkDir;
  bool OwnDir = Work.empty();
  if (OwnDir) {
    auto D = makePrivateTempDir("keel-time");
    if (!D)
      return D.takeError();
    Work = *D;
  } else if (std::error_code EC = sys::fs::create_directories(Work)) {
    return makeError("cannot create '{0}': {1}", Work, EC.message());
  }
  // Remove the copies (and our own directory) however we leave.
  std::vector<std::string> ToRemove;
  auto Cleanup = make_scope_exit([&] {
    for (const std::string &F : ToRemove)
      sys::fs::remove(F);
    if (OwnDir)
      sys::fs::remove_directories(Work);
  });

  // 1. The schedule: variants first, then the A/A copies.
  std::vector<Job> Jobs;
  for (const TimedCommand &C : Variants) {
    if (C.Argv.empty())
      return makeError("time backend: empty command for {0}", C.V.key());
    Job J;
    J.Cmd = C;
    Jobs.push_back(std::move(J));
  }
  auto Copies = makeCopies(Variants, Baseline, Work, Opts.AACopies);
  if (!Copies)
    return Copies.takeError();
  for (Job &J : *Copies) {
    ToRemove.push_back(J.Cmd.ExecFile.empty() ? J.Cmd.Argv[0] : J.Cmd.ExecFile);
    Jobs.push_back(std::move(J));
  }
  for (size_t I = 0; I < Jobs.size(); ++I) {
    const TimedCommand &C = Jobs[I].Cmd;
    auto Exe = findCommand(C.ExecFile.empty() ? C.Argv[0] : C.ExecFile);
    if (!Exe)
      return Exe.takeError();
    Jobs[I].Exe = *Exe;
    Jobs[I].Out = (Work + "/out" + Twine(I) + ".txt").str();
    Jobs[I].Err = (Work + "/err" + Twine(I) + ".txt").str();
    ToRemove.push_back(Jobs[I].Out);
    ToRemove.push_back(Jobs[I].Err);
  }

  // 2. Pin, warm up, then the measured rounds, each in a fresh order.
  TimeResult Res;
  CpuPin Pin(Opts.Cpu, Res.Notes);
  Res.PinnedCpu = Pin.cpu();
  size_t Total = size_t(Opts.Warmup + Opts.Rounds) * Jobs.size(), Done = 0;
  for (unsigned Round = 0; Round < Opts.Warmup + Opts.Rounds; ++Round) {
    bool Record = Round >= Opts.Warmup;
    for (size_t I : roundOrder(Jobs.size(), Opts.Seed, Round)) {
      if (!Jobs[I].Failed)
        if (Error E = runOnce(Jobs[I], Opts, Record))
          return std::move(E);
      if (Opts.Progress)
        Opts.Progress(++Done, Total);
    }
  }

  // 3. Medians and intervals, after removing what each round shared.
  std::vector<std::vector<double>> Raw;
  for (const Job &J : Jobs)
    Raw.push_back(J.Failed ? std::vector<double>{}
                  : Opts.Metric == TimeOptions::CPUTime ? J.Cpu
                                                        : J.Wall);
  std::vector<std::vector<double>> Norm = normalizeByRound(Raw);
  for (size_t I = 0; I < Jobs.size(); ++I)
    (Jobs[I].IsCopy ? Res.NoiseFloor : Res.Ms)
        .push_back(toMeasurement(Jobs[I], Norm[I], Opts));
  return Res;
}

} // namespace sweep
} // namespace keel
