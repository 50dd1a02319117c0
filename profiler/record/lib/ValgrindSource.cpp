//===- ValgrindSource.cpp - layout-record --source=valgrind ---------------===//
//
// The PMU-free exact source: run the program under callgrind with jump
// collection and per-instruction costs, then read what it wrote with
// readCallgrind. Works on any machine valgrind runs on (no perf_event, no
// LBR) at roughly 20-50x slowdown.
//
//===----------------------------------------------------------------------===//
#include "keel/Record/Sources.h"

#include "keel/Profile/Binary.h"
#include "keel/Profile/Formats.h"
#include "keel/Support/OutputFile.h"
#include "keel/Support/Valgrind.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace keel {

/// The callgrind files in \p Dir (one per process), sorted by name.
static Expected<std::vector<std::string>> outputFiles(StringRef Dir) {
  std::vector<std::string> Files;
  std::error_code EC;
  for (sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC))
    if (sys::path::filename(It->path()).starts_with("callgrind.out."))
      Files.push_back(It->path());
  if (EC)
    return makeError("cannot list {0}: {1}", Dir, EC.message());
  llvm::sort(Files);
  return Files;
}

static void removeDir(StringRef Dir, ArrayRef<std::string> Files) {
  for (const std::string &F : Files)
    sys::fs::remove(F);
  sys::fs::remove(Dir);
}

Expected<Recording> recordWithValgrind(const RecordRequest &Req,
                                       const Binary &Bin,
                                       QualityReport &Quality) {
  auto Valgrind =
      findValgrind(ValgrindLauncher::Script,
                   "valgrind is not installed (apt-get install valgrind); "
                   "--source=valgrind needs it");
  if (!Valgrind)
    return Valgrind.takeError();
  auto Dir = makePrivateTempDir("layout-record");
  if (!Dir)
    return Dir.takeError();

  // --skip-plt=no: PLT stubs stay separate instead of being charged to
  // their call sites, so every instruction count belongs to its own place.
  ValgrindCommand C;
  C.CoreOptions = {"-q"};
  C.Tool = "callgrind";
  C.ToolOptions = {"--collect-jumps=yes", "--dump-instr=yes", "--skip-plt=no",
                   "--callgrind-out-file=" + *Dir + "/callgrind.out.%p"};
  C.Program = Req.Command;
  auto Run = runValgrind(*Valgrind, C);
  auto Files = outputFiles(*Dir);
  if (!Run || !Files) {
    removeDir(*Dir, Files ? *Files : std::vector<std::string>());
    return Run ? Files.takeError() : Run.takeError();
  }
  auto Cleanup = make_scope_exit([&] { removeDir(*Dir, *Files); });

  Recording Rec;
  Rec.ExitCode = Run->ExitCode;
  Rec.Crashed = Run->Crashed;
  Rec.CrashMessage = Run->Message;
  if (Files->empty())
    return makeError("callgrind wrote no profile (did valgrind start the "
                     "program? exit status {0})",
                     Run->ExitCode);

  // Forked children write their own files; merge them all. --keep-callgrind
  // gets them concatenated, which readCallgrind reads back as one profile.
  std::string Kept;
  for (const std::string &F : *Files) {
    auto Text = readWholeFile(F);
    if (!Text)
      return Text.takeError();
    auto AP = readCallgrind(*Text, F, Bin, Quality);
    if (!AP)
      return AP.takeError();
    Rec.Profile.merge(*AP);
    if (!Req.KeepRaw.empty())
      Kept += "# " + sys::path::filename(F).str() + "\n" + *Text;
  }
  if (!Req.KeepRaw.empty())
    if (Error E = writeOutput(Req.KeepRaw, [&](raw_ostream &OS) {
          OS << Kept;
          return Error::success();
        }))
      return std::move(E);
  Rec.Summary = formatv("callgrind: {0} process(es)", Files->size()).str();
  return std::move(Rec);
}

} // namespace keel
