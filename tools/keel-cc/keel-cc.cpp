//===- keel-cc.cpp - the compiler wrapper that records a build ------------===//
//
// keel-cc [--c++] ARGS...                     run $KEEL_CC_COMPILER (clang-22;
//                                             --c++: $KEEL_CXX_COMPILER,
//                                             clang++-22) with ARGS
// keel-cc [--log=FILE] -- COMPILER ARGS...    the launcher form (CMake's
//                                             <LANG>_COMPILER_LAUNCHER)
// keel-cc [--log=FILE] --plain -- CMD ARGS... log CMD, run it without the
//                                             profiling flags (an archiver;
//                                             a build recorded only to be
//                                             replayed with other flags)
//
// When a log is named (--log, else $KEEL_CC_LOG), the command (its working
// directory and argv, the compiler first) is appended to it as one JSON line
// (keel/Optimize/CommandLog.h), and the compiler runs with Keel's profiling
// flags after ARGS (function and data sections, the basic-block address
// map, DWARF 4, lld). Without a log it runs the compiler with ARGS alone.
// Either way the compiler replaces this process (exec, no shell): its exit
// status and output are the command's. Every other word goes to the
// compiler, so keel-cc has no --help of its own (`keel-cc --version` is the
// compiler's). layout-optimize sets CC to it (docs/optimize.md).
//
//===----------------------------------------------------------------------===//
#include "keel/Optimize/CommandLog.h"
#include "keel/Support/Diagnostics.h"
#include "keel/Support/Tool.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

using namespace llvm;
using namespace keel;
using namespace keel::optimize;

static const char *const Tool = "keel-cc";

static std::string envOr(const char *Name, const char *Default) {
  const char *V = std::getenv(Name);
  return V && *V ? V : Default;
}

static Expected<int> wrap(int Argc, char **Argv) {
  std::vector<std::string> Args(Argv + 1, Argv + Argc);
  std::string Log = envOr(LogEnv, "");
  std::string Compiler;
  size_t First = 0;
  bool Launcher = false;
  // The launcher form: options up to "--", then the compiler.
  for (size_t I = 0; I < Args.size(); ++I) {
    if (Args[I] == "--") {
      Launcher = true;
      First = I + 1;
      break;
    }
    if (!StringRef(Args[I]).starts_with("--log=") && Args[I] != "--plain")
      break;
  }
  bool Plain = false; // --plain: log the command, run it as it is
  if (Launcher) {
    for (size_t I = 0; I + 1 < First; ++I) {
      if (Args[I] == "--plain")
        Plain = true;
      else
        Log = StringRef(Args[I]).drop_front(6).str();
    }
    if (First >= Args.size())
      return usageError("no compiler after --: keel-cc --log=FILE -- "
                        "clang-22 ...");
    Compiler = Args[First++];
  } else if (!Args.empty() && Args[0] == "--c++") {
    Compiler = envOr("KEEL_CXX_COMPILER", "clang++-22");
    First = 1;
  } else {
    Compiler = envOr(CompilerEnv, "clang-22");
  }
  std::vector<std::string> Cmd = {Compiler};
  Cmd.insert(Cmd.end(), Args.begin() + First, Args.end());
  std::vector<std::string> Exec = Cmd;
  if (!Log.empty()) {
    RecordedCommand C;
    SmallString<256> Cwd;
    if (std::error_code EC = sys::fs::current_path(Cwd))
      return makeError("cannot read the working directory: {0}", EC.message());
    C.Cwd = Cwd.str().str();
    C.Argv = Cmd;
    if (Error E = appendCommand(Log, C))
      return std::move(E);
    if (!Plain)
      Exec.insert(Exec.end(), profilingFlags().begin(), profilingFlags().end());
  }
  std::vector<char *> CArgv;
  for (std::string &S : Exec)
    CArgv.push_back(S.data());
  CArgv.push_back(nullptr);
  ::execvp(CArgv[0], CArgv.data());
  // A compiler that is not there is a missing program: bad input, exit 2,
  // as for every tool's command.
  return inputError(Compiler, 0, "cannot run the compiler: {0} (set {1} to "
                    "the clang to use)", std::strerror(errno), CompilerEnv);
}

int main(int argc, char **argv) {
  return runTool(argc, argv, {Tool, "", {}, /*ParseOptions=*/false},
                 [&] { return wrap(argc, argv); });
}
