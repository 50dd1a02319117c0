//===- Process.cpp - spawn commands by argv -------------------------------===//
#include "keel/Support/Process.h"
#include "keel/Support/Diagnostics.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <chrono>
#include <csignal>
#include <thread>

using namespace llvm;

namespace keel {

#ifndef KEEL_LLVM_BINDIR
#define KEEL_LLVM_BINDIR "/usr/lib/llvm-22/bin"
#endif

Expected<std::string> findProgram(StringRef Name) {
  if (Name.contains('/')) {
    if (sys::fs::can_execute(Name))
      return Name.str();
    return make_error<UnavailableError>(
        formatv("'{0}' is not an executable file", Name).str());
  }
  for (std::string Candidate : {Name.str(), (Name + "-22").str()}) {
    if (auto P = sys::findProgramByName(Candidate))
      return *P;
    if (auto P = sys::findProgramByName(Candidate, {KEEL_LLVM_BINDIR}))
      return *P;
  }
  return make_error<UnavailableError>(
      formatv("'{0}' was not found on PATH or in " KEEL_LLVM_BINDIR, Name)
          .str());
}

Expected<RunResult> runProgram(ArrayRef<std::string> Argv,
                               const RunOptions &Opts) {
  if (Argv.empty())
    return makeError("empty command");
  auto Exe = findProgram(Argv[0]);
  if (!Exe)
    return Exe.takeError();
  std::vector<StringRef> Args(Argv.begin(), Argv.end());
  std::optional<std::vector<StringRef>> Env;
  if (Opts.Env)
    Env.emplace(Opts.Env->begin(), Opts.Env->end());
  std::optional<StringRef> Redirects[3];
  if (Opts.Stdin)
    Redirects[0] = StringRef(*Opts.Stdin);
  if (Opts.Stdout)
    Redirects[1] = StringRef(*Opts.Stdout);
  if (Opts.Stderr)
    Redirects[2] = StringRef(*Opts.Stderr);
  RunResult R;
  bool ExecFailed = false;
  if (Opts.TimeoutSeconds == 0) {
    R.ExitCode = sys::ExecuteAndWait(*Exe, Args, Env, Redirects,
                                     /*SecondsToWait=*/0, /*MemoryLimit=*/0,
                                     &R.Message, &ExecFailed);
    if (ExecFailed)
      return makeError("cannot run '{0}': {1}", *Exe, R.Message);
    R.Crashed = R.ExitCode < 0;
    return R;
  }
  // ExecuteAndWait's timeout is a SIGALRM that any thread may receive, so in
  // a multi-threaded caller (a sweep's thread pool) it never interrupts the
  // waiting thread. Poll instead, and kill the child at the deadline.
  sys::ProcessInfo PI = sys::ExecuteNoWait(*Exe, Args, Env, Redirects,
                                           /*MemoryLimit=*/0, &R.Message,
                                           &ExecFailed);
  if (ExecFailed)
    return makeError("cannot run '{0}': {1}", *Exe, R.Message);
  auto Deadline = std::chrono::steady_clock::now() +
                  std::chrono::seconds(Opts.TimeoutSeconds);
  while (true) {
    std::string Msg;
    sys::ProcessInfo W = sys::Wait(PI, /*SecondsToWait=*/0, &Msg);
    if (W.Pid == PI.Pid) { // finished
      R.ExitCode = W.ReturnCode;
      R.Message = Msg;
      R.Crashed = R.ExitCode < 0;
      return R;
    }
    if (std::chrono::steady_clock::now() >= Deadline) {
      ::kill(PI.Pid, SIGKILL);
      sys::Wait(PI, /*SecondsToWait=*/std::nullopt);
      R.ExitCode = -2;
      R.Crashed = true;
      R.Message = formatv("timed out after {0} s", Opts.TimeoutSeconds).str();
      return R;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

Expected<std::vector<std::string>> splitCommandTemplate(StringRef T) {
  std::vector<std::string> Words;
  std::string Cur;
  bool InWord = false;
  char Quote = 0;
  for (char C : T) {
    if (Quote) {
      if (C == Quote)
        Quote = 0;
      else
        Cur += C;
      continue;
    }
    if (C == '\'' || C == '"') {
      Quote = C;
      InWord = true;
      continue;
    }
    if (C == ' ' || C == '\t' || C == '\n') {
      if (InWord)
        Words.push_back(std::move(Cur));
      Cur.clear();
      InWord = false;
      continue;
    }
    Cur += C;
    InWord = true;
  }
  if (Quote)
    return makeError("unterminated {0} quote in command template: {1}",
                     Quote == '\'' ? "single" : "double", T);
  if (InWord)
    Words.push_back(std::move(Cur));
  if (Words.empty())
    return makeError("empty command template");
  return Words;
}

} // namespace keel
