//===- keel/Support/Valgrind.h - the one way to start valgrind ---*- C++ -*-===//
//
// Every tool that runs a program under valgrind (callgrind for
// layout-record and layout-roofline, lackey for layout-lbrgen, cachegrind
// and keel-sim for layout-sweep) finds it, builds its argv and starts it
// here, so the launcher choice and the argv shape are written once.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_SUPPORT_VALGRIND_H
#define KEEL_SUPPORT_VALGRIND_H

#include "keel/Support/Process.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace keel {

/// Which valgrind executable starts the tool. The instruction counts of a
/// run depend on it (see findValgrind), so each caller keeps
/// the one it measured with.
enum class ValgrindLauncher {
  /// `valgrind` as found on PATH (Debian's is a sh script that sets
  /// environment variables and execs valgrind.bin).
  Script,
  /// valgrind.bin beside Debian's script when there is one (findValgrind):
  /// the program gets exactly the environment it is given.
  Binary,
};

/// One valgrind command: {valgrind, CoreOptions..., --tool=Tool,
/// ToolOptions..., ["--",] Program...}.
struct ValgrindCommand {
  std::string Tool;                     ///< "callgrind", "lackey", ...
  std::vector<std::string> CoreOptions; ///< before --tool= (e.g. "-q")
  std::vector<std::string> ToolOptions; ///< after --tool=
  /// Put "--" between the options and the program.
  bool Separator = false;
  std::vector<std::string> Program; ///< the program and its arguments
};

/// The valgrind executable for \p L. When none is found the error is an
/// UnavailableError: \p Missing when given, else findProgram's message.
///
/// Debian's `valgrind` is a shell script that execs `valgrind.bin`; the
/// shell exports PWD (and the script sets LD_LIBRARY_PATH=/usr/lib/debug and
/// GLIBCXX_FORCE_NEW/GLIBCPP_FORCE_NEW), so the measured program's
/// environment, and with it every stack address under valgrind, would depend
/// on the directory the tool was started from. With
/// ValgrindLauncher::Binary, when `valgrind` is such a script and
/// `valgrind.bin` sits beside it, the binary is returned. Only layout-sweep
/// uses it so far; layout-record, layout-lbrgen, layout-roofline and the
/// bench scripts still start the script (their counts include what it adds).
llvm::Expected<std::string> findValgrind(ValgrindLauncher L,
                                         llvm::StringRef Missing = "");

/// The argv that starts \p C with the valgrind executable \p Valgrind.
std::vector<std::string> valgrindArgv(llvm::StringRef Valgrind,
                                      const ValgrindCommand &C);

/// Run \p C with \p Valgrind (from findValgrind) and \p Opts through
/// runProgram. Not starting valgrind is an error; how the program ended is
/// in the result (each tool decides what a non-zero exit or a crash means
/// for it).
llvm::Expected<RunResult> runValgrind(llvm::StringRef Valgrind,
                                      const ValgrindCommand &C,
                                      const RunOptions &Opts = {});

} // namespace keel

#endif
