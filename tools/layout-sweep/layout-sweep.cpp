//===- layout-sweep.cpp - measure layout-induced performance variance -----===//
//
// layout-sweep [options] ./bin [args...]
//
// Phases: parse options -> EngineOptions and GateOptions -> one library
// call -> print -> exit 0, 1 when a gate fails (with a one-line reason), or
// the error's status (docs/conventions.md).
//
// With --axis, --relink, --bolt-pad or --false-sharing the library call is
// runAxisSweep (keel/Sweep/AxisSweep.h): runSweeps, evaluateGate and the
// reports of one axis. With none of them the sweep is automatic:
// runAutoSweep (keel/Sweep/AutoSweep.h) sweeps every axis this binary can
// move (keel/Sweep/Auto.h), one after the other on a 16-offset grid, into
// one combined report.
//
//===----------------------------------------------------------------------===//
#include "keel/Support/Diagnostics.h"
#include "keel/Support/Process.h"
#include "keel/Support/Text.h"
#include "keel/Support/Tool.h"
#include "keel/Sweep/Auto.h"
#include "keel/Sweep/AutoSweep.h"
#include "keel/Sweep/AxisSweep.h"
#include "keel/Sweep/DryRun.h"
#include "keel/Sweep/Engine.h"
#include "keel/Sweep/Slurm.h"
#include "keel/SweepReport/Gate.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;
using namespace keel;
using namespace keel::sweep;

static const char *const Tool = "layout-sweep";
/// argv as given, for the reports' provenance.
static std::vector<std::string> CommandLine;

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
                                   "code with --relink or --bolt-pad; code and "
                                   "data of a layout-link'ed binary relink from "
                                   "its link record)"),
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
                     "(0..16 KB by 64), 256k-by-1k (0..256 KB by 1 KB); the "
                     "automatic sweep's grid is 0..960 by 64 per axis"),
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
cl::opt<std::string> MinEffect(
    "min-effect",
    cl::desc("verdict: the spread a layout effect must exceed; above the "
             "noise floor but not this, a spread is negligible (the gate is "
             "unchanged)"),
    cl::value_desc("X%"), cl::init("1%"), cl::cat(Cat));
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
cl::opt<bool> DryRun(
    "dry-run",
    cl::desc("print each variant's relink command and run (shell-quoted for "
             "display; the sweep spawns argv), build and run nothing"),
    cl::cat(Cat));
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
  Expected<double> ME = parsePercent("min-effect", MinEffect);
  if (!ME)
    return ME.takeError();
  GO.MinEffect = *ME;
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
    return usageError("{0} --I1 given; one sweep simulates at most {1}",
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
        return usageError("--I1={0} is given twice", I1[K]);
    if (G.I1.Size == O.Geometry.I1.Size && G.I1.Assoc == O.Geometry.I1.Assoc &&
        G.I1.Line == O.Geometry.I1.Line)
      return usageError("--I1={0} is given twice", I1[K]);
    O.MoreGeometries.push_back(G);
  }
  return Error::success();
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
  // Names become kinds here, once; the library compares kinds.
  Expected<BackendKind> BK = parseBackendKind(Backend);
  if (!BK)
    return BK.takeError();
  O.Backend = *BK;
  if (Error E = buildGrid(O.G))
    return std::move(E);
  if (!FalseSharing) { // which says its own axis (below)
    Expected<AxisKind> AK = parseAxis(Axis);
    if (!AK)
      return AK.takeError();
    O.Perturb.Axis = *AK;
  }
  O.Perturb.RelinkTemplate = Relink;
  O.Perturb.CompareRelinkTemplate = CompareRelink;
  O.Perturb.BoltFunction = BoltPad;
  O.Perturb.HeapShim = HeapShim.empty() ? defaultHeapShim(Argv0) : HeapShim;
  O.Perturb.StackShim = StackShim.empty() ? defaultStackShim(Argv0) : StackShim;
  // The library does not know which program it is in: where keel-sim and
  // this program are is the tool's to say.
  O.KeelSimLib = findKeelSimLib(
      findKeelLibFile(Argv0, (void *)&defaultStackShim, "keel-sim"));
  O.SlurmTaskProgram =
      sys::fs::getMainExecutable(Argv0, (void *)&defaultStackShim);
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
    if (Axis.getNumOccurrences() && lookupAxis(Axis) != AxisKind::FsSpacing)
      return usageError("--false-sharing sweeps axis fs-spacing, not --axis={0}",
                        Axis.getValue());
    O.Perturb.Axis = AxisKind::FsSpacing;
    if (!Backend.getNumOccurrences())
      O.Backend = BackendKind::Time;
    if (O.Backend != BackendKind::Time)
      return usageError("--false-sharing needs --backend=time: the sim backend "
                        "runs threads one at a time (valgrind), so no cache line "
                        "ever moves between cores");
    if (Relink.empty())
      return usageError("--false-sharing needs --relink='clang ... "
                        "-DKEEL_FS_SPACING={{pad} ... -o {{out}'");
    if (!Cpu.getNumOccurrences())
      O.Time.Cpu = -2;
    O.Perturb.ExtraEnv.push_back("KEEL_FS_PIN=1");
  }
  O.Jobs = Jobs;
  O.TimeoutSeconds = Timeout;
  O.Executor = parseExecutorKind(Executor);
  if (O.Executor == ExecutorKind::Template)
    O.ExecutorTemplate = Executor;
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
      O.MoreJournalPaths.push_back(geometryPath(O.JournalPath, G, true, true));
    O.JournalPath = geometryPath(O.JournalPath, O.Geometry, true, true);
  }
  return O;
}

