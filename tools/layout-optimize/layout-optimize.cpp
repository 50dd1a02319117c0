//===- layout-optimize.cpp - the recommended build in one command ---------===//
//
// layout-optimize --workload='ARGS' [--binary=NAME] -- BUILD COMMAND...
//
// Options -> keel::optimize::runOptimize (keel/Optimize/Optimize.h), which
// builds through keel-cc, profiles, plans, rebuilds, guards and reports.
// --guard-only --default=BIN --candidate=NAME=BIN...: the guard step alone
// on builds made elsewhere (keel::optimize::runGuardOnly, Measure.h), its
// decision as JSON.
//
//===----------------------------------------------------------------------===//
#include "keel/Optimize/CommandLog.h"
#include "keel/Optimize/Measure.h"
#include "keel/Optimize/Optimize.h"
#include "keel/Planner/FunctionOrder.h"
#include "keel/Support/Diagnostics.h"
#include "keel/Support/OutputFile.h"
#include "keel/Support/Process.h"
#include "keel/Support/Tool.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

using namespace llvm;
using namespace keel;

static const char *const Tool = "layout-optimize";

namespace {
cl::OptionCategory Cat("layout-optimize options");
cl::list<std::string> BuildCmd(cl::Positional, cl::desc("-- <build command>..."),
                               cl::cat(Cat));
cl::opt<std::string> Workload(
    "workload", cl::desc("the program's arguments for the profile and the guard "
                         "(split into words, quotes group, no shell)"),
    cl::value_desc("args"), cl::cat(Cat));
cl::opt<std::string> BinaryOpt(
    "binary", cl::desc("the program to optimize: its path or file name as the "
                       "build links it (default: the last program linked)"),
    cl::value_desc("name"), cl::cat(Cat));
cl::opt<std::string> DirOpt("dir", cl::desc("the plan directory: plans, objects, "
                                            "builds, the report (default keel-optimize)"),
                            cl::init("keel-optimize"), cl::value_desc("dir"),
                            cl::cat(Cat));
cl::opt<std::string> CommandsOpt(
    "commands", cl::desc("the compile/link command log (default DIR/commands.jsonl); "
                         "with no build command it is read as it is"),
    cl::value_desc("file"), cl::cat(Cat));
cl::opt<std::string> CC("cc", cl::desc("the compiler keel-cc runs (default clang-22)"),
                        cl::init("clang-22"), cl::value_desc("path"), cl::cat(Cat));
cl::opt<std::string> Backend("backend", cl::desc("layout-sweep backend for the guard "
                                                 "and the table: sim or perf (default sim)"),
                             cl::init("sim"), cl::cat(Cat));
cl::opt<std::string> Cost("cost", cl::desc("layout-sweep --cost model with the sim "
                                           "backend: skylake (the default, the corpus' "
                                           "model) or zen4; cachegrind's is refused"),
                          cl::init("skylake"), cl::cat(Cat));
cl::list<std::string> EnvOpt(
    "env", cl::desc("NAME=VALUE added to the environment of every layout-sweep "
                    "run of the guard and the table (layout-sweep --env; they "
                    "run in its fixed environment), e.g. a program's TCL_LIBRARY; "
                    "repeatable. The build and the profile run in this one's"),
    cl::value_desc("name=value"), cl::cat(Cat));
cl::opt<unsigned> GuardVariants("guard-variants",
                                cl::desc("environment offsets the guard measures "
                                         "(0, 1024, ...; default 4)"),
                                cl::init(4), cl::cat(Cat));
cl::opt<unsigned> CodeVariants("code-variants",
                               cl::desc("code pads of the table's short code sweep "
                                        "(0, 64, ...; default 4; 0 = none)"),
                               cl::init(4), cl::cat(Cat));
cl::opt<bool> TuneCodePad(
    "tune-code-pad",
    cl::desc("after the guard, move the kept plan's hot region by 0, 64, ... "
             "4032 bytes in its page, measure each offset on the workload "
             "(sim: under I1 32 KB 8-way and 8 KB 2-way, costs summed), bake "
             "the cheapest into the plan (layout-order --code-pad) and relink "
             "(default on; --tune-code-pad=false keeps the plan's pad 0)"),
    cl::init(true), cl::cat(Cat));
cl::list<std::string> TuneOrders(
    "tune-orders", cl::CommaSeparated,
    cl::desc("with --tune-code-pad, function orders also tried besides the "
             "plan's own (c3): each relinked from the same objects and swept "
             "over the same 64 offsets; the order of lowest mean cost over "
             "them is kept, then its cheapest offset (default cdsort; c3, ph, "
             "cdsort, exttsp, none; --tune-orders= tries the plan's order only)"),
    cl::value_desc("order,..."), cl::cat(Cat));
cl::opt<unsigned> Jobs("j", cl::Prefix, cl::desc("commands and variants run in "
                                                 "parallel (default 2)"),
                       cl::init(2), cl::cat(Cat));
cl::opt<bool> Force("force", cl::desc("run every step even when the stamp says "
                                      "nothing changed"),
                    cl::cat(Cat));
cl::opt<bool> PackLinkedSizes(
    "pack-linked-sizes",
    cl::desc("after a candidate's first link, plan it again with the linked "
             "sizes of its packed hot functions (layout-order "
             "--section-sizes: the spacers by real sizes, not estimates; the "
             "order is the same) and relink it once (default on; "
             "--pack-linked-sizes=false packs by the estimates)"),
    cl::init(true), cl::cat(Cat));
cl::opt<std::string> JSON("json", cl::desc("also write the report as JSON here "
                                           "(always in DIR/report.json)"),
                          cl::value_desc("file"), cl::cat(Cat));
cl::opt<bool> GuardOnly(
    "guard-only", cl::desc("only the guard: measure --default and each --candidate "
                           "on the workload as the guard step does, print the "
                           "decision as JSON (stdout, or --json)"),
    cl::cat(Cat));
cl::opt<std::string> DefaultBin("default", cl::desc("--guard-only: the default build"),
                                cl::value_desc("binary"), cl::cat(Cat));
cl::list<std::string> CandidateBins(
    "candidate", cl::desc("--guard-only: a candidate build, judged in the order "
                          "given (the first that passes is kept)"),
    cl::value_desc("name=binary"), cl::cat(Cat));
} // namespace

