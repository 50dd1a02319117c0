//===- keel/Sweep/Executor.h - where a command runs -------------*- C++ -*-===//
//
// A variant's command runs here (with its environment and descriptors), or
// through an --executor template (ssh, srun: the environment travels inside
// the command as `env -i ...`), or in a Slurm job array (Slurm.h). One
// RunOutcome says how a run ended, the same for all of them.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_SWEEP_EXECUTOR_H
#define KEEL_SWEEP_EXECUTOR_H

#include "keel/Sweep/EngineOptions.h"
#include "keel/Sweep/Perturb.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace keel {
namespace sweep {

/// Check an --executor template: it must contain the word {cmd}.
llvm::Error checkExecutorTemplate(llvm::StringRef T);

/// Wrap a command for --executor: every word "{cmd}" becomes
/// `env -i ENV... ARGV...` (so the environment travels with the command),
/// "{dir}" the variant's directory. Without an executor, returns Argv.
llvm::Expected<std::vector<std::string>>
wrapForExecutor(llvm::StringRef Executor, llvm::ArrayRef<std::string> Argv,
                llvm::ArrayRef<std::string> Env, llvm::StringRef Dir);

/// What one run of a variant's command produced.
struct RunOutcome {
  bool Failed = false;
  std::string Reason;
};

/// Run \p Cmd for \p P (through O's executor template, if any) in \p P's
/// directory, its stdout in P.Dir/stdout and its stderr in \p Stderr; a
/// non-zero exit, a crash or a timeout is a failed outcome with its reason
/// (and the first line of stderr).
RunOutcome runVariantCommand(const ExecutorOptions &O, const PreparedVariant &P,
                             llvm::ArrayRef<std::string> Cmd,
                             llvm::StringRef Stderr);

/// --exec-as=fd: the binary goes on descriptor VariantExecFd and argv[0]
/// becomes \p Argv0, one string for every variant and series, so a program
/// that looks at its own path (hashes it, copies it to the stack) does the
/// same work in every variant.
void applyExecAs(const ExecutorOptions &O, PreparedVariant &P,
                 llvm::StringRef Argv0);

} // namespace sweep
} // namespace keel

#endif
