//===- layout-lbrgen.cpp - LBR samples with ground truth, without LBR -----===//
//
//   layout-lbrgen [--trace=LOG] [--binary=B] -o SAMPLES [--perf-script=F]
//                 [--perf-data=F [--pipe] [--hw-index] [--compress=L]]
//                 [--processes=N]
//                 [--truth=T] [--lbr=any|call,return|user-callret]
//                 [--depth=16|32]
//                 [--period=N] [--cpi=X] [--function-cpi=f=X,...]
//                 [--taken-penalty=C] [--no-entry-cycles] [-- prog args...]
//
// Runs the program under valgrind lackey (or reads a saved lackey log),
// emulates LBR sampling over the exact instruction trace with a stated
// cost model (keel/Analysis/LBRGen.h) and writes the samples (keel-samples,
// or perf.data when -o ends in perf.data; perf script text and perf.data on
// request) and the truth. docs/lbr-analyses.md, docs/formats/perf-data.md.
//
//===----------------------------------------------------------------------===//
#include "keel/Analysis/LBRGen.h"
#include "keel/Profile/Binary.h"
#include "keel/Record/PerfDataFile.h"
#include "keel/Record/SampleFile.h"
#include "keel/Support/Diagnostics.h"
#include "keel/Support/OutputFile.h"
#include "keel/Support/Valgrind.h"
#include "keel/Support/Tool.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace llvm;
using namespace keel;

static const char *const Tool = "layout-lbrgen";
static cl::OptionCategory Cat("layout-lbrgen options");

static cl::opt<std::string>
    TracePath("trace", cl::desc("A saved valgrind lackey --trace-mem=yes log"),
              cl::value_desc("path"), cl::cat(Cat));
static cl::opt<std::string> KeepTrace("keep-trace",
                                      cl::desc("Also save the lackey log here"),
                                      cl::value_desc("path"), cl::cat(Cat));
static cl::opt<std::string>
    BinaryPath("binary", cl::desc("The traced binary (default: the program)"),
               cl::value_desc("path"), cl::cat(Cat));
static cl::opt<std::string>
    Output("o", cl::desc("keel-samples output ('-': stdout)"),
           cl::value_desc("path"), cl::cat(Cat));
static cl::opt<std::string>
    PerfScriptOut("perf-script",
                  cl::desc("Also write the samples as perf script text"),
                  cl::value_desc("path"), cl::cat(Cat));
static cl::opt<std::string>
    PerfDataOut("perf-data",
                cl::desc("Also write the samples as Linux perf's perf.data"),
                cl::value_desc("path"), cl::cat(Cat));
static cl::opt<bool> PerfDataPipe("pipe",
                                  cl::desc("perf.data in pipe mode (as "
                                           "perf record -o - writes it)"),
                                  cl::cat(Cat));
static cl::opt<unsigned> PerfDataCompress(
    "compress",
    cl::desc("perf.data: compress the records with ZSTD at this level "
             "(1-22), as perf record -z does; 0 (the default): plain"),
    cl::init(0), cl::value_desc("level"), cl::cat(Cat));
static cl::opt<bool>
    PerfDataHwIndex("hw-index",
                    cl::desc("perf.data: store the LBR hw_idx with every "
                             "branch stack (PERF_SAMPLE_BRANCH_HW_INDEX)"),
                    cl::cat(Cat));
static cl::opt<bool> NoGroupRead(
    "no-group-read",
    cl::desc("perf.data: leave out the per-sample read of the cycles and "
             "instructions counters (perf script then prints each sample "
             "once)"),
    cl::cat(Cat));
static cl::opt<unsigned> Processes(
    "processes",
    cl::desc("Spread the samples over N processes (round robin), process k "
             "with the binary mapped k*256 MiB higher and one more "
             "mapping of another file, as several runs of a PIE would be"),
    cl::init(1), cl::cat(Cat));
static cl::opt<std::string> TruthOut("truth",
                                     cl::desc("Write the truth (JSON) here"),
                                     cl::value_desc("path"), cl::cat(Cat));
static cl::opt<std::string>
    Filter("lbr",
           cl::desc("LBR filter: any, call, return, ind_call, user, "
                    "user-callret (= call,return,user; seed: old name, kept "
                    "until 0.2)"),
           cl::init("any"), cl::cat(Cat));
