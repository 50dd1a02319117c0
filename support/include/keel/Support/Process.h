//===- keel/Support/Process.h - spawn commands by argv ----------*- C++ -*-===//
//
// Commands are always run with an argv vector (llvm::sys::ExecuteAndWait /
// ExecuteNoWait, or posix_spawn when files go on fixed descriptors or a
// StopOnSignals scope puts each child in a process group of its own), never
// through a shell string built from user input.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_SUPPORT_PROCESS_H
#define KEEL_SUPPORT_PROCESS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/Program.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace keel {

struct RunOptions {
  /// Full environment ("K=V"); std::nullopt inherits the parent's.
  std::optional<std::vector<std::string>> Env;
  /// Redirections; std::nullopt keeps the parent's stream, "" is /dev/null.
  std::optional<std::string> Stdin, Stdout, Stderr;
  unsigned TimeoutSeconds = 0; ///< 0: no limit
  /// Files the child gets on fixed descriptors: each is opened read-only
  /// (close-on-exec) in the parent and dup2'ed to its descriptor in the
  /// child only, so children spawned in parallel from other threads never
  /// see each other's files on the same number. Used to run a binary as
  /// "/dev/fd/N" (layout-sweep --exec-as=fd): every variant then sees the
  /// same path as argv[0] whatever file it is.
  std::vector<std::pair<int, std::string>> FdFiles;
  /// Execute this path instead of Argv[0] (which the program still gets as
  /// its argv[0] unchanged), e.g. "/dev/fd/100" with FdFiles {100, binary}.
  std::optional<std::string> ExecPath;
};

struct RunResult {
  int ExitCode = 0;     ///< exit status; -2 when killed by a signal/timeout
  bool Crashed = false; ///< ended by a signal (or timed out)
  std::string Message;  ///< what ExecuteAndWait said about a crash/timeout
  double CpuSeconds = 0; ///< the child's user + system CPU time, if known
};

/// Stopping a long run (a sweep) on SIGINT or SIGTERM. While a
/// StopOnSignals lives, those signals do not end the process: the handler
/// remembers the first one and kills (SIGKILL) the process group of every
/// child runProgram has running -- each is started in a group of its own
/// then, so a program's own children die with it -- and runProgram starts
/// no new child (an error). The caller sees stopSignal() and cleans up
/// (removes its temporary directory, keeps its journal), then exits
/// 128 + the signal. A second signal ends the process at once. Scopes do
/// not nest; the destructor restores the previous handlers.
class StopOnSignals {
public:
  StopOnSignals();
  ~StopOnSignals();
  StopOnSignals(const StopOnSignals &) = delete;
  StopOnSignals &operator=(const StopOnSignals &) = delete;
};

/// The signal that asked a StopOnSignals scope to stop (SIGINT, SIGTERM),
/// 0 if none did (or no scope was ever opened).
int stopSignal();

/// "SIGINT", "SIGTERM" (else "signal N").
std::string signalName(int Signal);

/// Find \p Name on PATH, then in LLVM's tool directory (for llvm-bolt etc.),
/// trying "<Name>-22" too. Error (UnavailableError) names what is missing.
llvm::Expected<std::string> findProgram(llvm::StringRef Name);

/// Find the user's command \p Name (a program to profile, a link, build or
/// relink command) as findProgram does; that it is missing is bad input
/// (an InputError naming it, exit 2), where a missing tool of Keel's own
/// (valgrind, perf, llvm-bolt) is the machine's lack (exit 3).
llvm::Expected<std::string> findCommand(llvm::StringRef Name);

/// Run Argv[0] (a path, or a name looked up with findCommand) and wait.
/// Failing to start the program is an error; a non-zero exit is not.
/// With Opts.FdFiles or Opts.ExecPath the child is started with posix_spawn
/// (LLVM's ExecuteNoWait can redirect only stdin/stdout/stderr).
llvm::Expected<RunResult> runProgram(llvm::ArrayRef<std::string> Argv,
                                     const RunOptions &Opts = {});

/// Split a command template into argv words without any shell: words are
/// separated by blanks; single and double quotes group; no expansion of any
/// kind ($, `, ;, |, globs are ordinary characters). Used for user templates
/// such as --relink and --executor.
llvm::Expected<std::vector<std::string>> splitCommandTemplate(llvm::StringRef T);

/// Quote \p Word for a POSIX shell ('...', with ' as '\'').
std::string shellQuote(llvm::StringRef Word);

/// \p Argv as one line a shell would split back into it: words with
/// characters a shell treats specially are single-quoted.
std::string displayCommand(llvm::ArrayRef<std::string> Argv);

} // namespace keel

#endif