/// --guard-only: the builds named on the command line, judged by the guard.
static Expected<int> runGuardCommand(const optimize::OptimizeOptions &O) {
  if (!O.Build.empty())
    return usageError("--guard-only takes no build command (the builds are "
                      "--default and --candidate)");
  if (DefaultBin.empty() || CandidateBins.empty())
    return usageError("--guard-only needs --default=BIN and at least one "
                      "--candidate=NAME=BIN");
  std::vector<optimize::GuardBuild> Cands;
  for (StringRef C : CandidateBins) {
    auto [N, B] = C.split('=');
    if (N.empty() || B.empty() || N == "default" ||
        N.find_first_of("/ ") != StringRef::npos)
      return usageError("--candidate: '{0}' is not NAME=BINARY (a name other "
                        "than default, without '/' or spaces)",
                        C);
    for (const optimize::GuardBuild &Seen : Cands)
      if (Seen.Name == N)
        return usageError("--candidate: '{0}' given twice", N);
    Cands.push_back({N.str(), B.str()});
  }
  if (!sys::fs::exists(DefaultBin))
    return inputError(DefaultBin, 0, "--default: no such binary");
  for (const optimize::GuardBuild &C : Cands)
    if (!sys::fs::exists(C.Binary))
      return inputError(C.Binary, 0, "--candidate {0}: no such binary", C.Name);
  Expected<json::Value> J =
      optimize::runGuardOnly(O, {"default", DefaultBin}, Cands, errs());
  if (!J)
    return J.takeError();
  std::string Path = JSON.empty() ? "-" : std::string(JSON);
  if (Error E = writeOutput(Path, [&](raw_ostream &OS) {
        OS << formatv("{0:2}", *J) << "\n";
        return Error::success();
      }))
    return std::move(E);
  return ExitOK;
}

