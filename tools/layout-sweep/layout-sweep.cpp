//===- layout-sweep.cpp - measure layout-induced performance variance -----===//
//
// layout-sweep [options] ./bin [args...]
//
// Phases: parse options -> build EngineOptions -> runSweep (keel/Sweep/Engine.h)
// -> evaluate the gate (keel/Sweep/Gate.h) -> write reports (Report.h) ->
// exit 0, or 1 with a one-line reason when the gate fails.
//
// With no --axis, --relink, --bolt-pad or --false-sharing the sweep is
// automatic (keel/Sweep/Auto.h): every axis this binary can move, one after
// the other on a 16-offset grid, and one combined report (runAuto below).
//
//===----------------------------------------------------------------------===//
#include "keel/Support/Diagnostics.h"
#include "keel/Support/OutputFile.h"
#include "keel/Support/Tool.h"
#include "keel/Support/Process.h"
#include "keel/Sweep/Auto.h"
#include "keel/Sweep/Engine.h"
#include "keel/Sweep/Gate.h"
#include "keel/Sweep/Report.h"
#include "keel/Sweep/Slurm.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/WithColor.h"

#include <chrono>
#include <cmath>
#include <optional>
#include <mutex>
#include <thread>

using namespace llvm;
using namespace keel;
using namespace keel::sweep;

static const char *const Tool = "layout-sweep";