static cl::opt<unsigned> Depth("depth", cl::desc("LBR entries (8, 16 or 32)"),
                               cl::init(16), cl::cat(Cat));
static cl::opt<uint64_t> Period("period",
                                cl::desc("Instructions between samples"),
                                cl::init(10000), cl::cat(Cat));
static cl::opt<double> BaseCPI("cpi", cl::desc("Cycles per instruction"),
                               cl::init(1.0), cl::cat(Cat));
static cl::list<std::string>
    FunctionCPI("function-cpi",
                cl::desc("Per-function CPI, name=X (comma-separated)"),
                cl::CommaSeparated, cl::cat(Cat));
static cl::opt<double> Penalty("taken-penalty",
                               cl::desc("Extra cycles per taken branch"),
                               cl::init(0), cl::cat(Cat));
static cl::opt<bool> NoEntryCycles(
    "no-entry-cycles",
    cl::desc("Leave the LBR entries' cycle field 0 (pre-Skylake)"),
    cl::cat(Cat));
static cl::opt<bool>
    ClearLBR("clear-lbr",
             cl::desc("Clear the LBR after each sample (as Yamamoto et al.'s "
                      "prototype did); "
                      "default: keep it running, as perf does"),
             cl::cat(Cat));
static cl::opt<uint64_t> Skip("skip",
                              cl::desc("Ignore the first N traced "
                                       "instructions"),
                              cl::init(0), cl::cat(Cat));
static cl::opt<std::string> ProgramName(cl::Positional, cl::desc("<program>"),
                                        cl::cat(Cat));
static cl::list<std::string> ProgramArgs(cl::ConsumeAfter,
                                         cl::desc("<program args>..."));

static Expected<LBRGenOptions> options() {
  LBRGenOptions O;
  if (Error E = parseLBRFilter(Filter, O))
    return std::move(E);
  if (Depth != 16 && Depth != 32 && Depth != 8)
    return inputError("--depth", 0, "expected 8, 16 or 32 entries, got {0}",
                      unsigned(Depth));
  if (!Period || BaseCPI <= 0 || Penalty < 0)
    return inputError("layout-lbrgen", 0,
                      "--period and --cpi must be positive, --taken-penalty "
                      "not negative");
  O.Depth = Depth;
  O.Period = Period;
  O.BaseCPI = BaseCPI;
  O.TakenPenalty = Penalty;
  O.EntryCycles = !NoEntryCycles;
  O.Skip = Skip;
  O.ClearOnSample = ClearLBR;
  for (StringRef F : FunctionCPI) {
    auto [Name, V] = F.split('=');
    double D;
    if (Name.empty() || V.getAsDouble(D) || D <= 0)
      return inputError("--function-cpi", 0,
                        "expected name=CPI with CPI > 0, got '{0}'", F);
    O.FunctionCPI[Name.str()] = D;
  }
  return O;
}

