//===- Optimize.cpp - the recommended build in one call -------------------===//
//
// The steps of Optimize.h, in order. Each tool the flow runs is the
// product's own (layout-record, layout-order, layout-sweep, beside this
// program), with an argv, its output kept in DIR/logs/.
//
//===----------------------------------------------------------------------===//
#include "keel/LinkRecord/LinkRecord.h"
#include "keel/Optimize/CommandLog.h"
#include "keel/Optimize/LinkedSizes.h"
#include "keel/Optimize/Measure.h"
#include "keel/Optimize/Optimize.h"
#include "keel/Optimize/Replay.h"

#include "keel/Profile/Binary.h"
#include "keel/Profile/Load.h"
#include "keel/Support/Diagnostics.h"
#include "keel/Support/OutputFile.h"
#include "keel/Support/PerfEvent.h"
#include "keel/Support/Process.h"
#include "keel/Support/Tool.h"
#include "keel/Sweep/Auto.h"
#include "keel/Sweep/AxisSweep.h"
#include "keel/Sweep/Guard.h"
#include "keel/Sweep/SimBackend.h"
#include "keel/SweepReport/Gate.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA1.h"
#include "llvm/Support/StringSaver.h"

#include <cstring>
#include <map>

extern char **environ;

using namespace llvm;
using namespace keel::sweep;

namespace keel {
namespace optimize {

namespace {

/// One function order the tune step measures: its layout-order flags on top
/// of the build's, the sweep and its summed cost at each offset.
struct TunedOrder {
  std::string Name;               ///< c3, cdsort, ...
  std::vector<std::string> Flags; ///< {} for the plan's own order
  std::vector<std::string> Sweep;
  std::map<int64_t, double> Costs;
  double Mean = 0;
  int64_t MinPad = 0;
  std::string Skipped; ///< why it was not measured ("" = measured)
};

/// One candidate build: its plan, objects, binary and measurements.
struct Build {
  std::string Name;   ///< "default", "exttsp", "keep"
  std::string Plan;   ///< its plan directory ("" = default)
  std::string Binary; ///< DIR/<name>/<program>
  std::vector<ReplayedCommand> Commands; ///< its rebuild
  std::vector<std::string> PlanArgv;     ///< its layout-order argv
  std::vector<std::string> Sweep;        ///< the guard's layout-sweep argv
  BuildSummary Guard;
  std::optional<BuildSummary> Code; ///< the short code sweep
  std::vector<std::string> CodeSweep;
  std::vector<std::string> Extra; ///< layout-order flags on top of the defaults
  /// --tune-code-pad: the baked pad (0 = none), the sweep that chose it and
  /// its summed costs at that pad and at pad 0.
  int64_t CodePad = 0;
  std::vector<std::string> TuneSweep;
  double TunedCost = 0, UntunedCost = 0;
  std::string TuneNote; ///< the outcome, one line (report.txt's "tune:")
  std::vector<TunedOrder> Orders; ///< [0] = the plan's own order
  size_t Order = 0;               ///< the kept one
};

class Flow {
public:
  Flow(const OptimizeOptions &O, raw_ostream &Out, raw_ostream &Err)
      : O(O), Out(Out), Err(Err) {}
  Expected<int> run();

private:
  const OptimizeOptions &O;
  raw_ostream &Out, &Err;
  std::string Dir, Log, Name, Fdata, Stamp;
  ReplayPlan P;
  std::vector<Build> Builds; ///< [0] = the default build
  std::vector<std::string> Written; ///< removed again on an error