namespace {
cl::OptionCategory Cat("layout-sweep options");

cl::opt<std::string> BinaryArg(cl::Positional, cl::desc("<binary>"),
                               cl::Required, cl::cat(Cat));
cl::list<std::string> ProgArgs(cl::ConsumeAfter, cl::desc("<program arguments>..."));

cl::opt<std::string> Backend("backend",
                             cl::desc("sim (keel-sim: one run for every variant "
                                      "that is an address map of another; "
                                      "cachegrind where keel-sim is not built), "
                                      "cachegrind (one cachegrind run per "
                                      "variant), time or perf"),
                             cl::init("sim"), cl::cat(Cat));
cl::opt<std::string> Axis("axis",
                          cl::desc("what moves: code, data, stack, env, heap, "
                                   "fs-spacing "
                                   "(none given: every axis this binary can move; "
                                   "code with --relink or --bolt-pad)"),
                          cl::init("code"), cl::cat(Cat));
cl::opt<bool> FalseSharing(
    "false-sharing",
    cl::desc("sweep the spacing of data written by different threads (axis "
             "fs-spacing): --relink rebuilds with {pad} bytes between them, "
             "e.g. -DKEEL_FS_SPACING={pad}; implies --backend=time, --cpu=-2 "
             "(the threads need several CPUs) and KEEL_FS_PIN=1 in the "
             "environment unless given (docs/false-sharing.md)"),
    cl::cat(Cat));
cl::opt<std::string> GridPreset(
    "grid", cl::desc("grid preset: default (0..4096 by 64), 16k-by-64 "
                     "(0..16 KB by 64), 256k-by-1k (0..256 KB by 1 KB); "
                     "seed002-power3 and seed002-power4: old names, kept "
                     "until 0.2; the automatic sweep's grid is 0..960 by 64 "
                     "per axis"),
    cl::cat(Cat));
cl::opt<int64_t> From("from", cl::desc("first offset in bytes"), cl::cat(Cat));
cl::opt<int64_t> To("to", cl::desc("last offset in bytes"), cl::cat(Cat));
cl::opt<int64_t> Step("step", cl::desc("offset step in bytes"), cl::cat(Cat));

cl::opt<std::string> Relink(
    "relink",
    cl::desc("command template that writes a variant: {pad} bytes, {out} the "
             "binary to write, {padobj} a generated pad object, {dir} a "
             "scratch directory (no shell: words and quotes only)"),
    cl::cat(Cat));
cl::opt<std::string> Compare("compare",
                             cl::desc("a second binary swept on the same grid"),
                             cl::value_desc("file"), cl::cat(Cat));
cl::opt<std::string> CompareRelink("compare-relink",
                                   cl::desc("--relink template of the --compare binary"),
                                   cl::cat(Cat));
cl::opt<std::string> BoltPad(
    "bolt-pad",
    cl::desc("code axis through llvm-bolt --pad-funcs-before=FUNC:N (binary "
             "linked with -Wl,--emit-relocs)"),
    cl::value_desc("FUNC"), cl::cat(Cat));
cl::opt<std::string> StackShim("stack-shim", cl::desc("path of libkeelstackshift.so"),
                               cl::value_desc("file"), cl::cat(Cat));
cl::opt<std::string> HeapShim("heap-shim", cl::desc("path of libkeelheapshift.so"),
                              cl::value_desc("file"), cl::cat(Cat));
cl::list<std::string> ExtraEnv("env", cl::desc("NAME=VALUE added to every variant's environment"),
                               cl::cat(Cat));

cl::opt<std::string> Geometry("geometry",
                              cl::desc("sim cache preset: small, small8k, skylake, "
                                       "zen3, neoverse-n1"),
                              cl::init("skylake"), cl::cat(Cat));
cl::list<std::string> I1("I1",
                         cl::desc("sim L1 I-cache size,assoc,line (overrides --geometry); "
                                  "give it more than once to measure several I1 "
                                  "geometries in one sweep (keel-sim: each variant "
                                  "built and run once): one report per geometry, its "
                                  "file named with '.i1-SIZE-ASSOC-LINE' before the "
                                  "extension (--json, --csv, --svg, --html; the "
                                  "journal's after its name)"),
                         cl::cat(Cat));
cl::opt<std::string> D1("D1", cl::desc("sim L1 D-cache size,assoc,line"), cl::cat(Cat));
cl::opt<std::string> LL("LL", cl::desc("sim last-level cache size,assoc,line"), cl::cat(Cat));
cl::opt<std::string> Weights("weights",
                             cl::desc("sim cost weights, e.g. Ir=1,I1mr=10,Bim=20 "
                                      "(0 removes an event), over --cost's"),
                             cl::cat(Cat));
cl::opt<std::string> Cost(
    "cost",
    cl::desc("sim cost model: cachegrind (cachegrind's events, the default), "
             "skylake or zen4 (keel-sim's front-end model too: fetch windows, "
             "taken branches, BTB, predictors, 4K aliasing, TLBs; "
             "docs/frontend-model.md)"),
    cl::init("cachegrind"), cl::cat(Cat));
cl::opt<bool> PrintCost("print-cost",
                        cl::desc("print the cost model (--cost, --weights) as "
                                 "JSON and exit; no binary needed"),
                        cl::cat(Cat));

cl::opt<unsigned> Jobs("j", cl::Prefix, cl::desc("variants measured in parallel (sim; 0 = all cores)"),
                       cl::init(0), cl::cat(Cat));
cl::opt<unsigned> Timeout("timeout", cl::desc("seconds per variant run (0 = none)"),
                          cl::init(0), cl::cat(Cat));
cl::opt<std::string> Executor(
    "executor", cl::desc("run each variant through this template, {cmd} = the "
                         "command (e.g. 'srun -n1 {cmd}'); slurm: the whole "
                         "sweep as one Slurm job array (sim or cachegrind backend; "
                         "docs/sweep.md)"),
    cl::cat(Cat));
cl::opt<std::string> SlurmArgs(
    "slurm-args",
    cl::desc("--executor=slurm: sbatch options for the array, e.g. "
             "'--partition=p --account=a --time=1:00:00 --constraint=c' (-j N "
             "runs at most N tasks at once)"),
    cl::cat(Cat));
cl::opt<unsigned> SlurmTasks("slurm-tasks",
                             cl::desc("--executor=slurm: array tasks (0 = one "
                                      "per variant, at most 1000)"),
                             cl::init(0), cl::cat(Cat));
cl::opt<std::string> ExecAs(
    "exec-as",
    cl::desc("how variants are started: fd (default) puts each variant's "
             "binary on descriptor 100 and runs it as /dev/fd/100, so every "
             "variant and series sees the same argv[0] (the time backend "
             "keeps argv[0] = the binary as named; a program that hashes or "
             "copies its own path would otherwise cost differently per variant "
             "directory); path runs it from its own file in the work "
             "directory, for programs that find files via dirname(argv[0]) "
             "(the default with --executor)"),
    cl::value_desc("fd|path"), cl::cat(Cat));
cl::opt<std::string> JournalPath("journal",
                                 cl::desc("append each finished measurement here "
                                          "(default: OUTPUT.journal beside the first "
                                          "output file; removed when the sweep completes)"),
                                 cl::value_desc("file"), cl::cat(Cat));
cl::opt<bool> Resume("resume", cl::desc("continue a killed sweep from its journal"),
                     cl::cat(Cat));
cl::opt<std::string> KeepDir("keep-dir",
                             cl::desc("build and run variants in this directory and "
                                      "keep it (default: private, removed)"),
                             cl::value_desc("dir"), cl::cat(Cat));
cl::opt<double> InstrTolerance(
    "instr-tolerance",
    cl::desc("relative executed-instruction spread (%) tolerated as start-up noise"),
    cl::init(0.01), cl::cat(Cat));

cl::opt<unsigned> Rounds("rounds", cl::desc("time: measured rounds"), cl::init(11),
                         cl::cat(Cat));
cl::opt<unsigned> Warmup("warmup", cl::desc("time: warm-up rounds"), cl::init(1),
                         cl::cat(Cat));
cl::opt<unsigned> AACopies("aa-copies", cl::desc("time: byte-identical copies for the noise floor"),
                           cl::init(3), cl::cat(Cat));
cl::opt<int> Cpu("cpu", cl::desc("time: CPU to pin to (-1 auto, -2 none)"), cl::init(-1),
                 cl::cat(Cat));

cl::opt<std::string> MaxSpread("max-spread",
                               cl::desc("gate: fail when the spread exceeds X%"),
                               cl::value_desc("X%"), cl::cat(Cat));
cl::opt<std::string> Baseline("baseline",
                              cl::desc("gate: fail when worse than this earlier --json "
                                       "result beyond noise"),
                              cl::value_desc("file"), cl::cat(Cat));
cl::opt<double> BaselineTolerance("baseline-tolerance",
                                  cl::desc("gate: extra slack over the baseline (%)"),
                                  cl::init(0), cl::cat(Cat));
cl::opt<std::string> MaxMispredictRise(
    "max-mispredict-rise",
    cl::desc("gate, with --baseline: fail when the mean branch mispredicts "
             "rise by more than X% over the baseline's (sim: Bcm+Bim; "
             "--cost=skylake|zen4: CondMiss+IndMiss; perf: branch-misses), "
             "e.g. a block layout checked against the default link"),
    cl::value_desc("X%"), cl::cat(Cat));
cl::opt<std::string> JSON("json", cl::desc("write the JSON report (no value: stdout)"),
                          cl::ValueOptional, cl::value_desc("file"), cl::cat(Cat));
cl::opt<std::string> CSV("csv", cl::desc("write the CSV table (no value: stdout)"),
                         cl::ValueOptional, cl::value_desc("file"), cl::cat(Cat));
cl::opt<std::string> BestPadOut(
    "best-pad-out",
    cl::desc("write the offset with the lowest cost of the swept binary as JSON "
             "({\"axis\":\"code\",\"pad\":N,\"cost\":C,\"baseline_pad0_cost\":C0}; "
             "ties: the smallest offset); layout-order --code-pad=@file reads it"),
    cl::value_desc("file"), cl::cat(Cat));
cl::opt<std::string> SVG("svg", cl::desc("write the SVG plot"), cl::value_desc("file"), cl::cat(Cat));
cl::opt<std::string> HTML("html", cl::desc("write the HTML report"), cl::value_desc("file"), cl::cat(Cat));
} // namespace