/// --processes=N: sample I goes to process 1 + I % N, whose copy of the
/// binary is mapped K * 256 MiB higher (addresses inside it move with it),
/// beside a mapping of another library. The profile of the binary is the
/// same; only the runtime addresses differ.
static void spreadOverProcesses(PerfRecording &R, unsigned N) {
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
static Expected<std::string> trace(StringRef Dir) {
  auto VG = findValgrind(ValgrindLauncher::Script);
  if (!VG)
    return VG.takeError();
  std::string Log = (Dir + "/lackey.log").str();
  ValgrindCommand C;
  C.Tool = "lackey";
  C.ToolOptions = {"--trace-mem=yes", "--log-file=" + Log};
  C.Program.push_back(ProgramName);
  C.Program.insert(C.Program.end(), ProgramArgs.begin(), ProgramArgs.end());
  auto R = runValgrind(*VG, C);
  if (!R)
    return R.takeError();
  if (R->Crashed)
    return makeError("valgrind crashed: {0}", R->Message);
  return Log;
}

/// Every option and output checked before the trace runs (minutes under
/// valgrind); returns the traced binary's path.
static Expected<std::string> checkBeforeTracing() {
  if (Error E = checkCompressLevel("--compress", PerfDataCompress))
    return std::move(E);
  if (PerfDataCompress && PerfDataPipe)
    return inputError("--compress", 0,
                      "perf.data in pipe mode (--pipe) is written "
                      "uncompressed");
  if (Output.empty() && PerfScriptOut.empty() && PerfDataOut.empty())
    return inputError(Tool, 0,
                      "no output: give -o, --perf-script and/or --perf-data");
  if (!Processes || Processes > 1000)
    return inputError("--processes", 0, "expected 1 to 1000, got {0}",
                      unsigned(Processes));
  if (TracePath.empty() == ProgramName.empty())
    return inputError(Tool, 0,
                      "give either --trace=LOG or -- program args (not both)");
  std::string BinPath = BinaryPath.empty() && !ProgramName.empty()
                            ? ProgramName.getValue()
                            : BinaryPath.getValue();
  if (BinPath.empty())
    return inputError(Tool, 0, "--trace needs --binary");
  // Every output must be writable before minutes of tracing.
  for (StringRef Path : {StringRef(Output), StringRef(PerfDataOut),
                         StringRef(PerfScriptOut), StringRef(TruthOut),
                         StringRef(KeepTrace)})
    if (!Path.empty())
      if (Error E = checkOutputPath(Path))
        return std::move(E);
  return BinPath;
}

/// The samples and the truth from the lackey log: --trace's, or that of a
/// run under valgrind (kept with --keep-trace) in a private directory that
/// goes on every way out, a failed trace too.
static Expected<LBRGenResult> generate(const Binary &Bin,
                                       const LBRGenOptions &O,
                                       QualityReport &Q) {
  std::string Log = TracePath, Dir;
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
    auto L = trace(Dir);
    if (!L)
      return L.takeError();
    Log = *L;
  }
  auto Buf = MemoryBuffer::getFile(Log, /*IsText=*/true);
  if (!Buf) {
    Cleanup();
    return inputError(Log, 0, "cannot read: {0}", Buf.getError().message());
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

/// -o (keel-samples, or perf.data when it ends in perf.data), --perf-data,
/// --perf-script and --truth.
static Error writeSamples(const LBRGenResult &R, const LBRGenOptions &O) {
  auto Write = [](StringRef Path,
                  function_ref<void(raw_ostream &)> Fn) -> Error {
    if (Path.empty())
      return Error::success();
    return writeOutput(Path, [&](raw_ostream &OS) {
      Fn(OS);
      return Error::success();
    });
  };
  PerfDataWriteOptions PDO;
  PDO.Pipe = PerfDataPipe;
  PDO.HwIndex = PerfDataHwIndex;
  PDO.GroupRead = !NoGroupRead;
  PDO.Compress = int(PerfDataCompress); // checked before tracing
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
  } else if (Error E = Write(Output, [&](raw_ostream &OS) {
               writeSampleFile(R.Recording, OS);
             })) {
    return E;
  }
  if (Error E = WritePerfData(PerfDataOut))
    return E;
  if (Error E = Write(PerfScriptOut, [&](raw_ostream &OS) {
        exportPerfScript(R.Recording, OS);
      }))
    return E;
  return Write(TruthOut,
               [&](raw_ostream &OS) { writeTruthJSON(R.Truth, O, OS); });
}

static void printSummary(const LBRGenResult &R, const QualityReport &Q) {
  const LBRGenTruth &T = R.Truth;
  errs() << Tool << ": " << T.Instructions << " instructions, "
         << T.TakenBranches << " taken branches (" << T.Recorded
         << " recorded by the filter), " << R.Recording.Samples.size()
         << " samples\n";
  Q.print(errs(), Tool, T.Instructions, "traced instructions");
}

static Error run() {
  auto O = options();
  if (!O)
    return O.takeError();
  auto BinPath = checkBeforeTracing();
  if (!BinPath)
    return BinPath.takeError();
  auto Bin = Binary::open(*BinPath);
  if (!Bin)
    return Bin.takeError();
  QualityReport Q;
  auto R = generate(**Bin, *O, Q);
  if (!R)
    return R.takeError();
  spreadOverProcesses(R->Recording, Processes);
  if (Error E = writeSamples(*R, *O))
    return E;
  printSummary(*R, Q);
  return Error::success();
}

static const char *const Overview =
    "layout-lbrgen: LBR samples with ground truth from an exact trace\n\n"
    "  layout-lbrgen [options] -o SAMPLES --truth=T -- prog args...\n"
    "  layout-lbrgen [options] --trace=LACKEY.LOG --binary=B -o SAMPLES\n";

int main(int argc, char **argv) {
  return runTool(argc, argv, {Tool, Overview, {&Cat}},
                 [] { return exitStatus(run()); });
}
