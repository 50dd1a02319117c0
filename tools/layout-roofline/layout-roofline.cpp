//===- layout-roofline.cpp - roofline ceilings, model and placement -------===//
//
//   layout-roofline model   --input=kernel.json [--machine=m.json | --Mband=..]
//   layout-roofline machine [--quick] [--json] [--svg=chart.svg]
//   layout-roofline run     [--machine=m.json] [--json] -- ./prog args...
//   layout-roofline chart   --machine=m.json --points=p.json --svg=out.svg
//
// Each subcommand reads as its phases: options into the structs of
// keel/Roofline/Subcommands.h, the library's work, the chart and the report.
//
//===----------------------------------------------------------------------===//
#include "keel/Roofline/Subcommands.h"
#include "keel/Support/Diagnostics.h"
#include "keel/Support/OutputFile.h"
#include "keel/Support/Tool.h"

#include "llvm/Support/CommandLine.h"

using namespace llvm;
using namespace keel;
using namespace keel::roofline;

static const char *Tool = "layout-roofline";

static cl::SubCommand ModelCmd("model", "the cache-aware estimate for a kernel "
                                        "(Minami et al.)");
static cl::SubCommand MachineCmd("machine", "measure this machine's ceilings");
static cl::SubCommand RunCmd("run", "place a program on the roofline");
static cl::SubCommand ChartCmd("chart",
                               "draw measured points against a machine's "
                               "roofs (SVG)");

static cl::OptionCategory Cat("layout-roofline options");

// Shared by several subcommands.
static cl::opt<bool> JSON("json", cl::desc("print JSON instead of text"),
                          cl::sub(ModelCmd), cl::sub(MachineCmd),
                          cl::sub(RunCmd), cl::cat(Cat));
static cl::opt<std::string> Output("o", cl::desc("write the report here"),
                                   cl::value_desc("file"), cl::init("-"),
                                   cl::sub(ModelCmd), cl::sub(MachineCmd),
                                   cl::sub(RunCmd), cl::cat(Cat));
static cl::opt<std::string> SVG("svg", cl::desc("also write a roofline chart"),
                                cl::value_desc("file.svg"), cl::sub(MachineCmd),
                                cl::sub(RunCmd), cl::sub(ModelCmd),
                                cl::sub(ChartCmd), cl::cat(Cat));
static cl::opt<std::string>
    MachineFile("machine",
                cl::desc("ceilings: a `machine --json` report or an object "
                         "with Mband, L2band, L1band, Ppeak"),
                cl::value_desc("machine.json"), cl::sub(ModelCmd),
                cl::sub(RunCmd), cl::sub(ChartCmd), cl::cat(Cat));
static cl::opt<std::string>
    Scope("scope", cl::desc("which ceilings of a machine report: one_core or "
                            "all_cores"),
          cl::init("one_core"), cl::sub(ModelCmd), cl::sub(RunCmd),
          cl::sub(ChartCmd), cl::cat(Cat));
static cl::opt<std::string>
    Points("points",
           cl::desc("points: {\"title\": .., \"points\": [{\"label\", "
                    "\"intensity\", \"gflops\", \"estimate\"}]}"),
           cl::value_desc("points.json"), cl::sub(ChartCmd), cl::cat(Cat));
static cl::opt<double> Mband("Mband", cl::desc("memory ceiling, GB/s"),
                            cl::sub(ModelCmd), cl::sub(RunCmd), cl::sub(ChartCmd),
                            cl::cat(Cat));
static cl::opt<double> L2band("L2band", cl::desc("L2 ceiling, GB/s"),
                             cl::sub(ModelCmd), cl::sub(RunCmd), cl::sub(ChartCmd),
                            cl::cat(Cat));
static cl::opt<double> L1band("L1band", cl::desc("L1 ceiling, GB/s"),
                             cl::sub(ModelCmd), cl::sub(RunCmd), cl::sub(ChartCmd),
                            cl::cat(Cat));
static cl::opt<double> Ppeak("Ppeak", cl::desc("peak, GFLOP/s"),
                            cl::sub(ModelCmd), cl::sub(RunCmd), cl::sub(ChartCmd),
                            cl::cat(Cat));
static cl::opt<bool> KComputer("k-computer",
                               cl::desc("use the paper's K computer ceilings "
                                        "(46/146/241 GB/s, 128 GFLOP/s)"),
                               cl::sub(ModelCmd), cl::sub(ChartCmd), cl::cat(Cat));

// model
static cl::opt<std::string> Input("input",
                                  cl::desc("kernel description (JSON)"),
                                  cl::value_desc("kernel.json"),
                                  cl::sub(ModelCmd), cl::cat(Cat));
enum class OverlapOpt { Auto, Max, Sum };
static cl::opt<OverlapOpt> OverlapMode(
    "overlap", cl::desc("how the levels' transfer times combine"),
    cl::values(clEnumValN(OverlapOpt::Auto, "auto",
                          "what `machine` measured on this machine (the "
                          "machine file's level_overlap); max without one "
                          "(default)"),
               clEnumValN(OverlapOpt::Max, "max",
                          "the paper: max(Mtime, L2time, L1time), rules "
                          "(e)-(j)"),
               clEnumValN(OverlapOpt::Sum, "sum",
                          "extension: each array at its own level, times "
                          "add")),
    cl::init(OverlapOpt::Auto), cl::sub(ModelCmd), cl::cat(Cat));
static cl::list<std::string>
    KernelNames("kernel", cl::desc("a kernel by name, e.g. 3M-8L2-16F"),
                cl::sub(ModelCmd), cl::cat(Cat));