  void progress(StringRef Step, const Twine &Msg) {
    Err << "layout-optimize: " << Step << ": " << Msg << "\n";
    Err.flush();
  }
  std::string path(const Twine &Rel) const { return (Dir + "/" + Rel).str(); }
  std::string tool(StringRef T) const { return (O.ToolDir + "/" + T).str(); }
  Error checkTools();
  Error build();
  Error findProgram();
  Error profile();
  Error recordFailure(const RunResult &R);
  std::string workloadText() const {
    return O.Workload.empty() ? " (no arguments)"
                              : " `" + displayCommand(O.Workload) + "`";
  }
  Expected<std::string> stampKey();
  Expected<bool> upToDate(StringRef Key);
  Error plan(Build &B, ArrayRef<std::string> Extra, StringRef LogName);
  Error rebuild(Build &B);
  Error packLinkedSizes(Build &B, ArrayRef<std::string> Extra);
  Error measure(Build &B, StringRef Tag = "");
  Error codeSweep(Build &B, ArrayRef<std::string> LinkArgv, StringRef Cwd);
  Expected<std::string> relinkTemplate(ArrayRef<std::string> LinkArgv,
                                       StringRef Cwd);
  Error tuneCodePad(Build &B);
  Error tuneSweep(Build &B, TunedOrder &C, StringRef Template, int64_t Step,
                  unsigned N);
  Error report(const GuardDecision &D, const Build &Kept);
  Error candidate(Build &B, ArrayRef<std::string> Extra);
  Error decideAndReport(StringRef Key);
  void removeWritten();
  Expected<RunResult> runLogged(StringRef Step, ArrayRef<std::string> Argv,
                                StringRef LogName,
                                std::optional<std::vector<std::string>> Env = {});
};

} // namespace

Expected<RunResult> Flow::runLogged(StringRef Step, ArrayRef<std::string> Argv,
                                    StringRef LogName,
                                    std::optional<std::vector<std::string>> Env) {
  RunOptions R;
  R.Stdout = path("logs/" + LogName + ".out");
  R.Stderr = path("logs/" + LogName + ".err");
  R.Env = std::move(Env);
  return runProgram(Argv, R);
}

Error Flow::checkTools() {
  Expected<std::string> CC = keel::findProgram(O.Compiler);
  if (!CC)
    return make_error<UnavailableError>(
        formatv("check: the compiler '{0}' is missing (install clang-22, or "
                "name it with --cc): {1}",
                O.Compiler, toString(CC.takeError()))
            .str());
  Expected<std::string> Lld = keel::findProgram("ld.lld");
  if (!Lld)
    return make_error<UnavailableError>(
        "check: lld is missing (install lld-22): the plan's order file and "
        "linker script are lld's: " +
        toString(Lld.takeError()));
  if (O.Backend == sweep::BackendKind::Perf && !hardwareCountersAvailable())
    return make_error<UnavailableError>(
        formatv("check: --backend=perf needs hardware counters, and "
                "perf_event_open of cycles fails here ({0}); the sim backend "
                "(the default) needs none",
                std::strerror(probeCycleCounter()))
            .str());
  for (StringRef T : {"keel-cc", "layout-record", "layout-order", "layout-sweep"})
    if (!sys::fs::can_execute(tool(T)))
      return make_error<UnavailableError>(
          formatv("check: {0} is missing beside layout-optimize ({1})", T,
                  tool(T))
              .str());
  return Error::success();
}

Error Flow::build() {
  if (O.Build.empty()) {
    progress("build", "no build command: using the commands recorded in " + Log);
    return Error::success();
  }
  std::vector<std::string> Env;
  for (char **E = environ; *E; ++E) {
    StringRef KV(*E);
    StringRef K = KV.split('=').first;
    if (K != "CC" && K != "CXX" && K != LogEnv && K != CompilerEnv)
      Env.push_back(KV.str());
  }
  Env.push_back("CC=" + tool("keel-cc"));
  Env.push_back("CXX=" + tool("keel-cc") + " --c++");
  Env.push_back(std::string(LogEnv) + "=" + Log);
  Env.push_back(std::string(CompilerEnv) + "=" + O.Compiler);
  progress("build", formatv("{0} (CC={1}; commands recorded in {2}; its "
                            "output in {3})",
                            displayCommand(O.Build), tool("keel-cc"), Log,
                            path("logs/build.out")));
  RunOptions R;
  R.Env = Env;
  R.Stdout = path("logs/build.out"); // stdout is the table's; stderr passes
  Expected<RunResult> Res = runProgram(O.Build, R);
  if (Res && (Res->Crashed || Res->ExitCode != 0))
    Err << tailOf(path("logs/build.out")) << "\n";
  if (!Res)
    return makeError("build: cannot run `{0}`: {1}", displayCommand(O.Build),
                     toString(Res.takeError()));
  if (Res->Crashed || Res->ExitCode != 0)
    return makeError("build: `{0}` {1}",
                      displayCommand(O.Build),
                      Res->Crashed ? Res->Message
                                   : formatv("exited with status {0}",
                                             Res->ExitCode)
                                         .str());
  return Error::success();
}

Error Flow::findProgram() {
  if (!sys::fs::exists(Log))
    return inputError(Log, 0,
                      "find: no command log: the build ran no compiler "
                      "through keel-cc (does it use $CC?)");
  Expected<std::vector<RecordedCommand>> Cmds = readCommandLog(Log);
  if (!Cmds)
    return Cmds.takeError();
  std::string Want = O.Binary;
  if (StringRef(Want).contains('/')) {
    SmallString<256> Cwd;
    sys::fs::current_path(Cwd);
    Want = absolutePath(Cwd, Want);
  }
  Expected<ReplayPlan> RP = planReplay(*Cmds, Want, Log);
  if (!RP)
    return RP.takeError();
  P = std::move(*RP);
  if (!sys::fs::exists(P.Binary))
    return inputError(Log, P.Link.Line, "find: the recorded link wrote {0}, "
                      "which is gone", P.Binary);
  Name = sys::path::filename(P.Binary).str();
  // The kept program is DIR/NAME, beside DIR's own files and folders.
  for (StringRef Own : {"commands.jsonl", "default", "exttsp", "keep", "logs",
                        "measure", "plan", "plan-keep", "objects-exttsp",
                        "objects-keep", "profile.fdata", "report.json",
                        "report.txt", "stamp"})
    if (Name == Own)
      return usageError("find: the program is named '{0}', as a file of the plan "
                        "directory {1} is; link it under another name",
                        Name, Dir);
  progress("find", formatv("{0}: linked in {1}; {2} compile{3} to replay, "
                           "{4} archive{5}, {6} input{7} linked as {8}",
                           P.Binary, P.Link.Cwd, P.Compiles.size(),
                           P.Compiles.size() == 1 ? "" : "s",
                           P.Archives.size(), P.Archives.size() == 1 ? "" : "s",
                           P.Unrebuilt, P.Unrebuilt == 1 ? "" : "s",
                           P.Unrebuilt == 1 ? "it is" : "they are"));
  return Error::success();
}

Error Flow::recordFailure(const RunResult &R) {
  if (R.Crashed || R.ExitCode == 0)
    return Error::success();
  // layout-record exits with the program's status, or says why it failed.
  Expected<std::string> Text = readWholeFile(path("logs/profile.err"));
  if (!Text)
    return Text.takeError();
  StringRef Marker = "layout-record: error: ";
  size_t At = StringRef(*Text).find(Marker);
  if (At == StringRef::npos)
    return Error::success();
  std::string Why = StringRef(*Text).substr(At + Marker.size()).split('\n').first.str();
  if (StringRef(Why).contains("no object in the profile is the binary"))
    return makeError("profile: no samples in {0}: the workload{1} ran none "
                     "of its code under valgrind ({2})",
                     P.Binary, workloadText(), Why);
  if (R.ExitCode == ExitUnavailable)
    return make_error<UnavailableError>("profile: " + Why);
  return makeError("profile: layout-record failed: {0}", Why);
}

Error Flow::profile() {
  Build D;
  D.Name = "default";
  D.Binary = path("default/" + Name);
  if (std::error_code EC = sys::fs::create_directories(path("default")))
    return makeError("profile: cannot create {0}: {1}", path("default"),
                     EC.message());
  if (std::error_code EC = sys::fs::copy_file(P.Binary, D.Binary))
    return makeError("profile: cannot copy {0}: {1}", P.Binary, EC.message());
  sys::fs::setPermissions(D.Binary, sys::fs::all_read | sys::fs::all_exe |
                                        sys::fs::owner_write);
  Builds.push_back(std::move(D));
  Fdata = path("profile.fdata");
  std::vector<std::string> Argv = {tool("layout-record"), "--source=valgrind",
                                   "-o", Fdata, "--", P.Binary};
  Argv.insert(Argv.end(), O.Workload.begin(), O.Workload.end());
  progress("profile", displayCommand(Argv));
  Expected<RunResult> R = runLogged("profile", Argv, "profile");
  if (!R)
    return R.takeError();
  if (Error E = recordFailure(*R))
    return E;
  if (R->Crashed || R->ExitCode != 0) {
    Err << tailOf(path("logs/profile.err")) << "\n";
    return makeError("profile: the workload `{0}` {1} (its output: {2}, {3})",
                     displayCommand(ArrayRef(Argv).drop_front(5)),
                     R->Crashed ? R->Message
                                : formatv("exited with status {0}", R->ExitCode)
                                      .str(),
                     path("logs/profile.out"), path("logs/profile.err"));
  }
  Expected<std::unique_ptr<Binary>> Bin = Binary::open(Builds[0].Binary);
  if (!Bin)
    return Bin.takeError();
  QualityReport Q;
  Expected<AddressProfile> AP = loadAddressProfiles(**Bin, {Fdata}, Q);
  if (!AP)
    return AP.takeError();
  if (AP->Branches.empty() && AP->FallThroughs.empty())
    return makeError("profile: no samples in {0}: the workload{1} executed "
                     "none of its code",
                     P.Binary, workloadText());
  return Error::success();
}

Expected<std::string> Flow::stampKey() {
  Expected<std::string> B = fileSHA1(Builds[0].Binary);
  if (!B)
    return B.takeError();
  Expected<std::string> F = fileSHA1(Fdata);
  if (!F)
    return F.takeError();
  SHA1 H;
  auto Add = [&](StringRef S) {
    H.update(S);
    H.update(StringRef("\0", 1));
  };
  Add(keelVersion());
  Add(*B);
  Add(*F);
  for (const std::string &W : O.Workload)
    Add(W);
  for (const std::string &E : O.SweepEnv)
    Add("env " + E);
  Add(formatv("{0} {1} {2} {3} {4} {5}", sweep::name(O.Backend), O.Cost,
              O.GuardVariants,
              O.GuardStep, O.CodeVariants, O.CodeStep)
          .str());
  if (O.PackLinkedSizes) // on by default; off keeps the stamp of the runs before it
    Add("pack-linked-sizes");
  if (O.TuneCodePad)
    Add("tune " + join(O.TuneI1, " "));
  if (O.TuneCodePad && !O.TuneOrders.empty()) {
    std::string Orders = "orders";
    for (OrderAlgorithm A : O.TuneOrders)
      Orders += " " + orderAlgorithmName(A).str();
    Add(Orders);
  }
  return toHex(H.final(), /*LowerCase=*/true);
}

Expected<bool> Flow::upToDate(StringRef Key) {
  if (O.Force || !sys::fs::exists(Stamp) || !sys::fs::exists(path(Name)) ||
      !sys::fs::exists(path("report.txt")) ||
      !sys::fs::exists(path("report.json")))
    return false;
  Expected<std::string> Old = readWholeFile(Stamp);
  if (!Old)
    return Old.takeError();
  if (StringRef(*Old).trim() != Key)
    return false;
  Expected<std::string> Table = readWholeFile(path("report.txt"));
  if (!Table)
    return Table.takeError();
  progress("stamp", formatv("{0} and its profile are unchanged since the last "
                            "run ({1}): nothing to do; {2} is the kept build",
                            P.Binary, Stamp, path(Name)));
  // --json asks for the report whether or not this run made it: the kept
  // run's report.json, as it wrote it.
  if (!O.JSONPath.empty()) {
    Expected<std::string> Doc = readWholeFile(path("report.json"));
    if (!Doc)
      return Doc.takeError();
    if (Error E = writeOutput(O.JSONPath, [&](raw_ostream &S) {
          S << *Doc;
          return Error::success();
        }))
      return std::move(E);
  }
  Out << *Table;
  return true;
}

Error Flow::plan(Build &B, ArrayRef<std::string> Extra, StringRef LogName) {
  Written.push_back(B.Plan);
  std::vector<std::string> Argv = {tool("layout-order"), "--binary",
                                   Builds[0].Binary, "--profile", Fdata};
  Argv.insert(Argv.end(), Extra.begin(), Extra.end());
  Argv.push_back("-o");
  Argv.push_back(B.Plan);
  progress("plan", displayCommand(Argv));
  B.PlanArgv = Argv;
  Expected<RunResult> R = runLogged("plan", Argv, LogName);
  if (!R)
    return R.takeError();
  if (R->Crashed || R->ExitCode != 0)
    return makeError("plan: `{0}` {1}:\n{2}", displayCommand(Argv),
                     formatv("exited with status {0}", R->ExitCode),
                     tailOf(path("logs/" + LogName + ".err")));
  for (StringRef F : {"compile.rsp", "link.rsp"})
    if (!sys::fs::exists(B.Plan + "/" + F.str()))
      return makeError("plan: layout-order wrote no {0}/{1}", B.Plan, F);
  return Error::success();
}

Error Flow::rebuild(Build &B) {
  std::string Objs = path("objects-" + B.Name);
  Written.push_back(Objs);
  Written.push_back(path(B.Name));
  sys::fs::remove_directories(Objs);
  for (const std::string &D : {Objs, path(B.Name)})
    if (std::error_code EC = sys::fs::create_directories(D))
      return makeError("rebuild: cannot create {0}: {1}", D, EC.message());
  B.Binary = path(B.Name + "/" + Name);
  ReplayFlags F;
  F.Compile = {"@" + B.Plan + "/compile.rsp"};
  F.Link = {"@" + B.Plan + "/link.rsp"};
  F.Jobs = O.Jobs;
  progress("rebuild", formatv("{0} compile{1} with @{2}/compile.rsp, the link "
                              "with @{2}/link.rsp -> {3}",
                              P.Compiles.size(), P.Compiles.size() == 1 ? "" : "s",
                              B.Plan, B.Binary));
  if (Error E = runReplay(P, Objs, F, B.Binary, B.Commands))
    return E;
  // The commands that rebuilt it, one a line, for the reader to rerun.
  return writeOutput(path(B.Name + "/rebuild.txt"), [&](raw_ostream &OS) {
    for (const ReplayedCommand &C : B.Commands)
      OS << "cd " << displayCommand({C.Cwd}) << " && "
         << displayCommand(C.Argv) << "\n";
    return Error::success();
  });
}

Error Flow::measure(Build &B, StringRef Tag) {
  std::string JSON = path("measure/guard-" + B.Name + Tag + ".json");
  B.Sweep = guardSweepArgv(O, tool("layout-sweep"), JSON, B.Binary);
  progress("guard", displayCommand(B.Sweep));
  Expected<BuildSummary> S = sweepSummary(B.Name, B.Sweep, JSON,
                                          ("guard-" + B.Name + Tag).str(), path("logs"));
  if (!S)
    return S.takeError();
  B.Guard = std::move(*S);
  B.Guard.Binary = B.Binary;
  return Error::success();
}

/// One word of a layout-sweep --relink template (keel::splitCommandTemplate
/// reads quotes and nothing else).
static std::string templateWord(StringRef W) {
  if (!W.empty() && W.find_first_of(" \t\n'\"") == StringRef::npos)
    return W.str();
  std::string S;
  for (char C : W)
    S += C == '\'' ? std::string("\"'\"") : "'" + std::string(1, C) + "'";
  return S.empty() ? "''" : S;
}

/// The --relink template of a link: its words as a user's link record
/// would hold them, {out} and __keel_code_pad={pad} in place, run in \p Cwd.
Expected<std::string> Flow::relinkTemplate(ArrayRef<std::string> LinkArgv,
                                           StringRef Cwd) {
  LinkRecord R;
  R.Cwd = Cwd.str();
  // The words a user's link record would hold (LinkRecord.h: what clang's
  // driver and ld.lld do with @file, nested files included).
  Expected<std::vector<std::string>> Words =
      expandResponseFiles(LinkArgv, Cwd, R.ResponseFiles);
  if (!Words)
    return makeError("report: {0}", toString(Words.takeError()));
  R.Argv = std::move(*Words);
  // The --relink template's {pad} is the offset itself: the recommended
  // link sets no __keel_code_pad of its own, and --defsym overrides the
  // script's default (0, or the pad --tune-code-pad baked in).
  Expected<RecordRelink> W = relinkFromRecord(R, AxisKind::Code);
  if (!W)
    return makeError("report: {0}", toString(W.takeError()));
  std::string T = "env -C " + templateWord(Cwd);
  for (const std::string &S : W->Argv)
    T += " " + templateWord(S);
  return T;
}

Error Flow::codeSweep(Build &B, ArrayRef<std::string> LinkArgv, StringRef Cwd) {
  if (!O.CodeVariants)
    return Error::success();
  Expected<std::string> T = relinkTemplate(LinkArgv, Cwd);
  if (!T)
    return T.takeError();
  // {pad} is the offset itself: a tuned build's sweep starts at its pad.
  std::string JSON = path("measure/code-" + B.Name + ".json");
  B.CodeSweep = sweepArgv(O, tool("layout-sweep"), AxisKind::Code, O.CodeStep,
                          O.CodeVariants, JSON, B.Binary, B.CodePad);
  B.CodeSweep.insert(B.CodeSweep.end() - 1 - O.Workload.size(), "--relink=" + *T);
  progress("report", "code sweep: " + displayCommand(B.CodeSweep));
  Expected<BuildSummary> S = sweepSummary(B.Name, B.CodeSweep, JSON,
                                      "code-" + B.Name, path("logs"));
  if (!S)
    return S.takeError();
  B.Code = std::move(*S);
  return Error::success();
}

/// The summed cost of each code offset over the files of one sweep (one
/// file per I1 geometry); an offset that failed in any file is left out.
static Expected<std::map<int64_t, double>>
summedCosts(ArrayRef<std::string> Files) {
  std::map<int64_t, double> Sum;
  std::map<int64_t, unsigned> Seen;
  for (const std::string &F : Files) {
    Expected<SweepResult> R = readResultFile(F);
    if (!R)
      return R.takeError();
    for (const Measurement &M : R->Ms)
      if (M.V.Series == "base" && !M.Failed) {
        Sum[M.V.Offset] += M.Cost;
        ++Seen[M.V.Offset];
      }
  }
  for (auto It = Sum.begin(); It != Sum.end();)
    It = Seen[It->first] == Files.size() ? std::next(It) : Sum.erase(It);
  return Sum;
}

/// The files of \p Plan that its objects were compiled and ordered by
/// (compile.rsp, bbsections.txt, order.txt), by name; a missing one is left
/// out. A later plan into the same directory is checked against them.
static Expected<std::map<std::string, std::string>> planTexts(StringRef Plan) {
  std::map<std::string, std::string> Texts;
  for (StringRef F : {"compile.rsp", "bbsections.txt", "order.txt"}) {
    std::string Path = Plan.str() + "/" + F.str();
    if (!sys::fs::exists(Path))
      continue;
    Expected<std::string> Text = readWholeFile(Path);
    if (!Text)
      return Text.takeError();
    Texts[F.str()] = std::move(*Text);
  }
  return Texts;
}

/// One order's sweep of the hot region over \p N offsets by \p Step: the
/// summed cost of every I1 geometry at each offset into \p C.
Error Flow::tuneSweep(Build &B, TunedOrder &C, StringRef Template, int64_t Step,
                      unsigned N) {
  std::string Tag = B.Name + (C.Flags.empty() ? "" : "-" + C.Name);
  std::string Base = path("measure/tune-" + Tag);
  C.Sweep = sweepArgv(O, tool("layout-sweep"), AxisKind::Code, Step, N,
                      Base + ".json", B.Binary);
  auto At = C.Sweep.end() - 1 - O.Workload.size();
  At = C.Sweep.insert(At, "--relink=" + Template.str());
  std::vector<std::string> Files;
  if (O.Backend == BackendKind::Sim && O.TuneI1.size() > 1) {
    for (const std::string &G : O.TuneI1) {
      // The report of each geometry is where layout-sweep writes it.
      Expected<CacheLevel> L = parseCacheLevel("--I1", G);
      if (!L)
        return L.takeError();
      CacheGeometry Geo;
      Geo.I1 = *L;
      At = C.Sweep.insert(At, "--I1=" + G) + 1;
      Files.push_back(geometryPath(Base + ".json", Geo, /*Several=*/true,
                                   /*AtEnd=*/false));
    }
  } else {
    if (O.Backend == BackendKind::Sim && !O.TuneI1.empty())
      C.Sweep.insert(At, "--I1=" + O.TuneI1.front());
    Files.push_back(Base + ".json");
  }
  progress("tune", formatv("{0} code offsets by {1} of {2}{3}: {4}", N, Step,
                           B.Name,
                           C.Flags.empty() ? "" : ", order " + C.Name,
                           displayCommand(C.Sweep)));
  Expected<RunResult> R = runLogged("tune", C.Sweep, "tune-" + Tag);
  if (!R)
    return R.takeError();
  if (R->Crashed || R->ExitCode != 0)
    return makeError("tune: `{0}` exited with status {1}:\n{2}",
                     displayCommand(C.Sweep), R->ExitCode,
                     tailOf(path("logs/tune-" + Tag + ".err")));
  Expected<std::map<int64_t, double>> Costs = summedCosts(Files);
  if (!Costs)
    return Costs.takeError();
  if (!Costs->count(0))
    return makeError("tune: the sweep measured no pad 0 of {0} ({1})", B.Name,
                     Files.front());
  C.Costs = std::move(*Costs);
  // The cheapest offset; a tie keeps the smaller pad (0 first).
  double Sum = 0;
  for (const auto &[Pad, Cost] : C.Costs) {
    Sum += Cost;
    if (Cost < C.Costs[C.MinPad])
      C.MinPad = Pad;
  }
  C.Mean = Sum / C.Costs.size();
  return Error::success();
}

/// The orders' line of the report: each one's mean over the offsets.
static std::string ordersLine(const Build &B) {
  std::string S;
  for (size_t I = 0; I < B.Orders.size(); ++I) {
    const TunedOrder &C = B.Orders[I];
    S += (I ? "; " : "") + C.Name;
    if (!C.Skipped.empty()) {
      S += " " + C.Skipped;
      continue;
    }
    S += formatv(" mean {0:F0}", C.Mean).str();
    if (I) {
      double D = C.Mean / B.Orders[0].Mean - 1;
      S += " (" + std::string(D < 0 ? "-" : "+") + percent(D < 0 ? -D : D) + ")";
    }
    S += formatv(", cheapest {0:F0} at pad {1}", C.Costs.at(C.MinPad), C.MinPad)
             .str();
  }
  return S + "; kept " + B.Orders[B.Order].Name;
}

Error Flow::tuneCodePad(Build &B) {
  // One page of offsets by cache lines: a line's I1 set is bits 6-11 of its
  // address, so these 64 offsets are every set mapping of the hot region
  // (the page offset survives ASLR; shared libraries' lines keep theirs).
  const int64_t Step = 64;
  const unsigned N = 64;
  if (B.Commands.empty())
    return makeError("tune: no link to run again for {0}", B.Binary);
  ReplayedCommand Link = B.Commands.back();
  Expected<std::string> T = relinkTemplate(Link.Argv, Link.Cwd);
  if (!T)
    return T.takeError();
  const std::string LinkLog = path("objects-" + B.Name + "/tune-link.log");
  // Another function order may move the functions only: the objects were
  // compiled with this plan's compile.rsp and bbsections.txt, and are
  // linked again as they are.
  Expected<std::map<std::string, std::string>> Kept = planTexts(B.Plan);
  if (!Kept)
    return Kept.takeError();
  B.Orders.clear();
  auto AddOrder = [&](OrderAlgorithm A, bool Own) {
    TunedOrder C;
    C.Name = orderAlgorithmName(A).str();
    if (!Own)
      C.Flags = {"--order=" + C.Name};
    B.Orders.push_back(std::move(C));
  };
  AddOrder(DefaultOrderAlgorithm, /*Own=*/true);
  for (OrderAlgorithm A : O.TuneOrders)
    if (A != DefaultOrderAlgorithm)
      AddOrder(A, /*Own=*/false);
  bool Replanned = false; // the plan directory no longer holds the linked plan
  for (TunedOrder &C : B.Orders) {
    if (!C.Flags.empty()) {
      std::vector<std::string> Extra = B.Extra;
      Extra.insert(Extra.end(), C.Flags.begin(), C.Flags.end());
      if (Error E = plan(B, Extra, "plan-" + B.Name + "-" + C.Name))
        return E;
      Replanned = true;
      for (const auto &[F, Text] : *Kept) {
        Expected<std::string> Now = readWholeFile(B.Plan + "/" + F);
        if (!Now)
          return Now.takeError();
        if (F == "order.txt" && *Now == Text)
          C.Skipped = "(the same order as " + B.Orders[0].Name + ")";
        else if (F != "order.txt" && *Now != Text)
          C.Skipped = "(not measured: it changed " + F + ")";
        if (!C.Skipped.empty())
          break;
      }
      if (!C.Skipped.empty()) {
        progress("tune", "order " + C.Name + " " + C.Skipped);
        continue;
      }
      if (Error E = rerunCommand(Link, LinkLog))
        return E;
    }
    if (Error E = tuneSweep(B, C, *T, Step, N))
      return E;
    if (B.Orders.size() > 1)
      progress("tune", formatv("order {0}: mean summed cost {1:F0} over {2} "
                               "offsets, cheapest {3:F0} at pad {4}",
                               C.Name, C.Mean, C.Costs.size(),
                               C.Costs[C.MinPad], C.MinPad));
  }
  // The order of lowest mean cost over the offsets (every set mapping
  // counted once, not the luck of its best one); a tie keeps the plan's.
  B.Order = 0;
  for (size_t I = 1; I < B.Orders.size(); ++I)
    if (B.Orders[I].Skipped.empty() && B.Orders[I].Mean < B.Orders[B.Order].Mean)
      B.Order = I;
  const TunedOrder &C = B.Orders[B.Order];
  const int64_t Best = C.MinPad;
  B.TuneSweep = C.Sweep;
  B.UntunedCost = B.Orders[0].Costs.at(0);
  B.TunedCost = C.Costs.at(Best);
  std::string Measured =
      formatv("{0} offsets by {1}{2}", C.Costs.size(), Step,
              O.Backend == BackendKind::Sim ? ", I1 " + join(O.TuneI1, " + ") : "")
          .str();
  std::string OrderWord = B.Order ? "order " + C.Name + ", " : "";
  if (B.Order == 0 && Best == 0) {
    B.TuneNote = formatv("pad 0 (as planned) is the cheapest of {0}", Measured);
    if (!Replanned) {
      progress("tune", B.TuneNote + "; nothing to relink");
      return Error::success();
    }
    progress("tune", B.TuneNote + "; planning and linking it again as planned");
    if (Error E = plan(B, B.Extra, "plan-" + B.Name + "-untune"))
      return E;
    return rerunCommand(Link, LinkLog);
  }
  std::vector<std::string> Extra = B.Extra;
  Extra.insert(Extra.end(), C.Flags.begin(), C.Flags.end());
  if (Best)
    Extra.push_back(formatv("--code-pad={0}", Best).str());
  progress("tune", formatv("{0}pad {1}: summed cost {2:F0} against pad 0's {3:F0} "
                           "(-{4}); planning again with {5}",
                           OrderWord, Best, B.TunedCost, B.UntunedCost,
                           percent(1 - B.TunedCost / B.UntunedCost),
                           join(ArrayRef(Extra).drop_front(B.Extra.size()), " ")));
  if (Error E = plan(B, Extra, "plan-" + B.Name + "-tune"))
    return E;
  // Only the link reads the order and the pad, so only it reruns.
  if (Error E = rerunCommand(Link, LinkLog))
    return E;
  B.CodePad = Best;
  BuildSummary Untuned = B.Guard;
  std::vector<std::string> UntunedSweep = B.Sweep;
  if (Error E = measure(B, "-pad"))
    return E;
  // The tune decides by both geometries; the guard's rule (one geometry,
  // several env offsets: below the default build) must still hold.
  const double Default = Builds[0].Guard.MeanCost;
  if (B.Guard.MeanCost < Default) {
    B.TuneNote = formatv("{0}code pad {1}: summed cost {2:F0} against pad 0's "
                         "{3:F0} (-{4}) over {5}; the guard's mean cost {6:F0} "
                         "against {7:F0} at pad 0",
                         OrderWord, Best, B.TunedCost, B.UntunedCost,
                         percent(1 - B.TunedCost / B.UntunedCost), Measured,
                         B.Guard.MeanCost, Untuned.MeanCost)
                     .str();
    return Error::success();
  }
  progress("tune", formatv("the guard's mean cost with {0}pad {1} ({2:F0}) is not "
                           "below the default build's ({3:F0}): planning again "
                           "without it",
                           OrderWord, Best, B.Guard.MeanCost, Default));
  if (Error E = plan(B, B.Extra, "plan-" + B.Name + "-untune"))
    return E;
  if (Error E = rerunCommand(Link, LinkLog))
    return E;
  double Tuned = B.Guard.MeanCost;
  B.Guard = std::move(Untuned);
  B.Sweep = std::move(UntunedSweep);
  B.CodePad = 0;
  B.TuneNote = formatv("pad 0 kept: {0}pad {1} was cheaper over {2} (-{3}) but "
                       "the guard's mean cost there ({4:F0}) is not below the "
                       "default build's ({5:F0})",
                       OrderWord, Best, Measured,
                       percent(1 - B.TunedCost / B.UntunedCost), Tuned, Default)
                   .str();
  B.Order = 0;
  B.TuneSweep = B.Orders[0].Sweep;
  B.TunedCost = B.UntunedCost;
  return Error::success();
}

static std::string cell(double V, double Base, bool First) {
  std::string S = formatv("{0:F0}", V).str();
  if (!First && Base != 0) {
    double C = V / Base - 1;
    S += " (" + std::string(C < 0 ? "-" : "+") + percent(C < 0 ? -C : C) + ")";
  }
  return S;
}

/// The before/after table: one column per measured build.
static std::string table(ArrayRef<Build> Bs, StringRef Kept,
                         const OptimizeOptions &O) {
  std::string T;
  raw_string_ostream OS(T);
  OS << formatv("{0,-34}", "");
  for (const Build &B : Bs)
    OS << formatv("{0,24}", B.Name == Kept ? B.Name + " (kept)" : B.Name);
  OS << "\n";
  auto Row = [&](StringRef Label, auto Get) {
    OS << formatv("{0,-34}", Label);
    for (size_t I = 0; I < Bs.size(); ++I)
      OS << formatv("{0,24}", cell(Get(Bs[I].Guard), Get(Bs[0].Guard), I == 0));
    OS << "\n";
  };
  const BuildSummary &G = Bs[0].Guard;
  Row(formatv("cost (mean of {0} env offsets)", G.Measured).str(),
      [](const BuildSummary &S) { return S.MeanCost; });
  Row("I1 misses (mean)", [](const BuildSummary &S) { return S.MeanI1Misses; });
  Row(formatv("mispredicts (mean, {0})", join(G.MispredictEvents, "+")).str(),
      [](const BuildSummary &S) { return S.MeanMispredicts; });
  Row("instructions (mean)",
      [](const BuildSummary &S) { return S.MeanInstructions; });
  if (O.CodeVariants) {
    OS << formatv("{0,-34}", formatv("code sweep spread ({0} pads by {1})",
                                     O.CodeVariants, O.CodeStep));
    for (const Build &B : Bs)
      OS << formatv("{0,24}", B.Code ? percent(B.Code->Spread) : std::string("-"));
    OS << "\n";
  }
  return OS.str();
}

Error Flow::report(const GuardDecision &D, const Build &Kept) {
  std::string T;
  raw_string_ostream OS(T);
  OS << formatv("layout-optimize: {0} on `{1}` (backend {2}{3}):\n", Name,
                displayCommand(O.Workload), sweep::name(O.Backend),
                O.Backend == sweep::BackendKind::Sim ? ", cost model " + O.Cost
                                                     : "");
  OS << table(Builds, D.Kept, O);
  OS << "guard: " << D.Why << "\n";
  if (!Kept.TuneSweep.empty()) {
    OS << "tune: " << Kept.TuneNote << "\n";
    if (Kept.Orders.size() > 1)
      OS << "tune orders: " << ordersLine(Kept) << "\n";
  }
  OS << "kept: " << path(Name)
     << (Kept.Plan.empty() ? std::string(" (the default build)")
                           : " (plan " + Kept.Plan + ")")
     << "\n";
  OS << "reproduce:\n";
  for (const Build &B : Builds) {
    if (!B.PlanArgv.empty())
      OS << "  " << B.Name << ": plan:    " << displayCommand(B.PlanArgv) << "\n";
    if (!B.Commands.empty())
      OS << "  " << B.Name << ": rebuild: " << path(B.Name + "/rebuild.txt")
         << "\n";
    OS << "  " << B.Name << ": guard:   " << displayCommand(B.Sweep) << "\n";
    for (const TunedOrder &C : B.Orders)
      if (!C.Sweep.empty())
        OS << "  " << B.Name << ": tune:    " << displayCommand(C.Sweep) << "\n";
    if (B.Code)
      OS << "  " << B.Name << ": code:    " << displayCommand(B.CodeSweep) << "\n";
  }
  OS.flush();
  json::Array Bs;
  for (const Build &B : Builds) {
    json::Object J{{"name", B.Name},
                   {"plan", B.Plan},
                   {"binary", B.Binary},
                   {"guard", toJSON(B.Guard)},
                   {"guard_command", displayCommand(B.Sweep)}};
    if (B.Code) {
      J["code_sweep"] = toJSON(*B.Code);
      J["code_sweep_command"] = displayCommand(B.CodeSweep);
    }
    if (!B.PlanArgv.empty())
      J["plan_command"] = displayCommand(B.PlanArgv);
    if (!B.TuneSweep.empty()) {
      json::Array Orders;
      for (const TunedOrder &C : B.Orders) {
        json::Object JO{{"name", C.Name}};
        if (!C.Skipped.empty()) {
          JO["skipped"] = C.Skipped;
        } else {
          JO["mean_cost"] = C.Mean;
          JO["min_cost"] = C.Costs.at(C.MinPad);
          JO["min_pad"] = C.MinPad;
          JO["command"] = displayCommand(C.Sweep);
        }
        Orders.push_back(std::move(JO));
      }
      J["tune"] = json::Object{{"code_pad", B.CodePad},
                               {"order", B.Orders[B.Order].Name},
                               {"cost", B.TunedCost},
                               {"pad0_cost", B.UntunedCost},
                               {"note", B.TuneNote},
                               {"command", displayCommand(B.TuneSweep)},
                               {"orders", std::move(Orders)}};
    }
    Bs.push_back(std::move(J));
  }
  json::Array W;
  for (const std::string &A : O.Workload)
    W.push_back(A);
  json::Value Doc = json::Object{{"version", 1},
                                 {"program", P.Binary},
                                 {"workload", std::move(W)},
                                 {"backend", sweep::name(O.Backend)},
                                 {"cost", O.Cost},
                                 {"kept", D.Kept},
                                 {"kept_binary", path(Name)},
                                 {"kept_plan", Kept.Plan},
                                 {"decision", toJSON(D)},
                                 {"builds", std::move(Bs)}};
  auto WriteJSON = [&](raw_ostream &S) {
    S << formatv("{0:2}", Doc) << "\n";
    return Error::success();
  };
  if (Error E = writeOutput(path("report.json"), WriteJSON))
    return E;
  if (!O.JSONPath.empty())
    if (Error E = writeOutput(O.JSONPath, WriteJSON))
      return E;
  if (Error E = writeOutput(path("report.txt"), [&](raw_ostream &S) {
        S << T;
        return Error::success();
      }))
    return E;
  Out << T;
  Out.flush();
  return Error::success();
}

/// Copy \p From to \p To through a temporary name, executable.
static Error copyExecutable(StringRef From, StringRef To) {
  std::string Tmp = (To + ".tmp").str();
  if (std::error_code EC = sys::fs::copy_file(From, Tmp)) {
    sys::fs::remove(Tmp);
    return makeError("cannot copy {0} to {1}: {2}", From, Tmp, EC.message());
  }
  sys::fs::setPermissions(Tmp, sys::fs::all_read | sys::fs::all_exe |
                                   sys::fs::owner_write);
  if (std::error_code EC = sys::fs::rename(Tmp, To)) {
    sys::fs::remove(Tmp);
    return makeError("cannot rename {0} to {1}: {2}", Tmp, To, EC.message());
  }
  return Error::success();
}


Expected<int> Flow::run() {
  SmallString<256> D(O.Dir);
  sys::fs::make_absolute(D);
  sys::path::remove_dots(D, true);
  Dir = D.str().str();
  Log = O.CommandLog.empty() ? path("commands.jsonl") : O.CommandLog;
  Stamp = path("stamp");
  if (Error E = checkTools())
    return std::move(E);
  if (Error E = prepareOutputDir(Dir))
    return std::move(E);
  for (StringRef Sub : {"logs"})
    if (std::error_code EC = sys::fs::create_directories(path(Sub)))
      return makeError("cannot create {0}: {1}", path(Sub), EC.message());
  if (Error E = build())
    return std::move(E);
  if (Error E = findProgram())
    return std::move(E);
  // An error from here on leaves the command log and the logs alone: every
  // result, this run's and an earlier one's, is removed together.
  Written = {path("default"), path("profile.fdata"), path(Name), Stamp,
             path("report.txt"), path("report.json"), path("measure"),
             path("plan"), path("plan-keep"), path("exttsp"), path("keep"),
             path("objects-exttsp"), path("objects-keep")};
  Error E = [&]() -> Error {
    if (Error E = profile())
      return E;
    Expected<std::string> Key = stampKey();
    if (!Key)
      return Key.takeError();
    Expected<bool> Fresh = upToDate(*Key);
    if (!Fresh)
      return Fresh.takeError();
    if (*Fresh) {
      Written.clear();
      return Error::success();
    }
    // What an earlier run kept goes first: a failure below leaves no stale
    // binary beside the new profile.
    for (const std::string &F :
         {Stamp, path(Name), path("report.txt"), path("report.json")})
      sys::fs::remove(F);
    for (StringRef Sub : {"plan", "plan-keep", "exttsp", "keep"})
      sys::fs::remove_directories(path(Sub));
    if (std::error_code EC = sys::fs::create_directories(path("measure")))
      return makeError("cannot create {0}: {1}", path("measure"), EC.message());
    if (Error E = measure(Builds[0]))
      return E;
    return decideAndReport(*Key);
  }();
  if (E) {
    removeWritten();
    return std::move(E);
  }
  return ExitOK;
}

Error Flow::candidate(Build &B, ArrayRef<std::string> Extra) {
  B.Extra.assign(Extra.begin(), Extra.end());
  if (Error E = plan(B, Extra, "plan-" + B.Name))
    return E;
  if (Error E = rebuild(B))
    return E;
  if (O.PackLinkedSizes)
    if (Error E = packLinkedSizes(B, Extra))
      return E;
  return measure(B);
}

/// The line of a layout-order log that starts with \p Prefix, without it.
static std::string logLine(StringRef Log, StringRef Prefix) {
  Expected<std::string> Text = readWholeFile(Log);
  if (!Text) {
    consumeError(Text.takeError());
    return "";
  }
  size_t At = StringRef(*Text).find(Prefix);
  if (At == StringRef::npos)
    return "";
  return StringRef(*Text).substr(At + Prefix.size()).split('\n').first.str();
}

/// --pack-linked-sizes: the spacers were placed by the sizes the plan
/// packed with (with block layout, estimates of the hot parts), so the packs
/// start off their planned offsets by the estimates' error. The first link
/// has the real sizes: plan again with them (the same order, the same
/// block layout, other spacers) and relink the same objects once.
Error Flow::packLinkedSizes(Build &B, ArrayRef<std::string> Extra) {
  std::string Planned = B.Plan + "/spacer-sizes.txt";
  if (!sys::fs::exists(Planned)) {
    progress("pack", B.Plan + " has no spacers: nothing to pack");
    return Error::success();
  }
  Expected<std::vector<PackedSize>> Packed = readSpacerSizes(Planned);
  if (!Packed)
    return Packed.takeError();
  Expected<LinkedSizes> L = measureLinkedSizes(B.Binary, *Packed);
  if (!L)
    return L.takeError();
  std::string Sizes = path(B.Name + "/linked-sizes.txt");
  if (Error E = writeOutput(Sizes, [&](raw_ostream &OS) {
        writeLinkedSizes(*L, B.Binary, OS);
        return Error::success();
      }))
    return E;
  progress("pack", formatv("{0} of {1} packed functions found in {2}: {3} "
                           "bytes linked, {4} planned; planning again with "
                           "--section-sizes={5} and relinking",
                           L->Found.size(), Packed->size(), B.Binary, L->Linked,
                           L->Planned, Sizes));
  // Only the spacers may change: the objects were compiled with the first
  // plan's compile.rsp and bbsections.txt, and are linked again as they are.
  Expected<std::map<std::string, std::string>> Kept = planTexts(B.Plan);
  if (!Kept)
    return Kept.takeError();
  std::vector<std::string> Again(Extra.begin(), Extra.end());
  Again.push_back("--section-sizes=" + Sizes);
  std::string LogName = "plan-" + B.Name + "-pack";
  if (Error E = plan(B, Again, LogName))
    return E;
  B.Extra = Again; // a later plan of this build (--tune-code-pad) packs the same
  for (const auto &[F, Text] : *Kept) {
    std::string Path = B.Plan + "/" + F;
    Expected<std::string> Now = readWholeFile(Path);
    if (!Now)
      return Now.takeError();
    if (*Now != Text)
      return makeError("pack: planning again with --section-sizes changed {0}; "
                       "the linked sizes may change the spacers only",
                       Path);
  }
  if (B.Commands.empty())
    return makeError("pack: no link to run again for {0}", B.Binary);
  if (Error E = rerunCommand(B.Commands.back(),
                             path("objects-" + B.Name + "/relink.log")))
    return E;
  // The check: the relinked functions are the size the plan now packed.
  Expected<std::vector<PackedSize>> Replanned = readSpacerSizes(Planned);
  if (!Replanned)
    return Replanned.takeError();
  Expected<LinkedSizes> After = measureLinkedSizes(B.Binary, *Replanned);
  if (!After)
    return After.takeError();
  progress("pack", formatv("relinked {0}: {1}; {2} of {3} packed functions "
                           "linked at the size they were packed with",
                           B.Binary,
                           logLine(path("logs/" + LogName + ".out"),
                                   "layout-order: spacers: "),
                           After->Same, Replanned->size()));
  return Error::success();
}

Error Flow::decideAndReport(StringRef Key) {
  Build Ext;
  Ext.Name = "exttsp";
  Ext.Plan = path("plan");
  if (Error E = candidate(Ext, {}))
    return E;
  Builds.push_back(std::move(Ext));
  std::vector<BuildSummary> Cands = {Builds[1].Guard};
  GuardDecision D = decideGuard(Builds[0].Guard, Cands);
  if (!D.CandidateKept) {
    progress("guard", D.Verdicts.back().Reason +
                          ": planning again with --block-order=keep");
    Build Keep;
    Keep.Name = "keep";
    Keep.Plan = path("plan-keep");
    if (Error E = candidate(Keep, {"--block-order=keep"}))
      return E;
    Builds.push_back(std::move(Keep));
    Cands.push_back(Builds[2].Guard);
    D = decideGuard(Builds[0].Guard, Cands);
  }
  progress("guard", D.Why);
  size_t K = 0;
  for (size_t I = 0; I < Builds.size(); ++I)
    if (Builds[I].Name == D.Kept)
      K = I;
  if (K && O.TuneCodePad)
    if (Error E = tuneCodePad(Builds[K]))
      return E;
  if (Error E = copyExecutable(Builds[K].Binary, path(Name)))
    return E;
  // The short code sweep, of the default build and the kept one.
  if (Error E = codeSweep(Builds[0], replayArgv(P.Link, "{out}", {}), P.Link.Cwd))
    return E;
  if (K)
    if (Error E = codeSweep(Builds[K], Builds[K].Commands.back().Argv, P.Link.Cwd))
      return E;
  if (Error E = report(D, Builds[K]))
    return E;
  return writeOutput(Stamp, [&](raw_ostream &OS) {
    OS << Key << "\n";
    return Error::success();
  });
}

void Flow::removeWritten() {
  for (const std::string &W : Written) {
    sys::fs::remove_directories(W);
    sys::fs::remove(W);
  }
}

Expected<int> runOptimize(const OptimizeOptions &O, raw_ostream &Out,
                          raw_ostream &Err) {
  Flow F(O, Out, Err);
  return F.run();
}

} // namespace optimize
} // namespace keel
