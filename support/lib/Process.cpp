//===- Process.cpp - spawn commands by argv -------------------------------===//
#include "keel/Support/Process.h"
#include "keel/Support/Diagnostics.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include "llvm/ADT/ScopeExit.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

using namespace llvm;

namespace keel {

#ifndef KEEL_LLVM_BINDIR
#define KEEL_LLVM_BINDIR "/usr/lib/llvm-22/bin"
#endif

//===----------------------------------------------------------------------===//
// Stopping on SIGINT/SIGTERM
//===----------------------------------------------------------------------===//

namespace {
/// The children (their process groups) running while a StopOnSignals
/// lives; 0 is a free slot. Plain atomics: the handler reads them.
constexpr size_t MaxChildren = 1024;
std::atomic<pid_t> Children[MaxChildren];
std::atomic<bool> StopActive{false};
volatile std::sig_atomic_t StopSig = 0;
struct sigaction OldInt, OldTerm;

void onStopSignal(int Sig) {
  if (StopSig) { // a second signal: the user insists
    ::signal(Sig, SIG_DFL);
    ::raise(Sig);
    return;
  }
  StopSig = Sig;
  for (std::atomic<pid_t> &C : Children)
    if (pid_t P = C.load())
      ::kill(-P, SIGKILL);
}

/// The slot of \p Pid (registered), or MaxChildren when every slot is
/// taken (the child is then only killed by its own terminal's signal).
size_t addChild(pid_t Pid) {
  for (size_t I = 0; I < MaxChildren; ++I) {
    pid_t Free = 0;
    if (Children[I].compare_exchange_strong(Free, Pid))
      return I;
  }
  return MaxChildren;
}
} // namespace

StopOnSignals::StopOnSignals() {
  StopSig = 0;
  struct sigaction SA;
  memset(&SA, 0, sizeof(SA));
  SA.sa_handler = onStopSignal;
  sigemptyset(&SA.sa_mask);
  ::sigaction(SIGINT, &SA, &OldInt);
  ::sigaction(SIGTERM, &SA, &OldTerm);
  StopActive = true;
}

StopOnSignals::~StopOnSignals() {
  StopActive = false;
  ::sigaction(SIGINT, &OldInt, nullptr);
  ::sigaction(SIGTERM, &OldTerm, nullptr);
}

int stopSignal() { return StopSig; }

std::string signalName(int Signal) {
  if (Signal == SIGINT)
    return "SIGINT";
  if (Signal == SIGTERM)
    return "SIGTERM";
  return formatv("signal {0}", Signal).str();
}

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

Expected<std::string> findCommand(StringRef Name) {
  Expected<std::string> P = findProgram(Name);
  if (P)
    return P;
  consumeError(P.takeError());
  if (Name.contains('/'))
    return inputError(Name, 0,
                      sys::fs::exists(Name) ? "not an executable file"
                                            : "no such program");
  return inputError(Name, 0, "no such program on PATH");
}

static double cpuSeconds(const std::optional<sys::ProcessStatistics> &S) {
  return S ? S->TotalTime.count() / 1e6 : 0;
}

namespace {
/// Closes the parent's copies of the descriptors handed to a child.
struct FdCloser {
  std::vector<int> Fds;
  ~FdCloser() {
    for (int F : Fds)
      ::close(F);
  }
};
} // namespace

/// Block until \p Pid has ended or \p Deadline passed, without reaping it;
/// true if it ended. A pidfd makes this one poll() (no sleep quantum that
/// would round a timed run's wall time); without pidfd_open, poll waitid.
static bool waitUntil(pid_t Pid,
                      std::chrono::steady_clock::time_point Deadline) {
  int PidFd = static_cast<int>(::syscall(SYS_pidfd_open, Pid, 0));
  auto ClosePidFd = make_scope_exit([&] {
    if (PidFd >= 0)
      ::close(PidFd);
  });
  while (true) {
    siginfo_t Info;
    memset(&Info, 0, sizeof(Info));
    if (::waitid(P_PID, Pid, &Info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
        Info.si_pid == Pid)
      return true;
    auto Now = std::chrono::steady_clock::now();
    if (Now >= Deadline)
      return false;
    auto Left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    Deadline - Now)
                    .count() +
                1;
    if (PidFd >= 0) {
      struct pollfd P = {PidFd, POLLIN, 0};
      ::poll(&P, 1, static_cast<int>(std::min<long long>(Left, 1 << 30)));
    } else {
      std::this_thread::sleep_for(
          std::chrono::milliseconds(std::min<long long>(Left, 20)));
    }
  }
}

/// Wait for \p Pid, killing it after \p TimeoutSeconds (0: never), and
/// collect its exit status and rusage.
static RunResult waitChild(pid_t Pid, unsigned TimeoutSeconds) {
  RunResult R;
  bool TimedOut =
      TimeoutSeconds &&
      !waitUntil(Pid, std::chrono::steady_clock::now() +
                          std::chrono::seconds(TimeoutSeconds));
  if (TimedOut)
    ::kill(Pid, SIGKILL); // not reaped yet, so the pid is still ours
  int Status = 0;
  struct rusage RU;
  memset(&RU, 0, sizeof(RU));
  while (::wait4(Pid, &Status, 0, &RU) < 0) {
    if (errno != EINTR) { // cannot happen for our own child
      R.ExitCode = -1;
      R.Crashed = true;
      R.Message = formatv("wait failed: {0}", strerror(errno)).str();
      return R;
    }
  }
  R.CpuSeconds = RU.ru_utime.tv_sec + RU.ru_utime.tv_usec / 1e6 +
                 RU.ru_stime.tv_sec + RU.ru_stime.tv_usec / 1e6;
  if (TimedOut) {
    R.ExitCode = -2;
    R.Crashed = true;
    R.Message = formatv("timed out after {0} s", TimeoutSeconds).str();
  } else if (WIFSIGNALED(Status)) {
    // The same values and wording as llvm::sys::Wait.
    R.ExitCode = -2;
    R.Crashed = true;
    R.Message = strsignal(WTERMSIG(Status));
#ifdef WCOREDUMP
    if (WCOREDUMP(Status))
      R.Message += " (core dumped)";
#endif
  } else {
    R.ExitCode = WIFEXITED(Status) ? WEXITSTATUS(Status) : -1;
  }
  return R;
}

/// runProgram with RunOptions::FdFiles / ExecPath. llvm::sys::ExecuteNoWait
/// has no way to put a file on a descriptor other than 0-2 in the child
/// only, so this is posix_spawn with file actions: open the redirections,
/// dup2 each FdFiles file (opened close-on-exec here) to its number.
static Expected<RunResult> spawnWithFds(StringRef Exe,
                                        ArrayRef<std::string> Argv,
                                        const RunOptions &Opts) {
  int MaxTarget = 2;
  for (const auto &[Fd, Path] : Opts.FdFiles) {
    if (Fd <= 2)
      return makeError("descriptor {0} for '{1}' would replace stdin, stdout "
                       "or stderr",
                       Fd, Path);
    MaxTarget = std::max(MaxTarget, Fd);
  }
  FdCloser Open;
  std::vector<int> Sources;
  for (const auto &[Fd, Path] : Opts.FdFiles) {
    int Src = ::open(Path.c_str(), O_RDONLY | O_CLOEXEC);
    if (Src < 0)
      return makeError("cannot open '{0}': {1}", Path, strerror(errno));
    Open.Fds.push_back(Src);
    if (Src <= MaxTarget) {
      // Keep sources clear of every target, so no dup2 overwrites a source
      // still to be duplicated (and none is its own target).
      int Moved = ::fcntl(Src, F_DUPFD_CLOEXEC, MaxTarget + 1);
      if (Moved < 0)
        return makeError("cannot duplicate the descriptor of '{0}': {1}", Path,
                         strerror(errno));
      Open.Fds.push_back(Moved);
      Src = Moved;
    }
    Sources.push_back(Src);
  }

  posix_spawn_file_actions_t FA;
  posix_spawn_file_actions_init(&FA);
  auto DestroyFA =
      make_scope_exit([&] { posix_spawn_file_actions_destroy(&FA); });
  auto Redirect = [&](int Target, const std::optional<std::string> &Path,
                      int Flags) {
    if (!Path)
      return 0;
    return posix_spawn_file_actions_addopen(
        &FA, Target, Path->empty() ? "/dev/null" : Path->c_str(), Flags, 0666);
  };
  // No O_TRUNC, as in LLVM's ExecuteNoWait: the open runs in the child and
  // counts in its CPU time, and truncating a file costs ~0.15 ms on this VM
  // (measured), which a timed run of a 1 ms program would include.
  int Err = Redirect(0, Opts.Stdin, O_RDONLY);
  if (!Err)
    Err = Redirect(1, Opts.Stdout, O_WRONLY | O_CREAT);
  if (!Err) {
    if (Opts.Stderr && Opts.Stdout && !Opts.Stderr->empty() &&
        *Opts.Stderr == *Opts.Stdout)
      Err = posix_spawn_file_actions_adddup2(&FA, 1, 2); // one file, one offset
    else
      Err = Redirect(2, Opts.Stderr, O_WRONLY | O_CREAT);
  }
  for (size_t I = 0; I < Sources.size() && !Err; ++I)
    Err = posix_spawn_file_actions_adddup2(&FA, Sources[I],
                                           Opts.FdFiles[I].first);
  if (Err)
    return makeError("cannot set up the descriptors of '{0}': {1}", Exe,
                     strerror(Err));

  posix_spawnattr_t Attr;
  posix_spawnattr_init(&Attr);
  auto DestroyAttr = make_scope_exit([&] { posix_spawnattr_destroy(&Attr); });
  sigset_t None;
  sigemptyset(&None);
  posix_spawnattr_setsigmask(&Attr, &None);
  // Under StopOnSignals every child leads a process group of its own, which
  // the handler kills with whatever the child started.
  bool OwnGroup = StopActive;
  if (OwnGroup)
    posix_spawnattr_setpgroup(&Attr, 0);
  posix_spawnattr_setflags(&Attr, POSIX_SPAWN_SETSIGMASK |
                                      (OwnGroup ? POSIX_SPAWN_SETPGROUP : 0));

  std::vector<char *> Args;
  for (const std::string &A : Argv)
    Args.push_back(const_cast<char *>(A.c_str()));
  Args.push_back(nullptr);
  std::vector<char *> Env;
  char **Envp = environ;
  if (Opts.Env) {
    for (const std::string &E : *Opts.Env)
      Env.push_back(const_cast<char *>(E.c_str()));
    Env.push_back(nullptr);
    Envp = Env.data();
  }
  std::string ExeStr = Exe.str();
  if (OwnGroup && StopSig)
    return makeError("stopped by {0}: '{1}' not started", signalName(StopSig),
                     Exe);
  pid_t Pid;
  Err = posix_spawn(&Pid, ExeStr.c_str(), &FA, &Attr, Args.data(), Envp);
  if (Err)
    return makeError("cannot run '{0}': {1}", Exe, strerror(Err));
  size_t Slot = OwnGroup ? addChild(Pid) : MaxChildren;
  auto Forget = make_scope_exit([&] {
    if (Slot < MaxChildren)
      Children[Slot] = 0;
  });
  if (OwnGroup && StopSig) // the signal came while it was being started
    ::kill(-Pid, SIGKILL);
  // The child has its own copies; close ours now, not after a long wait.
  for (int F : Open.Fds)
    ::close(F);
  Open.Fds.clear();
  return waitChild(Pid, Opts.TimeoutSeconds);
}

Expected<RunResult> runProgram(ArrayRef<std::string> Argv,
                               const RunOptions &Opts) {
  if (Argv.empty())
    return makeError("empty command");
  if (Opts.ExecPath || !Opts.FdFiles.empty() || StopActive) {
    if (Opts.ExecPath)
      return spawnWithFds(*Opts.ExecPath, Argv, Opts);
    auto Exe = findCommand(Argv[0]);
    if (!Exe)
      return Exe.takeError();
    return spawnWithFds(*Exe, Argv, Opts);
  }
  auto Exe = findCommand(Argv[0]);
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
  std::optional<sys::ProcessStatistics> Stat;
  if (Opts.TimeoutSeconds == 0) {
    R.ExitCode = sys::ExecuteAndWait(*Exe, Args, Env, Redirects,
                                     /*SecondsToWait=*/0, /*MemoryLimit=*/0,
                                     &R.Message, &ExecFailed, &Stat);
    if (ExecFailed)
      return makeError("cannot run '{0}': {1}", *Exe, R.Message);
    R.Crashed = R.ExitCode < 0;
    R.CpuSeconds = cpuSeconds(Stat);
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
    sys::ProcessInfo W = sys::Wait(PI, /*SecondsToWait=*/0, &Msg, &Stat);
    if (W.Pid == PI.Pid) { // finished
      R.ExitCode = W.ReturnCode;
      R.Message = Msg;
      R.Crashed = R.ExitCode < 0;
      R.CpuSeconds = cpuSeconds(Stat);
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

std::string shellQuote(StringRef Word) {
  std::string Out = "'";
  for (char C : Word) {
    if (C == '\'')
      Out += "'\\''";
    else
      Out += C;
  }
  return Out + "'";
}

std::string displayCommand(ArrayRef<std::string> Argv) {
  std::string Line;
  for (const std::string &W : Argv) {
    bool Plain = !W.empty() && StringRef(W).find_first_not_of(
                                   "abcdefghijklmnopqrstuvwxyz"
                                   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                   "_-./=:,+@%") == StringRef::npos;
    Line += (Line.empty() ? "" : " ") + (Plain ? W : shellQuote(W));
  }
  return Line;
}

} // namespace keel
