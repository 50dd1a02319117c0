//===- Executor.cpp - where a variant's command runs ----------------------===//
//
// Local runs, and the --executor template that hands each command to another
// program (ssh, srun) with its environment inside it. Slurm's array tasks run
// their commands the same way (Slurm.cpp).
//
//===----------------------------------------------------------------------===//
#include "keel/Sweep/Executor.h"

#include "keel/Support/Diagnostics.h"
#include "keel/Support/Process.h"
#include "keel/Support/Text.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace keel {
namespace sweep {

Error checkExecutorTemplate(StringRef T) {
  Expected<std::vector<std::string>> Words = splitCommandTemplate(T);
  if (!Words)
    return makeError("--executor: {0}", toString(Words.takeError()));
  if (!is_contained(*Words, "{cmd}"))
    return makeError("--executor template has no {{cmd} word (where the "
                     "variant's command goes): '{0}'",
                     T);
  return Error::success();
}

Expected<std::vector<std::string>>
wrapForExecutor(StringRef Executor, ArrayRef<std::string> Argv,
                ArrayRef<std::string> Env, StringRef Dir) {
  if (Executor.empty())
    return std::vector<std::string>(Argv.begin(), Argv.end());
  Expected<std::vector<std::string>> Words = splitCommandTemplate(Executor);
  if (!Words)
    return Words.takeError();
  std::vector<std::string> Out;
  for (const std::string &W : *Words) {
    if (W == "{cmd}") {
      // The environment travels inside the command, so a remote shell or a
      // scheduler sees exactly the variant's environment.
      Out.push_back("env");
      Out.push_back("-i");
      Out.insert(Out.end(), Env.begin(), Env.end());
      Out.insert(Out.end(), Argv.begin(), Argv.end());
      continue;
    }
    Out.push_back(substitutePlaceholders(W, {{"dir", Dir.str()}}));
  }
  return Out;
}

RunOutcome runVariantCommand(const ExecutorOptions &O, const PreparedVariant &P,
                             ArrayRef<std::string> Cmd, StringRef Stderr) {
  RunOutcome Out;
  Expected<std::vector<std::string>> Argv =
      wrapForExecutor(O.ExecutorTemplate, Cmd, P.Env, P.Dir);
  RunOptions RO;
  if (O.ExecutorTemplate.empty())
    RO.Env = P.Env; // else the executor gets ours and passes `env -i ...` on
  RO.Stdin = "";
  RO.Stdout = (Twine(P.Dir) + "/stdout").str();
  RO.Stderr = Stderr.str();
  RO.TimeoutSeconds = O.TimeoutSeconds;
  if (!P.ExecFile.empty()) // the command names VariantExecPath
    RO.FdFiles = {{VariantExecFd, P.ExecFile}};
  RO.FdFiles.insert(RO.FdFiles.end(), P.MoreFds.begin(), P.MoreFds.end());
  Expected<RunResult> R = Argv ? runProgram(*Argv, RO)
                               : Expected<RunResult>(Argv.takeError());
  if (!R) {
    Out.Failed = true;
    Out.Reason = "cannot run: " + toString(R.takeError());
    return Out;
  }
  if (R->Crashed || R->ExitCode != 0) {
    Out.Failed = true;
    if (!R->Crashed)
      Out.Reason = formatv("exit code {0}", R->ExitCode).str();
    else if (StringRef(R->Message).starts_with("timed out"))
      Out.Reason = R->Message; // --timeout
    else
      Out.Reason = formatv("crashed ({0})", R->Message).str();
    std::string Line = firstLineOf(Stderr);
    if (!Line.empty())
      Out.Reason += "; stderr: " + Line;
  }
  return Out;
}

/// --exec-as=fd: the binary goes on descriptor VariantExecFd and argv[0]
/// becomes \p Argv0, one string for every variant and series, so a program
/// that looks at its own path (hashes it, copies it to the stack) does the
/// same work in every variant.
void applyExecAs(const ExecutorOptions &O, PreparedVariant &P,
                 StringRef Argv0) {
  if (execAsMode(O) != "fd" || P.Argv.empty())
    return;
  P.ExecFile = P.Argv[0];
  P.Argv[0] = Argv0.str();
}

} // namespace sweep
} // namespace keel