/// The gate library's parser (a finite, non-negative percentage), with the
/// option named in its error.
static Expected<double> parsePercent(StringRef Opt, StringRef Text) {
  Expected<double> V = keel::sweep::parsePercent(Text);
  if (!V) {
    consumeError(V.takeError());
    return makeError("--{0}={1}: expected a percentage such as 1%", Opt, Text);
  }
  return *V;
}

/// The gate the options ask for (--max-spread, --baseline-tolerance).
static Expected<GateOptions> gateOptions() {
  GateOptions GO;
  if (!MaxSpread.empty()) {
    Expected<double> MS = parsePercent("max-spread", MaxSpread);
    if (!MS)
      return MS.takeError();
    GO.MaxSpread = *MS;
  }
  GO.BaselineTolerance = BaselineTolerance / 100;
  if (MaxMispredictRise.getNumOccurrences()) { // an empty value is an error too
    if (Baseline.empty())
      return makeError("--max-mispredict-rise compares with a baseline: give "
                       "--baseline=FILE (an earlier --json result)");
    Expected<double> R = parsePercent("max-mispredict-rise", MaxMispredictRise);
    if (!R)
      return R.takeError();
    GO.MaxMispredictRise = *R;
  }
  return GO;
}

static std::string defaultHeapShim(const char *Argv0) {
  return findKeelLibFile(Argv0, (void *)&defaultHeapShim, "libkeelheapshift.so");
}

static std::string defaultStackShim(const char *Argv0) {
  return findKeelLibFile(Argv0, (void *)&defaultStackShim, "libkeelstackshift.so");
}

static Error buildGrid(Grid &G) {
  if (!GridPreset.empty()) {
    Expected<Grid> P = gridPreset(GridPreset);
    if (!P)
      return P.takeError();
    G = *P;
  }
  if (From.getNumOccurrences())
    G.From = From;
  if (To.getNumOccurrences())
    G.To = To;
  if (Step.getNumOccurrences())
    G.Step = Step;
  return validateGrid(G);
}

static Error buildGeometry(EngineOptions &O) {
  Expected<CacheGeometry> G = geometryPreset(Geometry);
  if (!G)
    return G.takeError();
  O.Geometry = *G;
  O.GeometryPreset = Geometry;
  std::string FirstI1 = I1.empty() ? "" : I1.front();
  struct {
    const std::string &Opt;
    const char *Name;
    CacheLevel &Level;
  } Overrides[] = {{FirstI1, "I1", O.Geometry.I1},
                   {D1, "D1", O.Geometry.D1},
                   {LL, "LL", O.Geometry.LL}};
  for (auto &Ov : Overrides) {
    if (Ov.Opt.empty())
      continue;
    Expected<CacheLevel> L = parseCacheLevel(Ov.Name, Ov.Opt);
    if (!L)
      return L.takeError();
    Ov.Level = *L;
    O.GeometryPreset += (Twine(O.GeometryPreset.empty() ? "" : "+") + Ov.Name).str();
  }
  if (I1.size() > MaxSweepGeometries)
    return inputError("<command line>", 0,
                      "{0} --I1 given; one sweep simulates at most {1}",
                      I1.size(), MaxSweepGeometries);
  for (size_t K = 1; K < I1.size(); ++K) {
    Expected<CacheLevel> L = parseCacheLevel("I1", I1[K]);
    if (!L)
      return L.takeError();
    CacheGeometry G = O.Geometry;
    G.I1 = *L;
    for (const CacheGeometry &Seen : O.MoreGeometries)
      if (Seen.I1.Size == G.I1.Size && Seen.I1.Assoc == G.I1.Assoc &&
          Seen.I1.Line == G.I1.Line)
        return inputError("<command line>", 0, "--I1={0} is given twice", I1[K]);
    if (G.I1.Size == O.Geometry.I1.Size && G.I1.Assoc == O.Geometry.I1.Assoc &&
        G.I1.Line == O.Geometry.I1.Line)
      return inputError("<command line>", 0, "--I1={0} is given twice", I1[K]);
    O.MoreGeometries.push_back(G);
  }
  return Error::success();
}

/// Several --I1: the report (or journal) of geometry \p G goes to \p Path
/// with ".i1-SIZE-ASSOC-LINE" before its extension ("-": stdout, unchanged).
static std::string geometryPath(StringRef Path, const CacheGeometry &G,
                                bool AtEnd = false) {
  if (I1.size() < 2 || Path.empty() || Path == "-")
    return Path.str();
  std::string Label =
      formatv(".i1-{0}-{1}-{2}", G.I1.Size, G.I1.Assoc, G.I1.Line).str();
  StringRef Ext = AtEnd ? "" : sys::path::extension(Path);
  return (Path.drop_back(Ext.size()) + Label + Ext).str();
}

/// --cost and --weights: the preset's weights, single ones overridden.
static Expected<CostPreset> costModel(CostWeights &W) {
  Expected<CostPreset> P = costPreset(Cost);
  if (!P)
    return P.takeError();
  W = P->Weights;
  if (!Weights.empty()) {
    Expected<CostWeights> Over = parseWeights(Weights, W);
    if (!Over)
      return Over.takeError();
    W = std::move(*Over);
  }
  return P;
}

/// The first output file decides where the default journal goes.
static std::string firstOutputFile() {
  for (cl::opt<std::string> *O : {&JSON, &CSV, &SVG, &HTML})
    if (O->getNumOccurrences() && !O->empty() && *O != "-")
      return *O;
  return "";
}

