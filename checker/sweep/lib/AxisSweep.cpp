//===- AxisSweep.cpp - run a one-axis sweep and report it -----------------===//
#include "keel/Sweep/AxisSweep.h"

#include "keel/Support/Diagnostics.h"
#include "keel/Support/OutputFile.h"
#include "keel/Support/Tool.h"
#include "keel/Sweep/DryRun.h"
#include "keel/SweepReport/AutoReport.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"

#include <chrono>
#include <memory>
#include <optional>
#include <vector>

using namespace llvm;

namespace keel {
namespace sweep {

std::string geometryPath(StringRef Path, const CacheGeometry &G, bool Several,
                         bool AtEnd) {
  if (!Several || Path.empty() || Path == "-")
    return Path.str();
  std::string Label =
      formatv(".i1-{0}-{1}-{2}", G.I1.Size, G.I1.Assoc, G.I1.Line).str();
  StringRef Ext = AtEnd ? "" : sys::path::extension(Path);
  return (Path.drop_back(Ext.size()) + Label + Ext).str();
}

const Measurement *bestVariant(const SweepResult &R) {
  const Measurement *Best = nullptr;
  for (const Measurement &M : R.Ms)
    if (!M.Failed && (!Best || M.Cost < Best->Cost ||
                      (M.Cost == Best->Cost && M.V.Offset < Best->V.Offset)))
      Best = &M;
  return Best;
}

/// \p Argv for display (DryRun.h's quoting), its placeholders ({pad},
/// {out}, {padobj}, {dir}) left unquoted as a --relink template has them.
static std::string templateLine(ArrayRef<std::string> Argv) {
  std::string Line;
  for (const std::string &W : Argv) {
    StringRef S(W);
    bool Placeholder = S.size() > 2 && S.front() == '{' && S.back() == '}' &&
                       S.drop_front().drop_back().find_first_not_of(
                           "abcdefghijklmnopqrstuvwxyz") == StringRef::npos;
    Line += (Line.empty() ? "" : " ") + (Placeholder ? W : displayCommand({W}));
  }
  return Line;
}

/// The commands that write \p Series' variants, placeholders unexpanded.
static void relinkCommands(StringRef Series, StringRef Template,
                           ArrayRef<std::string> Argv,
                           ArrayRef<std::string> ZeroArgv, StringRef Dir,
                           StringRef Bolt, std::vector<std::string> &Out) {
  std::string In = Dir.empty() ? "" : " (in " + displayCommand({Dir.str()}) + ")";
  if (!Template.empty())
    Out.push_back((Series + ": " + Template).str());
  else if (!Argv.empty())
    Out.push_back((Series + ": " + templateLine(Argv) + In).str());
  if (!ZeroArgv.empty())
    Out.push_back((Series + ", offset 0: " + templateLine(ZeroArgv) + In).str());
  if (!Bolt.empty())
    Out.push_back(
        (Series + ": llvm-bolt {binary} -o {out} --pad-funcs-before=" + Bolt +
         ":{pad}")
            .str());
}

Expected<Provenance> sweepProvenance(const EngineOptions &O,
                                     const SweepRunOptions &RO) {
  Provenance P;
  P.Tool = RO.Tool;
  P.ToolVersion = keelVersion().str();
  Expected<std::string> Date = provenanceDate();
  if (!Date)
    return Date.takeError();
  P.Date = std::move(*Date);
  P.Command = RO.Command;
  const PerturbOptions &Pt = O.Perturb;
  relinkCommands("base", Pt.RelinkTemplate, Pt.RelinkArgv, Pt.RelinkZeroArgv,
                 Pt.RelinkDir, Pt.BoltFunction, P.Relink);
  if (O.CompareBinary)
    relinkCommands("compare", Pt.CompareRelinkTemplate, Pt.CompareRelinkArgv,
                   Pt.CompareRelinkZeroArgv, Pt.CompareRelinkDir,
                   Pt.BoltFunction, P.Relink);
  // A --relink sweep writes every variant, the one named included, so that
  // binary need not exist: then there is nothing to hash ("").
  for (auto [Path, Out] :
       {std::pair<std::optional<std::string>, std::string *>{O.Binary,
                                                             &P.BinarySHA256},
        {O.CompareBinary, &P.CompareSHA256}}) {
    if (!Path || !sys::fs::is_regular_file(*Path))
      continue;
    Expected<std::string> Sha = fileSHA256(*Path);
    if (!Sha)
      return Sha.takeError();
    *Out = std::move(*Sha);
  }
  return P;
}

namespace {

/// --baseline, read first (a bad file must not cost a sweep), then what
/// cannot be combined.
Expected<std::optional<SweepResult>>
readBaselineAndCheck(const EngineOptions &O, const GateOptions &GO,
                     const AxisSweepOptions &AO, size_t Geometries) {
  std::optional<SweepResult> BaselineResult;
  if (!AO.Baseline.empty()) {
    Expected<SweepResult> B =
        readBaselineAxis(AO.Baseline, axisName(O.Perturb.Axis));
    if (!B)
      return B.takeError();
    if (GO.MaxMispredictRise)
      if (Error E = checkMispredictBaseline(*B, AO.Baseline))
        return std::move(E);
    BaselineResult = std::move(*B);
  }
  if (GO.MaxMispredictRise && O.Backend == BackendKind::Time)
    return inputError("--max-mispredict-rise", 0,
                      "--backend=time counts no branch "
                      "mispredicts (sim, cachegrind or perf do)");
  if (Geometries > 1 && (!AO.BestPadOut.empty() || !AO.Baseline.empty()))
    return usageError("--best-pad-out and --baseline take one "
                      "geometry: give --I1 once");
  if (Geometries > 1 && !isSimBackend(O.Backend))
    return usageError("several --I1 need --backend=sim or "
                      "cachegrind (a timed sweep has no "
                      "cache geometry)");
  return BaselineResult;
}

/// The reports of geometry \p Geo, asked for in \p F.
ReportFiles geometryReports(const ReportFiles &F, const CacheGeometry &Geo,
                            bool Several) {
  return {geometryPath(F.JSON, Geo, Several), geometryPath(F.CSV, Geo, Several),
          geometryPath(F.SVG, Geo, Several), geometryPath(F.HTML, Geo, Several)};
}

/// Every output (and the journal) must be writable before a sweep that may
/// take hours runs, and a bad one must not leave the others written.
Error checkOutputsWritable(const AxisSweepOptions &AO,
                           ArrayRef<CacheGeometry> Geos,
                           ArrayRef<std::string> JournalPaths) {
  for (const CacheGeometry &Geo : Geos) {
    if (Error E =
            checkReportFiles(geometryReports(AO.Reports, Geo, Geos.size() > 1)))
      return E;
  }
  if (!AO.BestPadOut.empty())
    if (Error E = checkOutputPath(AO.BestPadOut))
      return E;
  for (const std::string &J : JournalPaths)
    if (!J.empty())
      if (Error E = checkOutputPath(J))
        return E;
  return Error::success();
}

/// Progress: "N of M variants from the journal" once when a resumed sweep
/// found some; then, only on a terminal, "measured 12/65 variants, about
/// 40 s left" on one rewritten line. The time left is this run's time per
/// variant so far times the variants left, so it sharpens as the sweep goes
/// and never counts what the journal had.
void setProgress(EngineOptions &O, const AxisSweepOptions &AO,
                 raw_ostream &Err) {
  struct State {
    size_t FromJournal = 0;
    std::chrono::steady_clock::time_point Start =
        std::chrono::steady_clock::now();
  };
  auto St = std::make_shared<State>();
  O.Started = [St, &Err, Tool = AO.Tool, Resume = O.Resume,
               Journal = O.JournalPath](size_t FromJournal, size_t Total) {
    St->FromJournal = FromJournal;
    St->Start = std::chrono::steady_clock::now();
    if (Resume)
      Err << formatv("{0}: resuming: {1} of {2} variants from the journal "
                     "{3}; {4} to measure\n",
                     Tool, FromJournal, Total, Journal, Total - FromJournal);
  };
  if (!AO.Terminal)
    return;
  O.Progress = [St, &Err, Tool = AO.Tool](size_t Done, size_t Total) {
    Err << formatv("\r{0}: measured {1}/{2} variants", Tool, Done, Total);
    size_t Measured = Done - std::min(Done, St->FromJournal);
    if (Measured && Done < Total) {
      double Spent = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - St->Start)
                         .count();
      Err << formatv(", about {0:F0} s left   ",
                     Spent / double(Measured) * double(Total - Done));
    }
    if (Done == Total)
      Err << "\n";
    Err.flush();
  };
}

/// --best-pad-out: the cheapest offset as JSON, and one line on \p Err.
Error writeBestPad(const SweepResult &R, const AxisSweepOptions &AO,
                   raw_ostream &Err) {
  const Measurement *Best = bestVariant(R);
  if (!Best)
    return inputError(AO.BestPadOut, 0, "no variant was measured: no best pad");
  std::optional<double> Pad0;
  for (const Measurement &M : R.Ms)
    if (!M.Failed && M.V.Offset == 0)
      Pad0 = M.Cost;
  if (Error E = writeOutput(AO.BestPadOut, [&](raw_ostream &OS) {
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
  Err << formatv("{0}: best {1} pad {2} (cost {3:F1}", AO.Tool, R.Axis,
                 Best->V.Offset, Best->Cost);
  if (Pad0)
    Err << formatv("; pad 0: {0:F1}, ratio {1:F4}", *Pad0,
                   *Pad0 ? Best->Cost / *Pad0 : 0.0);
  Err << ") -> " << AO.BestPadOut << "\n";
  return Error::success();
}

/// One geometry's result: gate, reports (the table on \p Out unless a
/// machine-readable report takes stdout), --best-pad-out, notes and a
/// failed gate. Returns whether the gate failed.
Expected<bool> reportGeometry(const SweepResult &R, const GateOptions &GO,
                              const SweepResult *Baseline,
                              const AxisSweepOptions &AO,
                              const CacheGeometry &Geo, bool Several,
                              raw_ostream &Out, raw_ostream &Err) {
  Expected<GateResult> G = gateAndReport(
      R, GO, Baseline, geometryReports(AO.Reports, Geo, Several), &Out);
  if (!G)
    return G.takeError();
  if (!AO.BestPadOut.empty())
    if (Error E = writeBestPad(R, AO, Err))
      return std::move(E);
  for (const std::string &N : R.Notes)
    WithColor::note(Err, AO.Tool) << N << "\n";
  if (!G->Failed)
    return false;
  WithColor::error(Err, AO.Tool)
      << "gate failed" << (Several ? " (" + R.CacheGeometry + ")" : "") << ": "
      << (G->Reasons.empty() ? G->Verdict : G->Reasons.front()) << "\n";
  return true;
}

} // namespace

Expected<int> runAxisSweep(const EngineOptions &Opts, const GateOptions &GO,
                           const AxisSweepOptions &AO, raw_ostream &Out,
                           raw_ostream &Err) {
  std::vector<CacheGeometry> Geos = {Opts.Geometry};
  Geos.insert(Geos.end(), Opts.MoreGeometries.begin(),
              Opts.MoreGeometries.end());
  Expected<std::optional<SweepResult>> Baseline =
      readBaselineAndCheck(Opts, GO, AO, Geos.size());
  if (!Baseline)
    return Baseline.takeError();
  std::vector<std::string> JournalPaths = {Opts.JournalPath};
  JournalPaths.insert(JournalPaths.end(), Opts.MoreJournalPaths.begin(),
                      Opts.MoreJournalPaths.end());
  if (Error E = checkOutputsWritable(AO, Geos, JournalPaths))
    return std::move(E);
  EngineOptions O = Opts;
  setProgress(O, AO, Err);
  // Before the sweep: a malformed SOURCE_DATE_EPOCH must not cost one.
  if (Expected<std::string> Date = provenanceDate(); !Date)
    return Date.takeError();

  Expected<std::vector<SweepResult>> Rs = runSweeps(O);
  if (!Rs)
    return Rs.takeError();
  Expected<Provenance> Prov = sweepProvenance(O, AO);
  if (!Prov)
    return Prov.takeError();
  for (SweepResult &R : *Rs)
    R.Prov = *Prov;
  // One result per geometry, in the order of Geos.
  bool GateFailed = false;
  for (size_t K = 0; K < Rs->size(); ++K) {
    Expected<bool> Failed =
        reportGeometry((*Rs)[K], GO, *Baseline ? &**Baseline : nullptr, AO,
                       Geos[K], Geos.size() > 1, Out, Err);
    if (!Failed)
      return Failed.takeError();
    GateFailed |= *Failed;
  }
  // A completed sweep no longer needs the journal the user did not ask for.
  if (AO.RemoveJournals)
    for (const std::string &J : JournalPaths)
      sys::fs::remove(J);
  return GateFailed ? ExitCheckFailed : ExitOK;
}

} // namespace sweep
} // namespace keel