static Expected<int> runCommand(const char *Argv0) {
  optimize::OptimizeOptions O;
  O.Build.assign(BuildCmd.begin(), BuildCmd.end());
  if (O.Build.empty() && CommandsOpt.empty() && !GuardOnly)
    return usageError("no build command: layout-optimize --workload='ARGS' -- "
                      "make -j2 (or --commands=FILE: a log keel-cc wrote)");
  // What the build needs, refused before the first step runs.
  if (!O.Build.empty())
    if (Expected<std::string> P = findCommand(O.Build.front()); !P)
      return P.takeError();
  if (!CommandsOpt.empty() && O.Build.empty()) {
    Expected<std::vector<optimize::RecordedCommand>> Cmds =
        optimize::readCommandLog(CommandsOpt);
    if (!Cmds)
      return Cmds.takeError();
    if (Cmds->empty())
      return inputError(CommandsOpt, 0, "no commands recorded (an empty "
                                        "command log)");
  }
  if (GuardVariants < 1)
    return usageError("--guard-variants: at least 1");
  // Names become kinds here, once: the guard can use sim or perf.
  std::optional<sweep::BackendKind> BK = sweep::lookupBackendKind(Backend);
  if (BK != sweep::BackendKind::Sim && BK != sweep::BackendKind::Perf)
    return usageError("--backend: '{0}' is neither sim nor perf", Backend);
  // The guard's decision is only as good as its instrument. cachegrind's
  // branch predictor (7 address bits, 7 history bits) ranks Ext-TSP orders
  // against native timing (docs/optimize.md, "The guard"), so it never
  // decides; a front-end model does, or the counters with --backend=perf.
  if (Cost == "cachegrind")
    return usageError("--cost: cachegrind's model does not decide the guard "
                      "(its branch predictor disagrees with native timing about "
                      "block orders): use skylake or zen4, or --backend=perf");
  if (Cost != "skylake" && Cost != "zen4")
    return usageError("--cost: '{0}' is neither skylake nor zen4", Cost);
  Expected<std::vector<std::string>> W =
      Workload.empty() ? std::vector<std::string>() : splitCommandTemplate(Workload);
  if (!W)
    return usageError("--workload: {0}", toString(W.takeError()));
  O.Workload = *W;
  for (StringRef E : EnvOpt) {
    if (E.split('=').first.empty() || !E.contains('='))
      return usageError("--env: '{0}' is not NAME=VALUE", E);
    O.SweepEnv.push_back(E.str());
  }
  O.Binary = BinaryOpt;
  O.Dir = DirOpt;
  O.CommandLog = CommandsOpt;
  O.Compiler = CC;
  O.Backend = *BK;
  O.Cost = Cost;
  O.GuardVariants = GuardVariants;
  O.CodeVariants = CodeVariants;
  O.TuneCodePad = TuneCodePad;
  if (TuneOrders.getNumOccurrences()) {
    O.TuneOrders.clear();
    for (StringRef N : TuneOrders) {
      if (N.empty())
        continue;
      std::optional<OrderAlgorithm> A = parseOrderAlgorithm(N);
      if (!A)
        return usageError("--tune-orders: unknown order '{0}' (c3, ph, cdsort, "
                          "exttsp, none)",
                          N);
      if (llvm::find(O.TuneOrders, *A) == O.TuneOrders.end()) // once each
        O.TuneOrders.push_back(*A);
    }
  }
  O.Jobs = std::max(1u, unsigned(Jobs));
  O.Force = Force;
  O.PackLinkedSizes = PackLinkedSizes;
  O.JSONPath = JSON;
  std::string Exe = sys::fs::getMainExecutable(Argv0, (void *)&runCommand);
  O.ToolDir = sys::path::parent_path(Exe).str();
  if (GuardOnly)
    return runGuardCommand(O);
  return optimize::runOptimize(O, outs(), errs());
}

static const char *const Overview =
    "layout-optimize: the recommended layout build in one command\n\n"
    "  layout-optimize --workload='-9 -c data.tar' --binary=gzip -- make -j2\n\n"
    "Builds with CC=keel-cc (recording the compile and link commands, with\n"
    "the profiling flags), profiles the program on the workload (valgrind),\n"
    "plans the recommended layout (layout-order's defaults), rebuilds only\n"
    "the program's objects with @plan/compile.rsp and relinks with\n"
    "@plan/link.rsp, then plans it again with its linked hot-part sizes and\n"
    "relinks it once (--pack-linked-sizes), and guards it: default and\n"
    "candidate measured by layout-sweep over 4 environment offsets, the\n"
    "candidate kept only if its mean total cost is lower (else planned again\n"
    "with --block-order=keep; else the default build is kept). The kept\n"
    "plan's hot region then goes to the cheapest of the 64 line offsets of\n"
    "its page, measured on the workload, and of the function orders it tries\n"
    "(the plan's C3, then each of --tune-orders, default cdsort: the order of\n"
    "lowest mean cost over the offsets is kept; --tune-code-pad). Both steps are on\n"
    "by default (=false turns one off). Prints a before/after table and the\n"
    "commands that reproduce it; DIR/report.json. A second run with the same\n"
    "program and profile does nothing. The optimized program is DIR/<name>.\n\n"
    "  layout-optimize --guard-only --default=a.out --candidate=exttsp=b.out \\\n"
    "      --candidate=keep=c.out --workload='ARGS'\n\n"
    "measures builds made elsewhere as the guard does and prints the\n"
    "decision as JSON (decision.kept: the kept build's name).\n\n"
    "Exit: 0 done; 2 bad usage, a failing build or workload, no samples;\n"
    "3 clang, lld, valgrind or a Keel tool missing.\n";

int main(int argc, char **argv) {
  return runTool(argc, argv, {Tool, Overview, {&Cat}},
                 [&] { return runCommand(argv[0]); });
}