static Expected<EngineOptions> buildOptions(const char *Argv0, bool &ImplicitJournal) {
  EngineOptions O;
  O.Binary = BinaryArg;
  O.Args.assign(ProgArgs.begin(), ProgArgs.end());
  if (!Compare.empty())
    O.CompareBinary = Compare;
  O.Backend = Backend;
  if (Error E = buildGrid(O.G))
    return std::move(E);
  O.Perturb.Axis = Axis;
  O.Perturb.RelinkTemplate = Relink;
  O.Perturb.CompareRelinkTemplate = CompareRelink;
  O.Perturb.BoltFunction = BoltPad;
  O.Perturb.HeapShim = HeapShim.empty() ? defaultHeapShim(Argv0) : HeapShim;
  O.Perturb.StackShim = StackShim.empty() ? defaultStackShim(Argv0) : StackShim;
  O.Perturb.ExtraEnv.assign(ExtraEnv.begin(), ExtraEnv.end());
  if (Error E = buildGeometry(O))
    return std::move(E);
  Expected<CostPreset> CP = costModel(O.Weights);
  if (!CP)
    return CP.takeError();
  O.Frontend = CP->Frontend;
  O.Time.Rounds = Rounds;
  O.Time.Warmup = Warmup;
  O.Time.AACopies = AACopies;
  O.Time.Cpu = Cpu;
  if (FalseSharing) {
    if (Axis.getNumOccurrences() && Axis != "fs-spacing")
      return inputError("<command line>", 0,
                        "--false-sharing sweeps axis fs-spacing, not --axis={0}",
                        Axis.getValue());
    O.Perturb.Axis = "fs-spacing";
    if (!Backend.getNumOccurrences())
      O.Backend = "time";
    if (O.Backend != "time")
      return inputError("<command line>", 0,
                        "--false-sharing needs --backend=time: the sim backend "
                        "runs threads one at a time (valgrind), so no cache line "
                        "ever moves between cores");
    if (Relink.empty())
      return inputError("<command line>", 0,
                        "--false-sharing needs --relink='clang ... "
                        "-DKEEL_FS_SPACING={{pad} ... -o {{out}'");
    if (!Cpu.getNumOccurrences())
      O.Time.Cpu = -2;
    O.Perturb.ExtraEnv.push_back("KEEL_FS_PIN=1");
  }
  O.Jobs = Jobs;
  O.TimeoutSeconds = Timeout;
  O.Executor = Executor;
  O.SlurmArgs = SlurmArgs;
  O.SlurmTasks = SlurmTasks;
  O.ExecAs = ExecAs;
  O.InstructionTolerance = InstrTolerance / 100;
  O.WorkDir = KeepDir;
  O.Resume = Resume;
  O.JournalPath = JournalPath;
  // Default journal: beside the first output file (none without one, so
  // concurrent sweeps never share a journal by accident).
  ImplicitJournal = JournalPath.empty() && !firstOutputFile().empty();
  if (ImplicitJournal)
    O.JournalPath = firstOutputFile() + ".journal";
  if (!O.MoreGeometries.empty() && !O.JournalPath.empty()) {
    for (const CacheGeometry &G : O.MoreGeometries)
      O.MoreJournalPaths.push_back(geometryPath(O.JournalPath, G, true));
    O.JournalPath = geometryPath(O.JournalPath, O.Geometry, true);
  }
  return O;
}

/// "[ 12/65]" on one terminal line, only when stderr is a terminal.
static std::function<void(size_t, size_t)> progressPrinter() {
  if (!sys::Process::StandardErrIsDisplayed())
    return nullptr;
  return [](size_t Done, size_t Total) {
    errs() << formatv("\r{0}: measured {1}/{2} variants", Tool, Done, Total);
    if (Done == Total)
      errs() << "\n";
    errs().flush();
  };
}

/// The reports of one geometry's sweep: the files asked for (each path
/// with the geometry's suffix, see geometryPath) through the library's
/// writeReports, then the table on stdout unless a machine-readable report
/// takes it.
static Error writeGeometryReports(const SweepResult &R, const GateResult &G,
                                  const CacheGeometry &Geo) {
  auto PathOf = [&](const cl::opt<std::string> &Opt) -> std::string {
    if (!Opt.getNumOccurrences())
      return "";
    return geometryPath(Opt.empty() ? "-" : Opt.getValue(), Geo);
  };
  if (Error E = writeReports(
          R, G, ReportFiles{PathOf(JSON), PathOf(CSV), PathOf(SVG), PathOf(HTML)}))
    return E;
  bool StdoutTaken = (JSON.getNumOccurrences() && (JSON.empty() || JSON == "-")) ||
                     (CSV.getNumOccurrences() && (CSV.empty() || CSV == "-"));
  if (!StdoutTaken)
    writeTextReport(outs(), R, G);
  return Error::success();
}

/// The swept binary's cheapest offset (ties: the smallest), for
/// --best-pad-out. Failed variants never win.
static const Measurement *bestVariant(const SweepResult &R) {
  const Measurement *Best = nullptr;
  for (const Measurement &M : R.Ms)
    if (!M.Failed && (!Best || M.Cost < Best->Cost ||
                      (M.Cost == Best->Cost && M.V.Offset < Best->V.Offset)))
      Best = &M;
  return Best;
}

static Error writeBestPad(const SweepResult &R) {
  const Measurement *Best = bestVariant(R);
  if (!Best)
    return inputError(BestPadOut, 0, "no variant was measured: no best pad");
  std::optional<double> Pad0;
  for (const Measurement &M : R.Ms)
    if (!M.Failed && M.V.Offset == 0)
      Pad0 = M.Cost;
  if (Error E = writeOutput(BestPadOut, [&](raw_ostream &OS) {
        json::OStream J(OS, 2);
        J.object([&] {
          J.attribute("axis", R.Axis);
          J.attribute("pad", Best->V.Offset);
          J.attribute("cost", Best->Cost);
          J.attribute("baseline_pad0_cost",
                      Pad0 ? json::Value(*Pad0) : json::Value(nullptr));
        });
        OS << "\n";
        return Error::success();
      }))
    return E;
  errs() << formatv("{0}: best {1} pad {2} (cost {3:F1}", Tool, R.Axis,
                    Best->V.Offset, Best->Cost);
  if (Pad0)
    errs() << formatv("; pad 0: {0:F1}, ratio {1:F4}", *Pad0,
                      *Pad0 ? Best->Cost / *Pad0 : 0.0);
  errs() << ") -> " << BestPadOut << "\n";
  return Error::success();
}