// machine
static cl::opt<bool> Quick("quick", cl::desc("short run for tests (< 3 s)"),
                           cl::sub(MachineCmd), cl::cat(Cat));
static cl::opt<unsigned> Repeats("repeats", cl::desc("best of N"),
                                 cl::init(5), cl::sub(MachineCmd),
                                 cl::sub(RunCmd), cl::cat(Cat));
static cl::opt<unsigned> Threads("threads",
                                 cl::desc("threads for 'all cores' (0: all)"),
                                 cl::init(0), cl::sub(MachineCmd),
                                 cl::cat(Cat));

// run
static cl::opt<std::string> D1("D1", cl::desc("simulated D1 (size,ways,line)"),
                               cl::sub(RunCmd), cl::cat(Cat));
static cl::opt<std::string> LL("LL", cl::desc("simulated LL (size,ways,line); "
                                              "default: this machine's L2"),
                               cl::sub(RunCmd), cl::cat(Cat));
static cl::opt<std::string> Function("function",
                                     cl::desc("count only this function"),
                                     cl::sub(RunCmd), cl::cat(Cat));
static cl::opt<std::string>
    CallgrindOut("callgrind-out",
                 cl::desc("use this callgrind --dump-instr=yes output instead "
                          "of running callgrind"),
                 cl::sub(RunCmd), cl::cat(Cat));
static cl::opt<double> Seconds("seconds",
                               cl::desc("use this run time instead of timing "
                                        "native runs"),
                               cl::sub(RunCmd), cl::cat(Cat));
static cl::list<std::string> Command(cl::Positional, cl::ZeroOrMore,
                                     cl::desc("program and arguments"),
                                     cl::sub(RunCmd));

/// --k-computer, --machine, --scope and the single ceilings given.
static CeilingOptions ceilingOptions() {
  CeilingOptions O;
  O.KComputer = KComputer;
  O.MachineFile = MachineFile;
  O.Scope = Scope;
  if (Mband.getNumOccurrences())
    O.Mband = Mband;
  if (L2band.getNumOccurrences())
    O.L2band = L2band;
  if (L1band.getNumOccurrences())
    O.L1band = L1band;
  if (Ppeak.getNumOccurrences())
    O.Ppeak = Ppeak;
  return O;
}

static Error runModel() {
  ModelOptions O;
  O.Roofs = ceilingOptions();
  if (OverlapMode == OverlapOpt::Max)
    O.Explicit = Overlap::Max;
  else if (OverlapMode == OverlapOpt::Sum)
    O.Explicit = Overlap::Sum;
  O.Input = Input;
  O.KernelNames.assign(KernelNames.begin(), KernelNames.end());
  auto R = modelKernels(O);
  if (!R)
    return R.takeError();
  if (Error E = writeChartFile(SVG, modelChart(*R)))
    return E;
  return writeReportFile(Output, JSON, toJSON(*R),
                         [&](raw_ostream &OS) { printText(OS, *R); });
}

static Error runMachine() {
  MachineOptions Opts;
  Opts.Quick = Quick;
  Opts.Repeats = Repeats.getNumOccurrences() ? Repeats : (Quick ? 3 : 5);
  Opts.Threads = Threads;
  auto R = measureMachine(Opts);
  if (!R)
    return R.takeError();
  if (Error E = writeChartFile(SVG, machineChart(*R)))
    return E;
  return writeReportFile(Output, JSON, toJSON(*R),
                         [&](raw_ostream &OS) { printText(OS, *R); });
}

static Error runRun() {
  RunOptions O;
  O.Roofs = ceilingOptions();
  O.Config.Argv.assign(Command.begin(), Command.end());
  O.Config.D1 = D1;
  O.Config.LL = LL;
  O.Config.Function = Function;
  O.Config.Repeats = Repeats.getNumOccurrences() ? Repeats : 3;
  if (!CallgrindOut.empty())
    O.Config.CallgrindOut = CallgrindOut.getValue();
  if (Seconds.getNumOccurrences())
    O.Config.Seconds = Seconds.getValue();
  auto P = placeProgram(O);
  if (!P)
    return P.takeError();
  const RunReport &R = P->Report;
  if (!R.Quality.empty())
    R.Quality.print(errs(), Tool, R.Instructions, "instructions");
  if (Error E = writeChartFile(SVG, runChart(*P)))
    return E;
  return writeReportFile(Output, JSON, toJSON(R),
                         [&](raw_ostream &OS) { printText(OS, R); });
}

static Error runChart() {
  ChartOptions O;
  O.Roofs = ceilingOptions();
  O.SVG = SVG;
  O.Points = Points;
  auto D = pointsChart(O);
  if (!D)
    return D.takeError();
  return writeChartFile(SVG, *D);
}

static const char *const Overview =
    "layout-roofline: roofline ceilings of this machine, the cache-aware "
    "estimate of Minami et al., and a program's place under the roofs\n";

int main(int argc, char **argv) {
  return runTool(argc, argv, {Tool, Overview, {&Cat}}, []() -> Expected<int> {
    // Both outputs are checked before any work: a bad --svg path must
    // not leave the report written (nor a minutes-long measurement
    // wasted).
    for (StringRef Path : {StringRef(Output), StringRef(SVG)})
      if (Error E = checkOutputPath(Path))
        return std::move(E);
    if (ModelCmd)
      return exitStatus(runModel());
    if (MachineCmd)
      return exitStatus(runMachine());
    if (RunCmd)
      return exitStatus(runRun());
    if (ChartCmd)
      return exitStatus(runChart());
    return usageError("give a subcommand: model, machine, run or chart "
                      "(see --help)");
  });
}