/// What the automatic and the one-axis sweep share: the reports asked for
/// ("" not given, "-" given with no value or "-"), --baseline, whether the
/// journals are the default ones, whether stderr is a terminal.
static void runOptions(SweepRunOptions &RO, bool ImplicitJournal) {
  auto PathOf = [](const cl::opt<std::string> &Opt) -> std::string {
    if (!Opt.getNumOccurrences())
      return "";
    return Opt.empty() ? "-" : Opt.getValue();
  };
  RO.Reports = {PathOf(JSON), PathOf(CSV), PathOf(SVG), PathOf(HTML)};
  RO.Baseline = Baseline;
  RO.RemoveJournals = ImplicitJournal;
  RO.Terminal = sys::Process::StandardErrIsDisplayed();
  RO.Tool = Tool;
  RO.Command = CommandLine;
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
    return usageError("several --I1 measure one axis in several geometries; "
                      "with no --axis the sweep covers several axes: add "
                      "--axis=code (a layout-link'ed binary relinks from "
                      "its record; else with --relink or --bolt-pad) or "
                      "another --axis");
  if (BestPadOut.getNumOccurrences())
    return usageError("--best-pad-out writes the best offset of one axis "
                      "(layout-order --code-pad=@FILE reads the code axis'), "
                      "and with no --axis the sweep covers several; add "
                      "--axis=code (a layout-link'ed binary relinks from "
                      "its record; else with --relink or --bolt-pad) or "
                      "another --axis");
  return Error::success();
}

/// Options -> runAutoSweep (keel/Sweep/AutoSweep.h) -> the text table on
/// stdout, the notes and a failed gate on stderr -> the exit status.
static Expected<int> runAuto(const char *Argv0) {
  if (Error E = checkAutoOptions())
    return std::move(E);
  bool ImplicitJournal = false;
  Expected<EngineOptions> Base = buildOptions(Argv0, ImplicitJournal);
  if (!Base)
    return Base.takeError();
  bool GridGiven = GridPreset.getNumOccurrences() || From.getNumOccurrences() ||
                   To.getNumOccurrences() || Step.getNumOccurrences();
  if (!GridGiven)
    Base->G = autoGrid();
  Expected<GateOptions> GO = gateOptions();
  if (!GO)
    return GO.takeError();
  AutoSweepOptions AO;
  runOptions(AO, ImplicitJournal);
  AO.KeepDir = KeepDir;
  if (DryRun) {
    if (Error E = writeAutoDryRun(outs(), *Base, AO))
      return std::move(E);
    return ExitOK;
  }
  Expected<AutoSweepResult> R = runAutoSweep(*Base, *GO, AO, errs());
  if (!R)
    return R.takeError();
  outs() << R->Text;
  outs().flush();
  for (const std::string &N : R->Notes)
    WithColor::note(errs(), Tool) << N << "\n";
  if (R->GateFailure)
    WithColor::error(errs(), Tool) << "gate failed: " << *R->GateFailure << "\n";
  return R->ExitStatus;
}