//===----------------------------------------------------------------------===//
// The automatic sweep: `layout-sweep ./bin` with no axis options.
//===----------------------------------------------------------------------===//

static bool isAutomatic() {
  return !Axis.getNumOccurrences() && Relink.empty() && BoltPad.empty() &&
         CompareRelink.empty() && !FalseSharing;
}

/// Options that report one axis only.
static Error checkAutoOptions() {
  if (I1.size() > 1)
    return inputError("<command line>", 0,
                      "several --I1 measure one axis in several geometries; "
                      "with no --axis the sweep covers several axes: add "
                      "--axis=code (with --relink or --bolt-pad) or another "
                      "--axis");
  if (BestPadOut.getNumOccurrences())
    return inputError("<command line>", 0,
                      "--best-pad-out writes the best offset of one axis "
                      "(layout-order --code-pad=@FILE reads the code axis'), "
                      "and with no --axis the sweep covers several; add "
                      "--axis=code (with --relink or --bolt-pad) or another "
                      "--axis");
  return Error::success();
}

/// Progress of the automatic sweep on stderr: the estimate after the first
/// round of variants (and a trial relink when code or data are swept), then a terminal line (or, when stderr is not a
/// terminal, one line per finished axis).
struct AutoProgress {
  size_t Total = 0, Before = 0; ///< all variants; those of finished axes
  size_t Rebuilt = 0;           ///< variants relinked (or BOLTed) first
  std::optional<double> BuildSeconds; ///< one trial relink, when Rebuilt
  std::string BuildWhat;        ///< "relink", "llvm-bolt run"
  unsigned Parallel = 1;
  std::string Axis;
  bool Estimated = false;
  bool Terminal = sys::Process::StandardErrIsDisplayed();
  std::chrono::steady_clock::time_point Start = std::chrono::steady_clock::now(),
                                        AxisStart = Start;

  double seconds(std::chrono::steady_clock::time_point From) const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - From)
        .count();
  }
  void startAxis(StringRef A) {
    Axis = A.str();
    AxisStart = std::chrono::steady_clock::now();
  }
  void update(size_t Done, size_t AxisTotal) {
    // The first round (as many variants as run at a time) gives one round's
    // time; a single variant would miss the others' contention for the cores.
    size_t Round = std::min<size_t>(std::max(1u, Parallel), AxisTotal);
    if (!Estimated && Done >= Round) {
      Estimated = true;
      double First = seconds(Start);
      // Parallel variants finish together: one round's time per round, plus
      // a build for each variant of code and data.
      double Build = BuildSeconds ? *BuildSeconds : 0;
      double P = std::max(1u, Parallel);
      double Estimate = First * std::ceil(Total / P) + Build * Rebuilt / P;
      errs() << formatv("{0}: first {1} measured in {2:F1} s", Tool,
                        Round == 1 ? std::string("variant")
                                   : std::to_string(Round) + " variants",
                        First);
      if (BuildSeconds)
        errs() << formatv("; a trial {0} took {1:F1} s ({2} variants are "
                          "built that way)",
                          BuildWhat, Build, Rebuilt);
      errs() << formatv("; estimate about {0:F0} s for all {1}\n", Estimate,
                        Total);
    }
    if (Terminal) {
      errs() << formatv("\r{0}: {1} {2}/{3}, {4}/{5} in all", Tool, Axis, Done,
                        AxisTotal, Before + Done, Total);
      if (Done == AxisTotal)
        errs() << "\n";
    } else if (Done == AxisTotal) {
      errs() << formatv("{0}: {1}: {2} variants measured in {3:F0} s\n", Tool,
                        Axis, AxisTotal, seconds(AxisStart));
    }
    errs().flush();
  }
};

/// Every output must be writable before the sweep.
static Error checkOutputsWritable() {
  for (cl::opt<std::string> *Opt : {&JSON, &CSV, &SVG, &HTML})
    if (Opt->getNumOccurrences())
      if (Error E = checkOutputPath(Opt->empty() ? "-" : Opt->getValue()))
        return E;
  return Error::success();
}

/// --baseline's result of each axis (none without it), read before the
/// sweep: a bad baseline must not cost one.
static Expected<std::map<std::string, SweepResult>>
readBaselines(const GateOptions &GO) {
  if (Baseline.empty())
    return std::map<std::string, SweepResult>();
  Expected<std::map<std::string, SweepResult>> B = readBaselineAxes(Baseline);
  if (!B)
    return B.takeError();
  if (GO.MaxMispredictRise)
    for (const auto &[Axis, R] : *B)
      if (Error E = checkMispredictBaseline(R, Baseline))
        return std::move(E);
  return B;
}

/// Refuse what cannot be swept at all (a missing file, an object file, a
/// non-executable) before announcing a sweep; runSweep checks each axis
/// again.
static Error checkSweepable(const EngineOptions &Base) {
  if (!sys::fs::exists(Base.Binary))
    return inputError(Base.Binary, 0, "no such file");
  std::vector<std::pair<std::string, std::string>> Binaries = {{"base", Base.Binary}};
  if (Base.CompareBinary)
    Binaries.push_back({"compare", *Base.CompareBinary});
  // The env axis runs any executable as it is.
  PerturbOptions Env = Base.Perturb;
  Env.Axis = "env";
  return Perturber::check(Env, Binaries);
}

