//===- Valgrind.cpp - the one way to start valgrind -----------------------===//
#include "keel/Support/Valgrind.h"
#include "keel/Support/Diagnostics.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;

namespace keel {

Expected<std::string> findValgrind(ValgrindLauncher L, StringRef Missing) {
  Expected<std::string> V = findProgram("valgrind");
  if (!V) {
    if (Missing.empty())
      return V.takeError();
    consumeError(V.takeError());
    return make_error<UnavailableError>(Missing.str());
  }
  if (L == ValgrindLauncher::Script)
    return V;
  std::string Bin = *V + ".bin";
  if (!sys::fs::can_execute(Bin))
    return V;
  ErrorOr<std::unique_ptr<MemoryBuffer>> Head =
      MemoryBuffer::getFileSlice(*V, 2, 0);
  if (Head && (*Head)->getBuffer() == "#!")
    return Bin;
  return V;
}

std::vector<std::string> valgrindArgv(StringRef Valgrind,
                                      const ValgrindCommand &C) {
  std::vector<std::string> Argv = {Valgrind.str()};
  Argv.insert(Argv.end(), C.CoreOptions.begin(), C.CoreOptions.end());
  Argv.push_back("--tool=" + C.Tool);
  Argv.insert(Argv.end(), C.ToolOptions.begin(), C.ToolOptions.end());
  if (C.Separator)
    Argv.push_back("--");
  Argv.insert(Argv.end(), C.Program.begin(), C.Program.end());
  return Argv;
}

Expected<RunResult> runValgrind(StringRef Valgrind, const ValgrindCommand &C,
                                const RunOptions &Opts) {
  return runProgram(valgrindArgv(Valgrind, C), Opts);
}

} // namespace keel
