//===- layout-link.cpp - run a link and record how it was done ------------===//
//
// layout-link [--record=FILE] -- LINK COMMAND...
//
// Runs LINK COMMAND (argv, no shell) with the terminal's streams. When it
// exits 0 and wrote its output (the word after -o, else a.out), saves the
// command (its @response files expanded), the working directory and the
// output's SHA-1 in
// <output>.keel-link.json (or FILE), written to a temporary name and renamed
// (keel/LinkRecord/LinkRecord.h). The exit status is the link's own. A later
// `layout-sweep ./output` with no options relinks variants from this record
// on the code and data axes. CMake: keel_layout() sets it as the target's
// C/CXX_LINKER_LAUNCHER.
//
//===----------------------------------------------------------------------===//
#include "keel/LinkRecord/LinkRecord.h"
#include "keel/Support/Diagnostics.h"
#include "keel/Support/Process.h"
#include "keel/Support/Tool.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;
using namespace keel;
using namespace keel::sweep;

static const char *const Tool = "layout-link";

namespace {
cl::OptionCategory Cat("layout-link options");
cl::list<std::string> Command(cl::Positional, cl::desc("-- <link command>..."),
                              cl::cat(Cat));
cl::opt<std::string> RecordPath(
    "record",
    cl::desc("where to write the link record (default: <output>.keel-link.json)"),
    cl::value_desc("file"), cl::cat(Cat));
/// The words after "--" as given, before the option parser expanded their
/// @files (it expands every @file it sees): the record names the files.
std::vector<std::string> RawCommand;
} // namespace

/// Run the link command and record it.
static Expected<int> linkAndRecord() {
  if (Command.empty()) {
    WithColor::error(errs(), Tool)
        << "no link command; usage: layout-link -- clang-22 ... -o app\n";
    return ExitBadInput;
  }
  SmallString<256> Cwd;
  if (std::error_code EC = sys::fs::current_path(Cwd)) {
    WithColor::error(errs(), Tool) << "cannot read the working directory: "
                                   << EC.message() << "\n";
    return ExitBadInput;
  }
  // The command with its @files expanded as clang and ld.lld expand them:
  // what runs is what is recorded, and the record names the -o, -T and
  // --defsym words inside them.
  LinkRecord Rec;
  std::vector<std::string> Argv(Command.begin(), Command.end());
  if (!RawCommand.empty()) {
    Expected<std::vector<std::string>> Words =
        expandResponseFiles(RawCommand, Cwd, Rec.ResponseFiles);
    if (!Words)
      return Words.takeError();
    Argv = std::move(*Words);
  }
  Expected<RunResult> R = runProgram(Argv, RunOptions());
  if (!R) // the command could not start: not found is bad input (exit 2)
    return R.takeError();
  if (R->Crashed) {
    WithColor::error(errs(), Tool) << Argv.front() << ": " << R->Message << "\n";
    return ExitCheckFailed;
  }
  if (R->ExitCode != 0)
    return R->ExitCode; // the linker said why; nothing recorded

  Rec.Cwd = Cwd.str().str();
  Rec.Argv = Argv;
  Rec.Output = linkOutput(Rec.Argv);
  if (!sys::fs::exists(Rec.Output)) {
    WithColor::warning(errs(), Tool)
        << "the link wrote no " << Rec.Output << "; nothing recorded\n";
    return ExitOK;
  }
  Expected<std::string> Sha = fileSHA1(Rec.Output);
  if (!Sha)
    return Sha.takeError();
  Rec.SHA1 = *Sha;
  std::string Path = RecordPath.empty() ? linkRecordPath(Rec.Output) : RecordPath.getValue();
  if (Error E = writeLinkRecord(Path, Rec))
    return std::move(E);
  return ExitOK;
}

static const char *const Overview =
    "layout-link: run a link command and record it for layout-sweep\n\n"
    "  layout-link -- clang-22 -fuse-ld=lld main.o util.o -o app\n"
    "  layout-sweep ./app        # now also sweeps the code and data axes\n\n"
    "Runs the command (no shell) and, when it succeeds, saves the command,\n"
    "its working directory and the output's SHA-1 in <output>.keel-link.json\n"
    "(@response files expanded, as clang and ld.lld read them),\n"
    "so a bare `layout-sweep ./app` can relink the program with a pad object\n"
    "(or --defsym=__keel_code_pad / __keel_data_pad when it is linked with a\n"
    "Keel layout.ld). CMake: keel_layout() uses it as the linker launcher.\n\n"
    "Exit: the link command's own status; 2 bad usage or no such command.\n";

int main(int argc, char **argv) {
  for (int I = 1; I < argc; ++I)
    if (StringRef(argv[I]) == "--") {
      RawCommand.assign(argv + I + 1, argv + argc);
      break;
    }
  return runTool(argc, argv, {Tool, Overview, {&Cat}}, linkAndRecord);
}
