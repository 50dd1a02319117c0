//===- layout-link.cpp - run a link and record how it was done ------------===//
//
// layout-link [--record=FILE] -- LINK COMMAND...
//
// Runs LINK COMMAND (argv, no shell) with the terminal's streams. When it
// exits 0 and wrote its output (the word after -o, else a.out), saves the
// command (its @response files expanded), the working directory and the
// output's SHA-1 in
// <output>.keel-link.json (or FILE), written to a temporary name and renamed
// (keel/Sweep/LinkRecord.h). The exit status is the link's own. A later
// `layout-sweep ./output` with no options relinks variants from this record
// on the code and data axes. CMake: keel_layout() sets it as the target's
// C/CXX_LINKER_LAUNCHER.
//
//===----------------------------------------------------------------------===//
#include "keel/Support/Diagnostics.h"
#include "keel/Support/Process.h"
#include "keel/Support/Tool.h"
#include "keel/Sweep/LinkRecord.h"

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
} // namespace

/// Run the link command and record it.
static Expected<int> linkAndRecord() {
  if (Command.empty()) {
    WithColor::error(errs(), Tool)
        << "no link command; usage: layout-link -- clang-22 ... -o app\n";
    return ExitBadInput;
  }
  std::vector<std::string> Argv(Command.begin(), Command.end());
  Expected<RunResult> R = runProgram(Argv, RunOptions());
  if (!R) // the command could not start (not found)
    return make_error<UnavailableError>(toString(R.takeError()));
  if (R->Crashed) {
    WithColor::error(errs(), Tool) << Argv.front() << ": " << R->Message << "\n";
    return ExitCheckFailed;
  }
  if (R->ExitCode != 0)
    return R->ExitCode; // the linker said why; nothing recorded

  LinkRecord Rec;
  SmallString<256> Cwd;
  if (std::error_code EC = sys::fs::current_path(Cwd)) {
    WithColor::error(errs(), Tool) << "cannot read the working directory: "
                                   << EC.message() << "\n";
    return ExitBadInput;
  }
  Rec.Cwd = Cwd.str().str();
  // @files expanded: the -o, -T and --defsym words inside them are the
  // record's, and the record stays true when the file is rewritten.
  Expected<std::vector<std::string>> Words =
      expandResponseFiles(Argv, Rec.Cwd, Rec.ResponseFiles);
  if (!Words)
    return Words.takeError();
  Rec.Argv = std::move(*Words);
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
    "its working directory and the output's SHA-1 in <output>.keel-link.json,\n"
    "so a bare `layout-sweep ./app` can relink the program with a pad object\n"
    "(or --defsym=__keel_code_pad / __keel_data_pad when it is linked with a\n"
    "Keel layout.ld). CMake: keel_layout() uses it as the linker launcher.\n\n"
    "Exit: the link command's own status; 2 bad usage; 3 no such command.\n";

int main(int argc, char **argv) {
  return runTool(argc, argv, {Tool, Overview, {&Cat}}, linkAndRecord);
}
