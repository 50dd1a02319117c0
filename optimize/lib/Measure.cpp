//===- Measure.cpp - the guard's measurements and decision ----------------===//
//
// One layout-sweep per build, summarized (Measure.h); the guard alone
// measures the default build and the candidates in order and applies
// keel::sweep::decideGuard, the rule the flow's guard step applies.
//
//===----------------------------------------------------------------------===//
#include "keel/Optimize/Measure.h"
#include "keel/Optimize/Replay.h"

#include "keel/Support/Diagnostics.h"
#include "keel/Support/OutputFile.h"
#include "keel/Support/Process.h"
#include "keel/SweepReport/Gate.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace keel::sweep;

namespace keel {
namespace optimize {

std::string tailOf(StringRef Path) {
  Expected<std::string> T = readWholeFile(Path);
  if (!T) {
    consumeError(T.takeError());
    return "";
  }
  StringRef S = StringRef(*T).rtrim();
  return S.take_back(1200).str();
}

std::vector<std::string> sweepArgv(const OptimizeOptions &O, StringRef Sweep,
                                   AxisKind Axis, int64_t Step, unsigned N,
                                   StringRef JSON, StringRef Bin,
                                   int64_t From) {
  std::vector<std::string> A = {
      Sweep.str(), "--backend=" + sweep::name(O.Backend).str(),
      "--axis=" + axisName(Axis).str(),
      formatv("--from={0}", From).str(),
      formatv("--to={0}", From + Step * int64_t(N ? N - 1 : 0)).str(),
      formatv("--step={0}", Step).str(), formatv("-j{0}", O.Jobs).str(),
      "--json=" + JSON.str()};
  if (O.Backend == sweep::BackendKind::Sim)
    A.insert(A.begin() + 2, "--cost=" + O.Cost);
  for (const std::string &E : O.SweepEnv)
    A.push_back("--env=" + E);
  A.push_back(Bin.str());
  A.insert(A.end(), O.Workload.begin(), O.Workload.end());
  return A;
}

std::vector<std::string> guardSweepArgv(const OptimizeOptions &O, StringRef Sweep,
                                        StringRef JSON, StringRef Bin) {
  return sweepArgv(O, Sweep, AxisKind::Env, O.GuardStep, O.GuardVariants, JSON,
                   Bin);
}

Expected<BuildSummary> sweepSummary(StringRef Name, ArrayRef<std::string> Argv,
                                    StringRef JSON, StringRef LogBase,
                                    StringRef LogDir) {
  RunOptions R;
  R.Stdout = (LogDir + "/" + LogBase + ".out").str();
  R.Stderr = (LogDir + "/" + LogBase + ".err").str();
  Expected<RunResult> Res = runProgram(Argv, R);
  if (!Res)
    return Res.takeError();
  if (Res->Crashed || Res->ExitCode != 0)
    return makeError("guard: `{0}` {1}:\n{2}", displayCommand(Argv),
                     Res->Crashed ? Res->Message
                                  : formatv("exited with status {0}",
                                            Res->ExitCode)
                                        .str(),
                     tailOf(*R.Stderr));
  Expected<SweepResult> SR = readResultFile(JSON);
  if (!SR)
    return SR.takeError();
  return summarizeBuild(Name, *SR);
}

/// Measure \p B as the guard step does; its command is added to \p Builds.
static Expected<BuildSummary> measureGuardBuild(const OptimizeOptions &O,
                                                const GuardBuild &B,
                                                json::Array &Builds,
                                                raw_ostream &Err) {
  std::string JSON = O.Dir + "/measure/guard-" + B.Name + ".json";
  std::vector<std::string> Argv =
      guardSweepArgv(O, O.ToolDir + "/layout-sweep", JSON, B.Binary);
  Err << "layout-optimize: guard: " << displayCommand(Argv) << "\n";
  Err.flush();
  Expected<BuildSummary> S =
      sweepSummary(B.Name, Argv, JSON, "guard-" + B.Name, O.Dir + "/logs");
  if (!S)
    return S.takeError();
  S->Binary = B.Binary;
  Builds.push_back(json::Object{{"name", B.Name},
                                {"binary", B.Binary},
                                {"guard", toJSON(*S)},
                                {"guard_command", displayCommand(Argv)}});
  return S;
}

Expected<json::Value> runGuardOnly(const OptimizeOptions &O,
                                   const GuardBuild &Default,
                                   ArrayRef<GuardBuild> Candidates,
                                   raw_ostream &Err) {
  for (StringRef Sub : {"measure", "logs"})
    if (std::error_code EC = sys::fs::create_directories(O.Dir + "/" + Sub))
      return makeError("guard: cannot create {0}/{1}: {2}", O.Dir, Sub,
                       EC.message());
  json::Array Builds;
  Expected<BuildSummary> D = measureGuardBuild(O, Default, Builds, Err);
  if (!D)
    return D.takeError();
  std::vector<BuildSummary> Measured;
  GuardDecision Decision = decideGuard(*D, Measured);
  for (const GuardBuild &C : Candidates) {
    Expected<BuildSummary> S = measureGuardBuild(O, C, Builds, Err);
    if (!S)
      return S.takeError();
    Measured.push_back(std::move(*S));
    Decision = decideGuard(*D, Measured);
    if (Decision.CandidateKept)
      break;
  }
  Err << "layout-optimize: guard: " << Decision.Why << "\n";
  Err.flush();
  return json::Object{{"version", 1},
                      {"decision", toJSON(Decision)},
                      {"builds", std::move(Builds)}};
}

} // namespace optimize
} // namespace keel