/// The sweep (or --print-cost) the parsed command line asks for: options ->
/// EngineOptions and GateOptions -> runAxisSweep (keel/Sweep/AxisSweep.h).
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
  // --axis=code|data on a layout-link'ed binary: its link record relinks
  // the variants, as in the bare sweep.
  if (Expected<bool> Rec = useLinkRecord(*O); !Rec)
    return Rec.takeError();
  Expected<GateOptions> GO = gateOptions();
  if (!GO)
    return GO.takeError();
  if (DryRun) {
    outs() << formatv("dry run of {0}: axis {1}, {2} variants, backend {3}; "
                      "nothing is built or run{4}\n",
                      O->Binary, axisName(O->Perturb.Axis),
                      O->G.offsets().size() * (O->CompareBinary ? 2 : 1),
                      name(O->Backend),
                      O->WorkDir.empty()
                          ? formatv("; {0} is the private work directory",
                                    DryRunWorkDir)
                                .str()
                          : std::string());
    if (Error E = writeAxisDryRun(outs(), *O))
      return std::move(E);
    return ExitOK;
  }
  AxisSweepOptions AO;
  runOptions(AO, ImplicitJournal);
  AO.BestPadOut = BestPadOut;
  return runAxisSweep(*O, *GO, AO, outs(), errs());
}

/// A sweep a signal stopped: its message, then the command that continues
/// it (this one with --resume, shell-quoted for display) when a journal
/// keeps what was measured; the exit status is 128 + the signal.
static Expected<int> stopped(Expected<int> Status, int argc, char **argv) {
  if (Status || !stopSignal())
    return Status;
  // Stopped before the engine measured (a trial relink, a check that runs
  // a program): what failed is the stop, not the command line.
  if (!Status.errorIsA<InterruptedError>()) {
    consumeError(Status.takeError());
    Status = make_error<InterruptedError>(
        stopSignal(), "stopped by " + signalName(stopSignal()) +
                          " before any variant was measured");
  }
  int Sig = 0;
  handleAllErrors(Status.takeError(), [&](const InterruptedError &I) {
    Sig = I.signal();
    WithColor::error(errs(), Tool) << printableMessage(I.message()) << "\n";
  });
  if (!JournalPath.empty() || !firstOutputFile().empty()) {
    std::vector<std::string> Again = {argv[0]};
    if (!Resume)
      Again.push_back("--resume");
    Again.insert(Again.end(), argv + 1, argv + argc);
    WithColor::note(errs(), Tool)
        << "continue with: " << printableMessage(displayCommand(Again)) << "\n";
  }
  return 128 + Sig;
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
    "Exit: 0 ok, 1 gate failed, 2 bad input, 3 machine lacks the backend,\n"
    "130/143 stopped by SIGINT/SIGTERM (it prints the --resume command).\n";

int main(int argc, char **argv) {
  CommandLine.assign(argv, argv + argc);
  // A task of a --executor=slurm job array (the script sbatch runs).
  if (argc == 3 && StringRef(argv[1]) == "--slurm-task")
    return runTool(argc, argv, {Tool, "", {}, /*ParseOptions=*/false},
                   [&] { return exitStatus(runSlurmTask(argv[2])); });
  // --print-cost needs no binary.
  for (int I = 1; I < argc; ++I)
    if (StringRef(argv[I]) == "--print-cost" ||
        StringRef(argv[I]) == "-print-cost")
      BinaryArg.setNumOccurrencesFlag(cl::Optional);
  return runTool(argc, argv, {Tool, Overview, {&Cat}}, [&] {
    // SIGINT/SIGTERM stop the children, remove the work directory and keep
    // the journal (Process.h, StopOnSignals).
    StopOnSignals Stop;
    return stopped(runCommand(argv[0]), argc, argv);
  });
}
