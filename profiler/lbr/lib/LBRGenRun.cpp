//===- LBRGenRun.cpp - layout-lbrgen's trace, processes and outputs -------===//
//
// The lackey trace (saved or run here), --processes and the writers of
// layout-lbrgen; the emulation itself is LBRGen.cpp.
//
//===----------------------------------------------------------------------===//
#include "keel/LBR/LBRGenRun.h"

#include "keel/Profile/Binary.h"
#include "keel/Record/SampleFile.h"
#include "keel/Support/Diagnostics.h"
#include "keel/Support/Input.h"
#include "keel/Support/OutputFile.h"
#include "keel/Support/Valgrind.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace keel {

void spreadOverProcesses(PerfRecording &R, unsigned N) {
  if (N <= 1 || R.Mappings.empty())
    return;
  const Mapping Bin = R.Mappings.front();
  const uint64_t Shift = 0x10000000;
  std::vector<Mapping> Maps;
  std::vector<TaskEvent> Tasks;
  for (unsigned K = 0; K < N; ++K) {
    uint32_t Pid = 1 + K;
    TaskEvent C;
    C.Kind = TaskEvent::Comm;
    C.Pid = C.Tid = Pid;
    C.Exec = true;
    C.Name = (sys::path::filename(Bin.Path) + "." + Twine(K)).str();
    Tasks.push_back(C);
    Mapping M = Bin;
    M.Pid = M.Tid = Pid;
    M.Start += K * Shift;
    Maps.push_back(M);
    Mapping Other;
    Other.Pid = Other.Tid = Pid;
    Other.Start = 0x7f0000000000ULL + K * 0x100000;
    Other.Length = 0x10000;
    Other.Prot = 5;
    Other.Path = "/usr/lib/keel-lbrgen/libother.so";
    Maps.push_back(Other);
  }
  R.Mappings = std::move(Maps);
  R.Tasks = std::move(Tasks);
  for (size_t I = 0; I < R.Samples.size(); ++I) {
    unsigned K = I % N;
    RawSample &S = R.Samples[I].Sample;
    S.Pid = S.Tid = 1 + K;
    auto Move = [&](uint64_t &A) {
      if (Bin.contains(A))
        A += K * Shift;
    };
    Move(S.IP);
    for (LBREntry &E : S.Stack) {
      Move(E.From);
      Move(E.To);
    }
  }
}

/// Run the program under lackey; returns the log's path.
static Expected<std::string> trace(const std::vector<std::string> &Command,
                                   StringRef Dir) {
  auto VG = findValgrind(ValgrindLauncher::Script);
  if (!VG)
    return VG.takeError();
  std::string Log = (Dir + "/lackey.log").str();
  ValgrindCommand C;
  C.Tool = "lackey";
  C.ToolOptions = {"--trace-mem=yes", "--log-file=" + Log};
  C.Program = Command;
  auto R = runValgrind(*VG, C);
  if (!R)
    return R.takeError();
  if (R->Crashed)
    return makeError("valgrind crashed: {0}", R->Message);
  return Log;
}

Expected<LBRGenResult> generateFromTrace(const LBRGenRunOptions &Opts,
                                         const Binary &Bin,
                                         const LBRGenOptions &O,
                                         QualityReport &Q) {
  const std::string &KeepTrace = Opts.KeepTrace;
  std::string Log = Opts.TracePath, Dir;
  auto Cleanup = [&] {
    if (!Dir.empty()) {
      sys::fs::remove_directories(Dir);
      Dir.clear();
    }
  };
  auto RemoveDir = make_scope_exit(Cleanup);
  if (Log.empty()) {
    auto D = makePrivateTempDir("keel-lbrgen");
    if (!D)
      return D.takeError();
    Dir = *D;
    auto L = trace(Opts.Command, Dir);
    if (!L)
      return L.takeError();
    Log = *L;
  }
  auto Buf = readInputFile(Log, InputKind::Profile, /*AllowStdin=*/false);
  if (!Buf) {
    Cleanup();
    return Buf.takeError();
  }
  auto R = generateLBRSamples((*Buf)->getBuffer(), Log, Bin, O, Q);
  if (R && !KeepTrace.empty()) {
    StringRef Text = (*Buf)->getBuffer();
    if (Error E = writeOutput(KeepTrace, [&](raw_ostream &OS) {
          OS << Text;
          return Error::success();
        })) {
      Cleanup();
      return std::move(E);
    }
  }
  Buf->reset();
  Cleanup();
  return R;
}

Error writeLBRGenOutputs(const LBRGenResult &R, const LBRGenOptions &O,
                         const LBRGenRunOptions &Opts) {
  const std::string &Output = Opts.Samples;
  const PerfDataWriteOptions &PDO = Opts.PerfDataOpts;
  auto WritePerfData = [&](StringRef Path) -> Error {
    if (Path.empty())
      return Error::success();
    return writeOutput(Path, [&](raw_ostream &OS) {
      return writePerfData(R.Recording, OS, PDO);
    });
  };
  if (StringRef(Output).ends_with("perf.data")) {
    if (Error E = WritePerfData(Output))
      return E;
  } else if (Error E = writeOutputIfNamed(Output, [&](raw_ostream &OS) {
               writeSampleFile(R.Recording, OS);
             })) {
    return E;
  }
  if (Error E = WritePerfData(Opts.PerfData))
    return E;
  if (Error E = writeOutputIfNamed(Opts.PerfScript, [&](raw_ostream &OS) {
        exportPerfScript(R.Recording, OS);
      }))
    return E;
  return writeOutputIfNamed(Opts.Truth,
               [&](raw_ostream &OS) { writeTruthJSON(R.Truth, O, OS); });
}

} // namespace keel
