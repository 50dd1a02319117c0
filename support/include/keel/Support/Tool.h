//===- keel/Support/Tool.h - what every Keel tool's main shares -*- C++ -*-===//
//
// The skeleton every tool's main is (runTool: InitLLVM, --help showing the
// tool's own options, --version, parsing, the exit-code table of
// Diagnostics.h), the project version (from project(VERSION) in CMake, so
// `--version` and the .deb never disagree), and where a
// tool finds the plugins and runtimes installed beside it: the build tree
// puts them in <build>/lib, `cmake --install` in <prefix>/lib/keel, and a
// tool looks relative to its own executable so both work without a path.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_SUPPORT_TOOL_H
#define KEEL_SUPPORT_TOOL_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace llvm::cl {
class OptionCategory;
} // namespace llvm::cl

namespace keel {

/// What runTool needs to know about a tool.
struct ToolInfo {
  llvm::StringRef Name;     ///< "layout-order": --version, error messages
  llvm::StringRef Overview; ///< --help's OVERVIEW text
  /// The option categories --help shows (cl::HideUnrelatedOptions).
  std::vector<const llvm::cl::OptionCategory *> Categories;
  /// false: no option parsing (a hidden mode with its own argv, such as
  /// layout-sweep --slurm-task), just InitLLVM and Run.
  bool ParseOptions = true;
};

/// The main of every Keel tool: InitLLVM, hide the options of other
/// categories, --version, parse the command line, then \p Run. The exit
/// status follows docs/conventions.md: bad usage (the command line does
/// not parse) is ExitBadInput; an error from \p Run is printed as
/// "<tool>: error: ..." and mapped by reportError (InputError and plain
/// errors ExitBadInput, UnavailableError ExitUnavailable); a value is the
/// exit status itself.
int runTool(int argc, char **argv, const ToolInfo &Info,
            llvm::function_ref<llvm::Expected<int>()> Run);

/// What cl::ParseCommandLineOptions wrote to its error stream (\p Said, its
/// lines starting "<Prog>: ") as one message in Keel's style, for
/// "<tool>: error: ...": the known forms reworded (a missing required
/// option -- all of them in one line --, an invalid value, an unknown
/// option with cl's suggestion unless that is -h or another option only cl
/// has, too few or too many arguments), anything else cl's first line
/// without its program name. \p Args: the words after argv[0], to tell
/// an unknown option before "--" that a command's options go after it.
/// \p Positional: the name of the missing positional argument ("<binary>";
/// "" unknown).
std::string optionErrorMessage(llvm::StringRef Said, llvm::StringRef Prog,
                               llvm::ArrayRef<const char *> Args,
                               llvm::StringRef Positional = "");

/// ExitOK when \p E is success, else \p E: for a Run whose work returns
/// llvm::Error (`return exitStatus(run());`).
llvm::Expected<int> exitStatus(llvm::Error E);

/// This build's version, e.g. "0.1.0".
llvm::StringRef keelVersion();

/// Make --version print "<Tool> (Keel) <version>" and the LLVM version the
/// tool was built against. Call before cl::ParseCommandLineOptions.
void setToolVersionPrinter(llvm::StringRef Tool);

/// Where Keel's plugins and runtimes are: <exe>/../lib/keel/<Name>
/// (installed) if it exists, else <exe>/../lib/<Name> (build tree), else the
/// installed path (so an error names where it belongs). \p MainAddr is the
/// address of any function in the tool (llvm::sys::fs::getMainExecutable).
std::string findKeelLibFile(const char *Argv0, void *MainAddr,
                            llvm::StringRef Name);

} // namespace keel

#endif
