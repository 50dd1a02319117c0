//===- layout-sweep-report.cpp - re-render and gate a saved sweep ---------===//
//
// Reads a result written by `layout-sweep --json` and renders it again (text,
// JSON, CSV, SVG, HTML) or applies a gate to it, without measuring anything:
// the report and gate code of layout-sweep, on a file. Every --json the
// sweep writes reads back (docs/formats/sweep-result.md): an automatic
// sweep's ("mode": "auto", every axis gated as layout-sweep gates it) and a
// one-axis result (with or without --compare; one file per --I1 geometry).
//
//===----------------------------------------------------------------------===//
#include "keel/Support/Diagnostics.h"
#include "keel/Support/Tool.h"
#include "keel/SweepReport/AutoReport.h"
#include "keel/SweepReport/Gate.h"
#include "keel/SweepReport/Report.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace keel;
using namespace keel::sweep;

static cl::OptionCategory Cat("layout-sweep-report options");
static cl::opt<std::string> Input(cl::Positional, cl::Required,
                                  cl::desc("<result.json>"), cl::cat(Cat));
// As in layout-sweep: a bare --json / --csv is stdout (and replaces the
// text table there).
static cl::opt<std::string>
    JSONOut("json", cl::desc("write the JSON report (no value: stdout)"),
            cl::value_desc("file"), cl::ValueOptional, cl::cat(Cat));
static cl::opt<std::string>
    CSVOut("csv", cl::desc("write the CSV table (no value: stdout)"),
           cl::value_desc("file"), cl::ValueOptional, cl::cat(Cat));
static cl::opt<std::string> SVGOut("svg", cl::desc("write the SVG plot"),
                                   cl::value_desc("file"), cl::cat(Cat));
static cl::opt<std::string> HTMLOut("html", cl::desc("write the HTML report"),
                                    cl::value_desc("file"), cl::cat(Cat));
static cl::opt<bool> Quiet("quiet", cl::desc("do not print the text table"),
                           cl::cat(Cat));
static cl::opt<std::string>
    MaxSpread("max-spread",
              cl::desc("fail (exit 1) when the spread exceeds this, e.g. 1%"),
              cl::value_desc("percent"), cl::cat(Cat));
static cl::opt<std::string> MinEffect(
    "min-effect",
    cl::desc("the spread a layout effect must exceed; above the noise floor "
             "but not this, a spread is negligible (the gate is unchanged)"),
    cl::value_desc("percent"), cl::init("1%"), cl::cat(Cat));
static cl::opt<std::string>
    Baseline("baseline",
             cl::desc("fail (exit 1) when worse than this earlier result "
                      "beyond noise"),
             cl::value_desc("file"), cl::cat(Cat));
static cl::opt<std::string> Tolerance(
    "baseline-tolerance",
    cl::desc("extra slack over the baseline beyond noise (default 0%)"),
    cl::value_desc("percent"), cl::init("0%"), cl::cat(Cat));

static cl::opt<std::string> MaxMispredictRise(
    "max-mispredict-rise",
    cl::desc("with --baseline: fail (exit 1) when the mean branch "
             "mispredicts rise by more than this over the baseline's, e.g. 2%"),
    cl::value_desc("percent"), cl::cat(Cat));

static const char *const Tool = "layout-sweep-report";

/// An automatic sweep's report: each swept axis gated again (against that
/// axis of --baseline), the combined reports written again.
static Expected<int> renderAuto(SavedAutoSweep &S, const GateOptions &GO,
                                const ReportFiles &Files) {
  Expected<std::map<AxisKind, SweepResult>> Baselines =
      readAutoBaselines(Baseline, GO);
  if (!Baselines)
    return Baselines.takeError();
  AutoSweepResult Out;
  Out.Axes = std::move(S.Axes); // the outcomes point into it: not resized
  size_t K = 0;
  for (AutoAxis &A : Out.Axes) {
    if (!A.Swept)
      continue;
    SweepResult &R = S.Results[K++];
    Expected<GateResult> G = gateAutoAxis(R, A.Axis, GO, *Baselines, Baseline);
    if (!G)
      return G.takeError();
    Out.Outcomes.push_back({&A, std::move(R), std::move(*G)});
  }
  if (Error E = writeAutoReports(S.Binary, Files, Out))
    return std::move(E);
  if (!Quiet)
    outs() << Out.Text;
  collectAutoOutcomes(Out);
  if (Out.GateFailure)
    errs() << Tool << ": gate failed: " << *Out.GateFailure << "\n";
  return Out.ExitStatus;
}

/// Read the saved sweep, gate it and write the reports.
static Expected<int> renderAndGate() {
  for (cl::opt<std::string> *O : {&JSONOut, &CSVOut})
    if (O->getNumOccurrences() && O->empty())
      *O = "-";
  if (JSONOut == "-" && CSVOut == "-")
    return makeError("--json and --csv cannot both write to stdout");

  GateOptions GO;
  if (!MaxSpread.empty()) {
    auto V = parsePercent(MaxSpread);
    if (!V)
      return makeError("--max-spread: {0}", toString(V.takeError()));
    GO.MaxSpread = *V;
  }
  auto ME = parsePercent(MinEffect);
  if (!ME)
    return makeError("--min-effect: {0}", toString(ME.takeError()));
  GO.MinEffect = *ME;
  auto Tol = parsePercent(Tolerance);
  if (!Tol)
    return makeError("--baseline-tolerance: {0}", toString(Tol.takeError()));
  GO.BaselineTolerance = *Tol;
  if (MaxMispredictRise.getNumOccurrences()) { // an empty value is an error too
    if (Baseline.empty())
      return makeError("--max-mispredict-rise compares with "
                       "a baseline: give --baseline=FILE");
    auto V = parsePercent(MaxMispredictRise);
    if (!V)
      return makeError("--max-mispredict-rise: {0}",
                       toString(V.takeError()));
    GO.MaxMispredictRise = *V;
  }

  ReportFiles Files{JSONOut, CSVOut, SVGOut, HTMLOut};
  Expected<std::optional<SavedAutoSweep>> Auto = readAutoReport(Input);
  if (!Auto)
    return Auto.takeError();
  if (*Auto)
    return renderAuto(**Auto, GO, Files);

  auto R = readResultFile(Input);
  if (!R)
    return R.takeError();
  std::optional<SweepResult> Base;
  if (!Baseline.empty()) {
    auto B = readBaselineAxis(Baseline, R->Axis);
    if (!B)
      return B.takeError();
    Base = std::move(*B);
  }
  // As layout-sweep writes a one-axis result (gateAndReport, Report.h).
  auto G = gateAndReport(*R, GO, Base ? &*Base : nullptr,
                         Files, Quiet ? nullptr : &outs());
  if (!G)
    return G.takeError();
  if (G->Failed) {
    errs() << Tool << ": gate failed: " << G->Reasons.front() << "\n";
    return ExitCheckFailed;
  }
  return ExitOK;
}

int main(int argc, char **argv) {
  return runTool(argc, argv,
                 {Tool, "render and gate a saved layout sweep\n", {&Cat}},
                 renderAndGate);
}
