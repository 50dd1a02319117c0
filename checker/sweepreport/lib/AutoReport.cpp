//===- AutoReport.cpp - the automatic sweep's reports, read back ----------===//
//
// The text, JSON, CSV, SVG and HTML reports of an automatic sweep (one
// section per axis), a saved automatic sweep read back as a baseline, and
// each axis' gate against it (layout-sweep and layout-sweep-report alike).
//
//===----------------------------------------------------------------------===//

#include "keel/SweepReport/AutoReport.h"

#include "keel/Support/Diagnostics.h"
#include "keel/Support/Input.h"
#include "keel/Support/OutputFile.h"
#include "keel/Support/Text.h"
#include "keel/SweepReport/Report.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace keel {
namespace sweep {

static const AutoOutcome *outcomeOf(ArrayRef<AutoOutcome> Os, AxisKind Axis) {
  for (const AutoOutcome &O : Os)
    if (O.A->Axis == Axis)
      return &O;
  return nullptr;
}

/// "swept (N variants): VERDICT; GATE" for the summary of one swept axis.
static std::string sweptText(const AutoOutcome &O) {
  // Without --max-spread there is no gate to pass: say so (a spread with no
  // threshold must not read as a pass).
  std::string Gate =
      O.G.Failed ? "gate failed: " + (O.G.Reasons.empty() ? std::string("")
                                                          : O.G.Reasons.front())
      : O.G.GateSet ? std::string("gate passed")
                    : std::string("no gate set");
  // A data axis that moved code measured code effects too: say so here.
  return formatv("swept ({0} variant{1}): {2}; {3}{4}", O.R.Ms.size(),
                 O.R.Ms.size() == 1 ? "" : "s", O.G.Verdict, Gate,
                 O.R.CodeMoved.empty() ? "" : "; " + O.R.CodeMoved)
      .str();
}

void writeAutoTextReport(raw_ostream &OS, StringRef Binary,
                         ArrayRef<AutoAxis> Axes, ArrayRef<AutoOutcome> Outcomes) {
  for (const AutoOutcome &O : Outcomes) {
    OS << "== " << axisName(O.A->Axis) << ": " << O.A->How << "\n";
    writeTextReport(OS, O.R, O.G);
    OS << "\n";
  }
  OS << "summary of " << Binary << ":\n";
  for (const AutoAxis &A : Axes) {
    const AutoOutcome *O = outcomeOf(Outcomes, A.Axis);
    if (O) {
      OS << formatv("  {0,-6} {1}\n", axisName(A.Axis), sweptText(*O));
      continue;
    }
    OS << formatv("  {0,-6} not swept: {1}\n", axisName(A.Axis), A.Why);
    if (!A.Enable.empty())
      OS << formatv("  {0,-6} to sweep it: {1}\n", "", A.Enable);
  }
}

json::Value autoReportJSON(StringRef Binary, ArrayRef<AutoAxis> Axes,
                           ArrayRef<AutoOutcome> Outcomes) {
  json::Object AxesJ;
  json::Array NotSwept, FailedAxes;
  for (const AutoAxis &A : Axes) {
    const AutoOutcome *O = outcomeOf(Outcomes, A.Axis);
    if (O) {
      json::Value V = reportJSON(O->R, O->G);
      if (json::Object *Obj = V.getAsObject())
        (*Obj)["how"] = A.How;
      AxesJ[axisName(A.Axis)] = std::move(V);
      if (O->G.Failed)
        FailedAxes.push_back(axisName(A.Axis));
    } else {
      NotSwept.push_back(json::Object{
          {"axis", axisName(A.Axis)}, {"reason", A.Why}, {"enable", A.Enable}});
    }
  }
  json::Array Order;
  for (const AutoAxis &A : Axes)
    Order.push_back(axisName(A.Axis));
  json::Object Top{{"version", ReportVersion},
                   {"mode", "auto"},
                   {"binary", Binary},
                   {"axis_order", std::move(Order)},
                   {"axes", std::move(AxesJ)},
                   {"not_swept", std::move(NotSwept)},
                   {"gate",
                    json::Object{{"failed", !FailedAxes.empty()},
                                 {"failed_axes", std::move(FailedAxes)}}}};
  if (std::optional<Provenance> P = autoProvenance(Outcomes))
    Top["provenance"] = toJSON(*P, Outcomes.front().R.Backend);
  return Top;
}

std::optional<Provenance> autoProvenance(ArrayRef<AutoOutcome> Outcomes) {
  if (Outcomes.empty() || Outcomes.front().R.Prov.empty())
    return std::nullopt;
  // Every axis was swept by the same command: its record, with each axis'
  // relink commands named by axis.
  Provenance P = Outcomes.front().R.Prov;
  P.Relink.clear();
  for (const AutoOutcome &O : Outcomes)
    for (const std::string &C : O.R.Prov.Relink)
      P.Relink.push_back((axisName(O.A->Axis) + ": " + C).str());
  return P;
}

void writeAutoCSVReport(raw_ostream &OS, ArrayRef<AutoOutcome> Outcomes) {
  // One table: the CSV has series and axis columns, and its relative costs
  // are to each (series, axis) mean.
  SweepResult All;
  for (const AutoOutcome &O : Outcomes) {
    All.Ms.insert(All.Ms.end(), O.R.Ms.begin(), O.R.Ms.end());
    if (O.R.Compare) {
      if (!All.Compare)
        All.Compare = Series{"compare", O.R.Compare->Binary, {}, ""};
      All.Compare->Ms.insert(All.Compare->Ms.end(), O.R.Compare->Ms.begin(),
                             O.R.Compare->Ms.end());
    }
    All.NoiseFloor.insert(All.NoiseFloor.end(), O.R.NoiseFloor.begin(),
                          O.R.NoiseFloor.end());
  }
  writeCSVReport(OS, All);
}

/// An attribute's value in the first tag of \p SVG ("" when absent).
static StringRef svgAttribute(StringRef SVG, StringRef Name) {
  StringRef Tag = SVG.take_until([](char C) { return C == '>'; });
  size_t At = Tag.find((" " + Name + "=\"").str());
  if (At == StringRef::npos)
    return "";
  return Tag.drop_front(At + Name.size() + 3).take_until([](char C) {
    return C == '"';
  });
}

void writeAutoSVGPlot(raw_ostream &OS, ArrayRef<AutoOutcome> Outcomes) {
  // Each axis' plot as it is on its own, one below the other (nested <svg>
  // elements placed with y).
  std::vector<std::string> Plots;
  int W = 0, H = 0;
  for (const AutoOutcome &O : Outcomes) {
    std::string P;
    raw_string_ostream PS(P);
    writeSVGPlot(PS, O.R, O.G);
    int PW = 0, PH = 0;
    svgAttribute(P, "width").getAsInteger(10, PW);
    svgAttribute(P, "height").getAsInteger(10, PH);
    W = std::max(W, PW);
    H += PH;
    Plots.push_back(std::move(P));
  }
  OS << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W
     << "\" height=\"" << H << "\" viewBox=\"0 0 " << W << " " << H << "\">\n";
  int Y = 0;
  for (const std::string &P : Plots) {
    StringRef Rest = StringRef(P);
    Rest.consume_front("<svg");
    OS << "<svg x=\"0\" y=\"" << Y << "\"" << Rest;
    int PH = 0;
    svgAttribute(P, "height").getAsInteger(10, PH);
    Y += PH;
  }
  OS << "</svg>\n";
}

void writeAutoHTMLReport(raw_ostream &OS, StringRef Binary,
                         ArrayRef<AutoAxis> Axes,
                         ArrayRef<AutoOutcome> Outcomes) {
  writeHTMLHead(OS, ("layout sweep: " + Binary + ", every axis").str());
  OS << "<h1>layout sweep: " << escapeMarkup(sys::path::filename(Binary))
     << ", every axis</h1>\n";
  std::optional<Provenance> P = autoProvenance(Outcomes);
  writeHTMLProvenance(OS, P ? *P : Provenance(),
                      Outcomes.empty() ? "" : Outcomes.front().R.Backend);
  OS << "<table class=\"axes\">\n<tr><th>axis</th><th>how</th><th>result"
        "</th></tr>\n";
  for (const AutoAxis &A : Axes) {
    const AutoOutcome *O = outcomeOf(Outcomes, A.Axis);
    std::string Name = escapeMarkup(axisName(A.Axis));
    OS << "<tr><th>";
    if (O)
      OS << "<a href=\"#axis-" << Name << "\">" << Name << "</a>";
    else
      OS << Name;
    OS << "</th><td>" << escapeMarkup(O ? A.How : "not swept: " + A.Why)
       << "</td><td" << (O && O->G.Failed ? " class=\"fail\"" : "") << ">"
       << escapeMarkup(O ? sweptText(*O) : "to sweep it: " + A.Enable)
       << "</td></tr>\n";
  }
  OS << "</table>\n";
  for (const AutoOutcome &O : Outcomes) {
    std::string Name = escapeMarkup(axisName(O.A->Axis));
    OS << "<h2 id=\"axis-" << Name << "\">" << Name << ": "
       << escapeMarkup(O.A->How) << "</h2>\n";
    writeHTMLSection(OS, O.R, O.G, "h3");
  }
  OS << "</body>\n</html>\n";
}

/// The axis a saved automatic sweep names \p Name (in "axes", "not_swept"
/// or "axis_order"); InputError for a name that is no --axis.
static Expected<AxisKind> savedAxis(StringRef Path, StringRef Name) {
  if (std::optional<AxisKind> K = lookupAxis(Name))
    return *K;
  return inputError(Path, 0,
                    "an automatic sweep's report names axis '{0}', "
                    "which is no sweep axis",
                    Name);
}

/// Axis \p Axis of a saved automatic sweep as swept: its "how".
static AutoAxis sweptAxis(AxisKind Axis, const json::Object &Report) {
  AutoAxis A;
  A.Axis = Axis;
  A.Swept = true;
  if (std::optional<StringRef> How = Report.getString("how"))
    A.How = How->str();
  return A;
}

Expected<std::optional<SavedAutoSweep>> readAutoReport(StringRef Path) {
  Expected<json::Value> V = readJSONFile(Path);
  if (!V)
    return V.takeError();
  const json::Object *O = V->getAsObject();
  std::optional<StringRef> Mode = O ? O->getString("mode") : std::nullopt;
  if (!Mode || *Mode != "auto")
    return std::nullopt;
  if (std::optional<int64_t> Ver = O->getInteger("version");
      Ver && *Ver > ReportVersion)
    return inputError(Path, 0,
                      "report version {0} is newer than this tool's ({1})",
                      *Ver, ReportVersion);
  SavedAutoSweep S;
  if (std::optional<StringRef> B = O->getString("binary"))
    S.Binary = B->str();
  const json::Object *AxesJ = O->getObject("axes");
  if (!AxesJ)
    return inputError(Path, 0, "an automatic sweep's report without \"axes\"");
  std::map<std::string, AutoAxis> NotSwept;
  if (const json::Array *NS = O->getArray("not_swept"))
    for (const json::Value &E : *NS) {
      const json::Object *X = E.getAsObject();
      std::optional<StringRef> Name = X ? X->getString("axis") : std::nullopt;
      if (!Name)
        return inputError(Path, 0, "not_swept: an entry without \"axis\"");
      Expected<AxisKind> K = savedAxis(Path, *Name);
      if (!K)
        return K.takeError();
      AutoAxis A;
      A.Axis = *K;
      A.Why = X->getString("reason").value_or("").str();
      A.Enable = X->getString("enable").value_or("").str();
      NotSwept[Name->str()] = std::move(A);
    }
  // The axes in the order they were planned (older reports: swept ones by
  // name, then the others).
  std::vector<std::string> Order;
  if (const json::Array *OA = O->getArray("axis_order"))
    for (const json::Value &E : *OA)
      if (std::optional<StringRef> N = E.getAsString())
        Order.push_back(N->str());
  if (Order.empty()) {
    for (const auto &KV : *AxesJ)
      Order.push_back(KV.first.str());
    for (const auto &KV : NotSwept)
      Order.push_back(KV.first);
    llvm::sort(Order.begin(), Order.begin() + AxesJ->size());
  }
  for (const std::string &Name : Order) {
    if (const json::Value *Rep = AxesJ->get(Name)) {
      SweepResult R;
      json::Path::Root Root("axes");
      if (!fromJSON(*Rep, R, Root))
        return inputError(Path, 0, "axis '{0}' is not a sweep result: {1}",
                          Name, toString(Root.getError()));
      Expected<AxisKind> K = savedAxis(Path, Name);
      if (!K)
        return K.takeError();
      S.Axes.push_back(sweptAxis(*K, *Rep->getAsObject()));
      S.Results.push_back(std::move(R));
    } else if (auto It = NotSwept.find(Name); It != NotSwept.end()) {
      S.Axes.push_back(It->second);
    } else {
      return inputError(Path, 0, "axis_order names '{0}', which is neither "
                        "in \"axes\" nor in \"not_swept\"", Name);
    }
  }
  return S;
}

Expected<std::map<AxisKind, SweepResult>> readBaselineAxes(StringRef Path) {
  Expected<json::Value> V = readJSONFile(Path);
  if (!V)
    return V.takeError();
  const json::Object *O = V->getAsObject();
  if (!O)
    return inputError(Path, 0, "not a sweep report (no JSON object)");
  if (std::optional<int64_t> Ver = O->getInteger("version");
      Ver && *Ver > ReportVersion)
    return inputError(Path, 0,
                      "report version {0} is newer than this tool's ({1})",
                      *Ver, ReportVersion);
  std::map<AxisKind, SweepResult> Out;
  std::optional<StringRef> Mode = O->getString("mode");
  if (!Mode || *Mode != "auto") { // one axis' report
    Expected<SweepResult> R = readResultFile(Path);
    if (!R)
      return R.takeError();
    std::optional<AxisKind> K = lookupAxis(R->Axis);
    if (!K)
      return inputError(Path, 0,
                        "a sweep result of axis '{0}', which is no "
                        "sweep axis",
                        R->Axis);
    Out[*K] = std::move(*R);
    return Out;
  }
  const json::Object *AxesJ = O->getObject("axes");
  if (!AxesJ)
    return inputError(Path, 0, "an automatic sweep's report without \"axes\"");
  for (const auto &[Name, Value] : *AxesJ) {
    SweepResult R;
    json::Path::Root Root("axes");
    if (!fromJSON(Value, R, Root))
      return inputError(Path, 0, "axis '{0}' is not a sweep result: {1}",
                        Name.str(), toString(Root.getError()));
    Expected<AxisKind> K = savedAxis(Path, Name);
    if (!K)
      return K.takeError();
    Out[*K] = std::move(R);
  }
  return Out;
}

Expected<SweepResult> readBaselineAxis(StringRef Path, StringRef Axis) {
  Expected<std::optional<SavedAutoSweep>> Auto = readAutoReport(Path);
  if (!Auto)
    return Auto.takeError();
  if (!*Auto) // a one-axis result: the gate checks that its axis matches
    return readResultFile(Path);
  std::string Swept;
  for (size_t I = 0, K = 0; I < (*Auto)->Axes.size(); ++I) {
    const AutoAxis &A = (*Auto)->Axes[I];
    if (!A.Swept)
      continue;
    if (A.Axis == lookupAxis(Axis))
      return std::move((*Auto)->Results[K]);
    Swept += (Swept.empty() ? "" : ", ") + axisName(A.Axis).str();
    ++K;
  }
  return inputError(Path, 0,
                    "an automatic sweep's report without the {0} axis (it "
                    "swept {1})",
                    Axis, Swept.empty() ? std::string("none") : Swept);
}

Expected<std::map<AxisKind, SweepResult>>
readAutoBaselines(StringRef Baseline, const GateOptions &GO) {
  if (Baseline.empty())
    return std::map<AxisKind, SweepResult>();
  Expected<std::map<AxisKind, SweepResult>> B = readBaselineAxes(Baseline);
  if (!B)
    return B.takeError();
  if (GO.MaxMispredictRise)
    for (const auto &[Axis, R] : *B)
      if (Error E = checkMispredictBaseline(R, Baseline))
        return std::move(E);
  return B;
}

Expected<GateResult>
gateAutoAxis(const SweepResult &R, AxisKind Axis, const GateOptions &GO,
             const std::map<AxisKind, SweepResult> &Baselines,
             StringRef BaselinePath) {
  auto BIt = Baselines.find(Axis);
  Expected<GateResult> G =
      evaluateGate(R, GO, BIt == Baselines.end() ? nullptr : &BIt->second);
  if (!G)
    return G.takeError();
  if (!BaselinePath.empty() && BIt == Baselines.end())
    G->Info.push_back(formatv("--baseline {0} has no {1} axis: this axis is "
                              "not compared with it",
                              BaselinePath, axisName(Axis))
                          .str());
  return G;
}

Error writeAutoReports(StringRef Binary, const ReportFiles &F,
                       AutoSweepResult &R) {
  ArrayRef<AutoAxis> Axes = R.Axes;
  ArrayRef<AutoOutcome> Outcomes = R.Outcomes;
  if (Error E = writeOutputIfNamed(F.JSON, [&](raw_ostream &OS) {
        OS << formatv("{0:2}", autoReportJSON(Binary, Axes, Outcomes)) << "\n";
      }))
    return E;
  if (Error E = writeOutputIfNamed(
          F.CSV, [&](raw_ostream &OS) { writeAutoCSVReport(OS, Outcomes); }))
    return E;
  if (Error E = writeOutputIfNamed(
          F.SVG, [&](raw_ostream &OS) { writeAutoSVGPlot(OS, Outcomes); }))
    return E;
  if (Error E = writeOutputIfNamed(F.HTML, [&](raw_ostream &OS) {
        writeAutoHTMLReport(OS, Binary, Axes, Outcomes);
      }))
    return E;
  if (textTableToStdout(F)) {
    raw_string_ostream OS(R.Text);
    writeAutoTextReport(OS, Binary, Axes, Outcomes);
  }
  return Error::success();
}

void collectAutoOutcomes(AutoSweepResult &R) {
  for (const AutoOutcome &O : R.Outcomes)
    for (const std::string &N : O.R.Notes)
      R.Notes.push_back((axisName(O.A->Axis) + ": " + N).str());
  R.ExitStatus = ExitOK;
  for (const AutoOutcome &O : R.Outcomes)
    if (O.G.Failed) {
      R.GateFailure =
          (axisName(O.A->Axis) + ": " +
           (O.G.Reasons.empty() ? O.G.Verdict : O.G.Reasons.front()))
              .str();
      R.ExitStatus = ExitCheckFailed;
      return;
    }
}

} // namespace sweep
} // namespace keel
