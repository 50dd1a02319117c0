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
// cost model (keel/LBR/LBRGen.h, LBRGenRun.h) and writes the samples (keel-samples,
// or perf.data when -o ends in perf.data; perf script text and perf.data on
// request) and the truth. docs/lbr-analyses.md, docs/formats/perf-data.md.
//
//===----------------------------------------------------------------------===//
#include "keel/LBR/LBRGenRun.h"
#include "keel/Profile/Binary.h"
#include "keel/Record/PerfDataFile.h"
#include "keel/Support/Diagnostics.h"
#include "keel/Support/OutputFile.h"
#include "keel/Support/Tool.h"

#include "llvm/Support/CommandLine.h"

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
                    "user-callret (= call,return,user)"),
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
    return usageError("--period and --cpi must be positive, --taken-penalty "
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
    return usageError("no output: give -o, --perf-script and/or --perf-data");
  if (!Processes || Processes > 1000)
    return inputError("--processes", 0, "expected 1 to 1000, got {0}",
                      unsigned(Processes));
  if (TracePath.empty() == ProgramName.empty())
    return usageError("give either --trace=LOG or -- program args (not both)");
  std::string BinPath = BinaryPath.empty() && !ProgramName.empty()
                            ? ProgramName.getValue()
                            : BinaryPath.getValue();
  if (BinPath.empty())
    return usageError("--trace needs --binary");
  // Every output must be writable before minutes of tracing.
  for (StringRef Path : {StringRef(Output), StringRef(PerfDataOut),
                         StringRef(PerfScriptOut), StringRef(TruthOut),
                         StringRef(KeepTrace)})
    if (!Path.empty())
      if (Error E = checkOutputPath(Path))
        return std::move(E);
  return BinPath;
}

/// The trace and the outputs, as the options name them.
static LBRGenRunOptions runOptions() {
  LBRGenRunOptions RO;
  RO.TracePath = TracePath;
  if (!ProgramName.empty()) {
    RO.Command.push_back(ProgramName);
    RO.Command.insert(RO.Command.end(), ProgramArgs.begin(), ProgramArgs.end());
  }
  RO.KeepTrace = KeepTrace;
  RO.Samples = Output;
  RO.PerfData = PerfDataOut;
  RO.PerfScript = PerfScriptOut;
  RO.Truth = TruthOut;
  RO.PerfDataOpts.Pipe = PerfDataPipe;
  RO.PerfDataOpts.HwIndex = PerfDataHwIndex;
  RO.PerfDataOpts.GroupRead = !NoGroupRead;
  RO.PerfDataOpts.Compress = int(PerfDataCompress); // checked before tracing
  return RO;
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
  LBRGenRunOptions RO = runOptions();
  QualityReport Q;
  auto R = generateFromTrace(RO, **Bin, *O, Q);
  if (!R)
    return R.takeError();
  spreadOverProcesses(R->Recording, Processes);
  if (Error E = writeLBRGenOutputs(*R, *O, RO))
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
