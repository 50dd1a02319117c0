//===- layout-roofline.cpp - roofline ceilings, model and placement -------===//
//
//   layout-roofline model   --input=kernel.json [--machine=m.json | --Mband=..]
//   layout-roofline machine [--quick] [--json] [--svg=chart.svg]
//   layout-roofline run     [--machine=m.json] [--json] -- ./prog args...
//   layout-roofline chart   --machine=m.json --points=p.json --svg=out.svg
//
// Each subcommand reads as its phases: inputs, work, report.
//
//===----------------------------------------------------------------------===//
#include "keel/Roofline/Chart.h"
#include "keel/Roofline/JSONInput.h"
#include "keel/Roofline/Machine.h"
#include "keel/Roofline/Model.h"
#include "keel/Roofline/Run.h"
#include "keel/Support/Diagnostics.h"
#include "keel/Support/OutputFile.h"
#include "keel/Support/Tool.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"

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

static Error writeJSONOrText(json::Object O,
                             function_ref<void(raw_ostream &)> Text) {
  return writeOutput(Output, [&](raw_ostream &OS) {
    if (JSON)
      OS << formatv("{0:2}", json::Value(std::move(O))) << '\n';
    else
      Text(OS);
    return Error::success();
  });
}

/// Ceilings from --k-computer, --machine, then flags (flags win). The
/// machine file's measured level overlap, if any, goes to *Measured.
static Expected<Ceilings>
ceilingsFromOptions(std::optional<LevelOverlap> *Measured = nullptr) {
  Ceilings C;
  if (KComputer)
    C = kComputerCeilings();
  if (!MachineFile.empty()) {
    auto Text = readWholeFile(MachineFile);
    if (!Text)
      return Text.takeError();
    auto V = parseJSON(*Text, MachineFile);
    if (!V)
      return V.takeError();
    auto P = parseCeilings(*V, Scope, MachineFile);
    if (!P)
      return P.takeError();
    C = *P;
    auto L = parseLevelOverlap(*V, MachineFile, *Text);
    if (!L)
      return L.takeError();
    if (Measured)
      *Measured = *L;
  }
  if (Mband.getNumOccurrences())
    C.Mband = Mband;
  if (L2band.getNumOccurrences())
    C.L2band = L2band;
  if (L1band.getNumOccurrences())
    C.L1band = L1band;
  if (Ppeak.getNumOccurrences())
    C.Ppeak = Ppeak;
  if (!(C.Mband > 0 && C.L2band > 0 && C.L1band > 0 && C.Ppeak > 0))
    return inputError("<command line>", 0,
                      "ceilings missing: give --machine=machine.json, "
                      "--k-computer, or all of --Mband --L2band --L1band "
                      "--Ppeak (positive)");
  if (C.Name.empty())
    C.Name = "command line";
  return C;
}

static Error writeChart(const ChartData &D) {
  if (SVG.empty())
    return Error::success();
  return writeOutput(SVG, [&](raw_ostream &OS) {
    renderSVG(OS, D);
    return Error::success();
  });
}

static ChartData chartFor(const Ceilings &C, StringRef Title) {
  ChartData D;
  D.Title = Title.str();
  D.Roofs = {{"L1", C.L1band}, {"L2", C.L2band}, {"memory", C.Mband}};
  D.Peaks = {{"peak", C.Ppeak}};
  return D;
}

static Error runModel() {
  std::optional<LevelOverlap> Measured;
  auto C = ceilingsFromOptions(&Measured);
  if (!C)
    return C.takeError();
  std::optional<Overlap> Explicit;
  if (OverlapMode == OverlapOpt::Max)
    Explicit = Overlap::Max;
  else if (OverlapMode == OverlapOpt::Sum)
    Explicit = Overlap::Sum;
  OverlapChoice Choice = chooseOverlap(Explicit, Measured);
  std::vector<KernelCounts> Kernels;
  if (!Input.empty()) {
    auto Text = readWholeFile(Input);
    if (!Text)
      return Text.takeError();
    auto K = parseKernels(*Text, Input);
    if (!K)
      return K.takeError();
    Kernels = std::move(*K);
  }
  for (const std::string &N : KernelNames) {
    auto K = parseKernelName(N);
    if (!K)
      return inputError("<command line>", 0, "{0}", toString(K.takeError()));
    Kernels.push_back(std::move(*K));
  }
  if (Kernels.empty())
    return inputError("<command line>", 0, "give --input=kernel.json or "
                                           "--kernel=NAME");
  std::vector<Estimate> Estimates;
  for (const KernelCounts &K : Kernels) {
    auto E = estimate(K, *C, Choice.Mode);
    if (!E)
      return inputError(Input.empty() ? "<command line>" : Input.getValue(),
                        0, "{0}", toString(E.takeError()));
    Estimates.push_back(std::move(*E));
  }
  json::Array Arr;
  ChartData D = chartFor(*C, "cache-aware estimates");
  for (size_t I = 0; I < Kernels.size(); ++I) {
    json::Object O = toJSON(Kernels[I]);
    O["estimate"] = toJSON(Estimates[I]);
    Arr.push_back(std::move(O));
    const Estimate &E = Estimates[I];
    if (E.Estimable) {
      double Bytes = Kernels[I].M * Kernels[I].ElementBytes;
      if (Bytes > 0)
        D.Points.push_back({Kernels[I].Name, Kernels[I].K / Bytes, E.GFlops,
                            std::nullopt});
    }
  }
  if (Error E = writeChart(D))
    return E;
  json::Object OverlapJ{{"mode", overlapName(Choice.Mode)},
                        {"why", Choice.Why}};
  if (Choice.Factor)
    OverlapJ["factor"] = *Choice.Factor;
  json::Object Top{{"ceilings", toJSON(*C)},
                   {"overlap", std::move(OverlapJ)},
                   {"kernels", std::move(Arr)}};
  return writeJSONOrText(std::move(Top), [&](raw_ostream &OS) {
    OS << "overlap: " << overlapName(Choice.Mode) << " (" << Choice.Why
       << ")\n";
    for (size_t I = 0; I < Kernels.size(); ++I)
      printText(OS, Kernels[I], *C, Estimates[I]);
  });
}