/// --compare: an axis is swept only when the compared binary can be moved
/// the same way (\p CAxes: its plan); code and data relink it too.
static void matchCompareAxes(std::vector<AutoAxis> &Axes,
                             ArrayRef<AutoAxis> CAxes, StringRef Compare) {
  for (AutoAxis &A : Axes) {
    auto C = find_if(CAxes, [&](const AutoAxis &X) { return X.Axis == A.Axis; });
    if (!A.Swept || C == CAxes.end())
      continue;
    if (!C->Swept || (A.BoltFunction.empty() != C->BoltFunction.empty())) {
      A.Swept = false;
      A.Why = formatv("the --compare binary {0} cannot be moved the same way: "
                      "{1}",
                      Compare, C->Swept ? C->How : C->Why)
                  .str();
      A.Enable = C->Enable;
      continue;
    }
    A.CompareRelinkArgv = C->RelinkArgv;
    A.CompareRelinkDir = C->RelinkDir;
  }
}

/// Which axes can be swept, and how (planAutoAxes, for the binary and the
/// --compare binary).
static Expected<std::vector<AutoAxis>> planAxes(const EngineOptions &Base) {
  bool HaveBolt = false;
  if (Expected<std::string> B = findProgram("llvm-bolt"))
    HaveBolt = true;
  else
    consumeError(B.takeError());
  Expected<std::vector<AutoAxis>> Axes =
      planAutoAxes(Base.Binary, Base.Perturb.HeapShim, Base.Perturb.StackShim,
                   HaveBolt);
  if (!Axes)
    return Axes.takeError();
  if (Base.CompareBinary) {
    Expected<std::vector<AutoAxis>> CAxes =
        planAutoAxes(*Base.CompareBinary, Base.Perturb.HeapShim,
                     Base.Perturb.StackShim, HaveBolt);
    if (!CAxes)
      return CAxes.takeError();
    matchCompareAxes(*Axes, *CAxes, *Base.CompareBinary);
  }
  return Axes;
}

/// The line that says what is swept, how many variants, and what is not.
static void announceSweep(const EngineOptions &Base, ArrayRef<AutoAxis> Axes,
                          const AutoProgress &Progress, size_t PerAxis) {
  std::string Names, Skipped;
  for (const AutoAxis &A : Axes) {
    std::string &L = A.Swept ? Names : Skipped;
    L += (L.empty() ? "" : ", ") + A.Axis;
  }
  errs() << formatv("{0}: sweeping {1} of {2}: {3} variants ({4} per axis, "
                    "offsets {5}..{6} by {7}), backend {8}, {9} at a time",
                    Tool, Names, Base.Binary, Progress.Total, PerAxis,
                    Base.G.From, Base.G.To, Base.G.Step, Base.Backend,
                    Progress.Parallel);
  if (!Skipped.empty())
    errs() << "; not swept: " << Skipped << " (see the summary)";
  errs() << "\n";
}

/// The engine options of one axis.
static EngineOptions axisOptions(const EngineOptions &Base, const AutoAxis &A) {
  EngineOptions O = Base;
  O.Perturb.Axis = A.Axis;
  O.Perturb.RelinkArgv = A.RelinkArgv;
  O.Perturb.RelinkDir = A.RelinkDir;
  O.Perturb.CompareRelinkArgv = A.CompareRelinkArgv;
  O.Perturb.CompareRelinkDir = A.CompareRelinkDir;
  O.Perturb.BoltFunction = A.BoltFunction;
  return O;
}

/// Code and data build every variant (relink or llvm-bolt) before it is
/// measured: time one such build now, so the estimate includes them.
static void timeTrialBuild(const EngineOptions &Base,
                           ArrayRef<AutoAxis *> ToSweep, size_t PerAxis,
                           AutoProgress &Progress) {
  bool Tried = false;
  for (AutoAxis *AP : ToSweep) {
    if (AP->RelinkArgv.empty() && AP->BoltFunction.empty())
      continue;
    Progress.Rebuilt += PerAxis;
    if (Tried)
      continue;
    Tried = true;
    Expected<double> T = timeOneVariantBuild(axisOptions(Base, *AP));
    if (!T) { // the sweep of that axis will say what is wrong
      consumeError(T.takeError());
      continue;
    }
    Progress.BuildSeconds = *T;
    Progress.BuildWhat = AP->RelinkArgv.empty() ? "llvm-bolt run" : "relink";
  }
}

/// Sweep each axis of \p ToSweep in turn and gate its result. An axis that
/// needs a build and fails (after one that worked) is marked not swept;
/// any other failure stops the whole sweep. Each axis' journal goes to
/// \p Journals.
static Expected<std::vector<AutoOutcome>>
sweepAxes(const EngineOptions &Base, const GateOptions &GO,
          const std::map<std::string, SweepResult> &Baselines,
          ArrayRef<AutoAxis *> ToSweep, size_t PerAxis, AutoProgress &Progress,
          std::vector<std::string> &Journals) {
  std::vector<AutoOutcome> Outcomes;
  for (AutoAxis *AP : ToSweep) {
    AutoAxis &A = *AP;
    EngineOptions O = axisOptions(Base, A);
    if (!KeepDir.empty())
      O.WorkDir = KeepDir + "/" + A.Axis;
    if (!O.JournalPath.empty()) {
      O.JournalPath += "." + A.Axis;
      if (Error E = checkOutputPath(O.JournalPath))
        return std::move(E);
      Journals.push_back(O.JournalPath);
    }
    Progress.startAxis(A.Axis);
    std::mutex ProgressLock;
    O.Progress = [&](size_t Done, size_t Total) {
      std::lock_guard<std::mutex> G(ProgressLock);
      Progress.update(Done, Total);
    };
    Expected<SweepResult> R = runSweep(O);
    Progress.Before += PerAxis;
    if (!R) {
      Error E = R.takeError();
      // The machine lacks the backend, or the program itself fails as it
      // is: nothing else can be swept either.
      if (Outcomes.empty() || E.isA<UnavailableError>() ||
          (A.RelinkArgv.empty() && A.BoltFunction.empty()))
        return std::move(E);
      A.Swept = false;
      A.Why = toString(std::move(E));
      A.Enable = "see the message; --axis=" + A.Axis + " --keep-dir=DIR keeps "
                 "each variant's relink.log";
      WithColor::warning(errs(), Tool) << A.Axis << ": not swept: " << A.Why << "\n";
      continue;
    }
    auto BIt = Baselines.find(A.Axis);
    Expected<GateResult> G =
        evaluateGate(*R, GO, BIt == Baselines.end() ? nullptr : &BIt->second);
    if (!G)
      return G.takeError();
    if (!Baseline.empty() && BIt == Baselines.end())
      G->Info.push_back(formatv("--baseline {0} has no {1} axis: this axis is "
                                "not compared with it",
                                Baseline.getValue(), A.Axis)
                            .str());
    Outcomes.push_back({&A, std::move(*R), std::move(*G)});
  }
  return Outcomes;
}