static Error runMachine() {
  MachineOptions Opts;
  Opts.Quick = Quick;
  Opts.Repeats = Repeats.getNumOccurrences() ? Repeats : (Quick ? 3 : 5);
  Opts.Threads = Threads;
  auto R = measureMachine(Opts);
  if (!R)
    return R.takeError();
  ChartData D = chartFor(R->OneCore, "this machine, one core");
  for (const LevelCeiling &L : R->Levels)
    if (L.Level == "L3")
      D.Roofs.insert(D.Roofs.begin() + 2, {"L3", L.ReadGBs});
  D.Peaks.clear();
  for (const PeakResult &P : R->Peaks)
    if (P.Threads == 1)
      D.Peaks.push_back({P.Kind, P.GFlops});
  if (Error E = writeChart(D))
    return E;
  return writeJSONOrText(toJSON(*R),
                         [&](raw_ostream &OS) { printText(OS, *R); });
}

static Error runRun() {
  auto C = ceilingsFromOptions();
  if (!C)
    return C.takeError();
  RunConfig Cfg;
  Cfg.Argv.assign(Command.begin(), Command.end());
  if (Cfg.Argv.empty() && CallgrindOut.empty())
    return inputError("<command line>", 0, "give a program: run -- ./prog");
  Cfg.D1 = D1;
  Cfg.LL = LL;
  Cfg.Function = Function;
  Cfg.Repeats = Repeats.getNumOccurrences() ? Repeats : 3;
  Cfg.Roofs = *C;
  if (!CallgrindOut.empty())
    Cfg.CallgrindOut = CallgrindOut.getValue();
  if (Seconds.getNumOccurrences())
    Cfg.Seconds = Seconds.getValue();
  if (Cfg.Argv.empty() && !Cfg.Seconds)
    return inputError("<command line>", 0,
                      "--callgrind-out without a program needs --seconds");
  auto R = runRoofline(Cfg);
  if (!R)
    return R.takeError();
  if (!R->Quality.empty())
    R->Quality.print(errs(), Tool, R->Instructions, "instructions");
  ChartData D = chartFor(*C, "program on the roofline");
  for (const LevelPlacement &L : R->Levels)
    if (L.Intensity > 0)
      D.Points.push_back({(Cfg.Argv.empty() ? std::string("program")
                                             : Cfg.Argv[0]) +
                              " (" + L.Level + " bytes)",
                          L.Intensity, R->AchievedGFlops,
                          std::min(L.RoofGFlops, C->Ppeak)});
  if (Error E = writeChart(D))
    return E;
  return writeJSONOrText(toJSON(*R),
                         [&](raw_ostream &OS) { printText(OS, *R); });
}

static Error runChart() {
  auto C = ceilingsFromOptions();
  if (!C)
    return C.takeError();
  if (SVG.empty())
    return inputError("<command line>", 0, "chart needs --svg=FILE");
  ChartData D = chartFor(*C, "measured points");
  if (!Points.empty()) {
    auto Text = readWholeFile(Points);
    if (!Text)
      return Text.takeError();
    auto V = parseJSON(*Text, Points);
    if (!V)
      return V.takeError();
    const json::Object *O = V->getAsObject();
    const json::Array *A = O ? O->getArray("points") : nullptr;
    if (!A)
      return inputError(Points, 1, "expected an object with \"points\"");
    if (auto T = O->getString("title"))
      D.Title = T->str();
    for (const json::Value &P : *A) {
      const json::Object *PO = P.getAsObject();
      auto X = PO ? PO->getNumber("intensity") : std::nullopt;
      auto Y = PO ? PO->getNumber("gflops") : std::nullopt;
      if (!X || !Y)
        return inputError(Points, lineOfKey(*Text, "points"),
                          "each point needs \"intensity\" and \"gflops\"");
      ChartData::Point Pt{"", *X, *Y, PO->getNumber("estimate")};
      if (auto L = PO->getString("label"))
        Pt.Label = L->str();
      D.Points.push_back(Pt);
    }
  }
  return writeChart(D);
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
    return inputError("<command line>", 0,
                      "give a subcommand: model, machine, run or chart "
                      "(see --help)");
  });
}