/// Write what \p Fn writes to the file \p Opt names ("-" or no value:
/// stdout), when \p Opt was given.
static Error writeIfAsked(cl::opt<std::string> &Opt,
                          function_ref<void(raw_ostream &)> Fn) {
  if (!Opt.getNumOccurrences())
    return Error::success();
  return writeOutput(Opt.empty() ? "-" : Opt.getValue(), [&](raw_ostream &OS) {
    Fn(OS);
    return Error::success();
  });
}

/// The reports asked for, and the text table on stdout unless a
/// machine-readable report goes there.
static Error writeAutoReports(StringRef Binary, ArrayRef<AutoAxis> Axes,
                              ArrayRef<AutoOutcome> Outcomes) {
  if (Error E = writeIfAsked(JSON, [&](raw_ostream &OS) {
        OS << formatv("{0:2}", autoReportJSON(Binary, Axes, Outcomes)) << "\n";
      }))
    return E;
  if (Error E = writeIfAsked(
          CSV, [&](raw_ostream &OS) { writeAutoCSVReport(OS, Outcomes); }))
    return E;
  if (Error E = writeIfAsked(
          SVG, [&](raw_ostream &OS) { writeAutoSVGPlot(OS, Outcomes); }))
    return E;
  if (Error E = writeIfAsked(HTML, [&](raw_ostream &OS) {
        writeAutoHTMLReport(OS, Binary, Axes, Outcomes);
      }))
    return E;
  bool StdoutTaken = (JSON.getNumOccurrences() && (JSON.empty() || JSON == "-")) ||
                     (CSV.getNumOccurrences() && (CSV.empty() || CSV == "-"));
  if (!StdoutTaken)
    writeAutoTextReport(outs(), Binary, Axes, Outcomes);
  outs().flush();
  return Error::success();
}

/// The notes of every swept axis, then the first failed gate: the exit
/// status.
static int reportOutcomes(ArrayRef<AutoOutcome> Outcomes) {
  for (const AutoOutcome &O : Outcomes)
    for (const std::string &N : O.R.Notes)
      WithColor::note(errs(), Tool) << O.A->Axis << ": " << N << "\n";
  for (const AutoOutcome &O : Outcomes)
    if (O.G.Failed) {
      WithColor::error(errs(), Tool)
          << "gate failed: " << O.A->Axis << ": "
          << (O.G.Reasons.empty() ? O.G.Verdict : O.G.Reasons.front()) << "\n";
      return ExitCheckFailed;
    }
  return ExitOK;
}

static int runAuto(const char *Argv0) {
  if (Error E = checkAutoOptions())
    return reportError(Tool, std::move(E));
  bool ImplicitJournal = false;
  Expected<EngineOptions> Base = buildOptions(Argv0, ImplicitJournal);
  if (!Base)
    return reportError(Tool, Base.takeError());
  bool GridGiven = GridPreset.getNumOccurrences() || From.getNumOccurrences() ||
                   To.getNumOccurrences() || Step.getNumOccurrences();
  if (!GridGiven)
    Base->G = autoGrid();
  Expected<GateOptions> GO = gateOptions();
  if (!GO)
    return reportError(Tool, GO.takeError());
  if (Error E = checkOutputsWritable())
    return reportError(Tool, std::move(E));
  Expected<std::map<std::string, SweepResult>> Baselines = readBaselines(*GO);
  if (!Baselines)
    return reportError(Tool, Baselines.takeError());
  if (Error E = checkSweepable(*Base))
    return reportError(Tool, std::move(E));
  Expected<std::vector<AutoAxis>> Axes = planAxes(*Base);
  if (!Axes)
    return reportError(Tool, Axes.takeError());

  std::vector<AutoAxis *> ToSweep;
  for (AutoAxis &A : *Axes)
    if (A.Swept)
      ToSweep.push_back(&A);
  size_t PerAxis = Base->G.offsets().size() * (Base->CompareBinary ? 2 : 1);
  AutoProgress Progress;
  Progress.Total = PerAxis * ToSweep.size();
  Progress.Parallel = Base->Jobs ? Base->Jobs
                                 : std::max(1u, std::thread::hardware_concurrency());
  if (!isSimBackend(Base->Backend))
    Progress.Parallel = 1;
  announceSweep(*Base, *Axes, Progress, PerAxis);
  timeTrialBuild(*Base, ToSweep, PerAxis, Progress);
  Progress.Start = Progress.AxisStart = std::chrono::steady_clock::now();

  std::vector<std::string> Journals;
  Expected<std::vector<AutoOutcome>> Outcomes = sweepAxes(
      *Base, *GO, *Baselines, ToSweep, PerAxis, Progress, Journals);
  if (!Outcomes)
    return reportError(Tool, Outcomes.takeError());
  if (Error E = writeAutoReports(Base->Binary, *Axes, *Outcomes))
    return reportError(Tool, std::move(E));
  if (ImplicitJournal)
    for (const std::string &J : Journals)
      sys::fs::remove(J);
  return reportOutcomes(*Outcomes);
}

/// The sweep (or --print-cost) the parsed command line asks for.
static Expected<int> runCommand(const char *Argv0) {
  if (PrintCost) {
    CostWeights W;
    Expected<CostPreset> P = costModel(W);
    if (!P)
      return P.takeError();
    outs() << costPresetJSON(*P, W) << "\n";
    return ExitOK;
  }

  if (isAutomatic())
    return runAuto(Argv0);

  bool ImplicitJournal = false;
  Expected<EngineOptions> O = buildOptions(Argv0, ImplicitJournal);
  if (!O)
    return O.takeError();
  Expected<GateOptions> GO = gateOptions();
  if (!GO)
    return GO.takeError();
  std::optional<SweepResult> BaselineResult;
  if (!Baseline.empty()) { // read it first: a bad file must not cost a sweep
    Expected<SweepResult> B = readResultFile(Baseline);
    if (!B)
      return B.takeError();
    if (GO->MaxMispredictRise)
      if (Error E = checkMispredictBaseline(*B, Baseline))
        return std::move(E);
    BaselineResult = std::move(*B);
  }
  if (GO->MaxMispredictRise && O->Backend == "time")
    return inputError("--max-mispredict-rise", 0,
                      "--backend=time counts no branch "
                      "mispredicts (sim, cachegrind or perf do)");
  // Every output (and the journal) must be writable before a sweep that may
  // take hours runs, and a bad one must not leave the others written.
  std::vector<CacheGeometry> Geos = {O->Geometry};
  Geos.insert(Geos.end(), O->MoreGeometries.begin(), O->MoreGeometries.end());
  if (Geos.size() > 1 && (!BestPadOut.empty() || !Baseline.empty()))
    return inputError("<command line>", 0,
                      "--best-pad-out and --baseline take one "
                      "geometry: give --I1 once");
  if (Geos.size() > 1 && !isSimBackend(O->Backend))
    return inputError("<command line>", 0,
                      "several --I1 need --backend=sim or "
                      "cachegrind (a timed sweep has no "
                      "cache geometry)");
  for (const CacheGeometry &Geo : Geos)
    for (cl::opt<std::string> *Opt : {&JSON, &CSV, &SVG, &HTML})
      if (Opt->getNumOccurrences())
        if (Error E = checkOutputPath(
                geometryPath(Opt->empty() ? "-" : Opt->getValue(), Geo)))
          return std::move(E);
  if (!BestPadOut.empty())
    if (Error E = checkOutputPath(BestPadOut))
      return std::move(E);
  std::vector<std::string> JournalPaths = {O->JournalPath};
  JournalPaths.insert(JournalPaths.end(), O->MoreJournalPaths.begin(),
                      O->MoreJournalPaths.end());
  for (const std::string &J : JournalPaths)
    if (!J.empty())
      if (Error E = checkOutputPath(J))
        return std::move(E);
  O->Progress = progressPrinter();

  Expected<std::vector<SweepResult>> Rs = runSweeps(*O);
  if (!Rs)
    return Rs.takeError();
  bool GateFailed = false;
  for (size_t K = 0; K < Rs->size(); ++K) {
    const SweepResult &R = (*Rs)[K];
    Expected<GateResult> G =
        evaluateGate(R, *GO, BaselineResult ? &*BaselineResult : nullptr);
    if (!G)
      return G.takeError();
    if (Error E = writeGeometryReports(R, *G, Geos[K]))
      return std::move(E);
    if (!BestPadOut.empty())
      if (Error E = writeBestPad(R))
        return std::move(E);
    for (const std::string &N : R.Notes)
      WithColor::note(errs(), Tool) << N << "\n";
    if (G->Failed) {
      WithColor::error(errs(), Tool)
          << "gate failed"
          << (Rs->size() > 1 ? " (" + R.CacheGeometry + ")" : "") << ": "
          << (G->Reasons.empty() ? G->Verdict : G->Reasons.front()) << "\n";
      GateFailed = true;
    }
  }
  // A completed sweep no longer needs the journal the user did not ask for.
  if (ImplicitJournal)
    for (const std::string &J : JournalPaths)
      sys::fs::remove(J);
  return GateFailed ? ExitCheckFailed : ExitOK;
}

static const char *const Overview =
    "layout-sweep: measure how much a program's speed depends on its layout\n\n"
    "  layout-sweep ./app args\n"
    "      every axis this binary can move, one combined report: stack and\n"
    "      heap (dynamically linked programs: LD_PRELOAD shims), env (the\n"
    "      environment's size, which also moves the stack), code and data\n"
    "      (programs linked through layout-link or keel_layout(), or code\n"
    "      through llvm-bolt with -Wl,--emit-relocs); one line for each axis\n"
    "      it cannot move, saying what enables it\n"
    "  layout-sweep --axis=stack --backend=sim ./app args\n"
    "  layout-sweep --relink='./build.sh default objs {pad} {out}' --geometry=small ./app\n\n"
    "Exit: 0 ok, 1 gate failed, 2 bad input, 3 machine lacks the backend.\n";

int main(int argc, char **argv) {
  // A task of a --executor=slurm job array (the script sbatch runs).
  if (argc == 3 && StringRef(argv[1]) == "--slurm-task")
    return runTool(argc, argv, {Tool, "", {}, /*ParseOptions=*/false},
                   [&] { return exitStatus(runSlurmTask(argv[2])); });
  // --print-cost needs no binary.
  for (int I = 1; I < argc; ++I)
    if (StringRef(argv[I]) == "--print-cost" ||
        StringRef(argv[I]) == "-print-cost")
      BinaryArg.setNumOccurrencesFlag(cl::Optional);
  return runTool(argc, argv, {Tool, Overview, {&Cat}},
                 [&] { return runCommand(argv[0]); });
}
