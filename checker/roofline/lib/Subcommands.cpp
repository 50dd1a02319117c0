//===- Subcommands.cpp - what layout-roofline's subcommands do ------------===//
//
// Each subcommand's work from its option struct; errors come in the order
// the tool always reported them (ceilings, then the subcommand's own
// inputs).
//
//===----------------------------------------------------------------------===//
#include "keel/Roofline/Subcommands.h"
#include "keel/Roofline/JSONInput.h"
#include "keel/Support/Diagnostics.h"
#include "keel/Support/Input.h"
#include "keel/Support/OutputFile.h"
#include "keel/Support/Text.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace llvm;
using namespace keel;
using namespace keel::roofline;

Expected<Ceilings>
keel::roofline::ceilingsFrom(const CeilingOptions &O,
                             std::optional<LevelOverlap> *Measured) {
  Ceilings C;
  if (O.KComputer)
    C = kComputerCeilings();
  if (!O.MachineFile.empty()) {
    auto Text = readTextFile(O.MachineFile);
    if (!Text)
      return Text.takeError();
    auto V = parseJSON(*Text, O.MachineFile);
    if (!V)
      return V.takeError();
    auto P = parseCeilings(*V, O.Scope, O.MachineFile);
    if (!P)
      return P.takeError();
    C = *P;
    auto L = parseLevelOverlap(*V, O.MachineFile, *Text);
    if (!L)
      return L.takeError();
    if (Measured)
      *Measured = *L;
  }
  if (O.Mband)
    C.Mband = *O.Mband;
  if (O.L2band)
    C.L2band = *O.L2band;
  if (O.L1band)
    C.L1band = *O.L1band;
  if (O.Ppeak)
    C.Ppeak = *O.Ppeak;
  if (!(C.Mband > 0 && C.L2band > 0 && C.L1band > 0 && C.Ppeak > 0))
    return usageError("ceilings missing: give --machine=machine.json, "
                      "--k-computer, or all of --Mband --L2band --L1band "
                      "--Ppeak (positive)");
  if (C.Name.empty())
    C.Name = "command line";
  return C;
}

ChartData keel::roofline::chartFor(const Ceilings &C, StringRef Title) {
  ChartData D;
  D.Title = Title.str();
  D.Roofs = {{"L1", C.L1band}, {"L2", C.L2band}, {"memory", C.Mband}};
  D.Peaks = {{"peak", C.Ppeak}};
  return D;
}

Error keel::roofline::writeReportFile(StringRef Path, bool JSON,
                                      json::Object O,
                                      function_ref<void(raw_ostream &)> Text) {
  return writeOutput(Path, [&](raw_ostream &OS) {
    if (JSON) {
      OS << formatv("{0:2}", json::Value(std::move(O))) << '\n';
      return Error::success();
    }
    // Kernel names come from the profile: escape control and bidi
    // characters, as every text report that prints names does.
    std::string S;
    raw_string_ostream SS(S);
    Text(SS);
    OS << printableText(S);
    return Error::success();
  });
}

Error keel::roofline::writeChartFile(StringRef Path, const ChartData &D) {
  if (Path.empty())
    return Error::success();
  return writeOutput(Path, [&](raw_ostream &OS) {
    renderSVG(OS, D);
    return Error::success();
  });
}

/// The kernels of --input, then those named.
static Expected<std::vector<KernelCounts>> kernelsOf(const ModelOptions &O) {
  std::vector<KernelCounts> Kernels;
  if (!O.Input.empty()) {
    auto Text = readTextFile(O.Input);
    if (!Text)
      return Text.takeError();
    auto K = parseKernels(*Text, O.Input);
    if (!K)
      return K.takeError();
    Kernels = std::move(*K);
  }
  for (const std::string &N : O.KernelNames) {
    auto K = parseKernelName(N);
    if (!K)
      return usageError("{0}", toString(K.takeError()));
    Kernels.push_back(std::move(*K));
  }
  if (Kernels.empty())
    return usageError("give --input=kernel.json or "
                                           "--kernel=NAME");
  return Kernels;
}

Expected<ModelReport> keel::roofline::modelKernels(const ModelOptions &O) {
  std::optional<LevelOverlap> Measured;
  auto C = ceilingsFrom(O.Roofs, &Measured);
  if (!C)
    return C.takeError();
  ModelReport R;
  R.Roofs = *C;
  R.Choice = chooseOverlap(O.Explicit, Measured);
  auto K = kernelsOf(O);
  if (!K)
    return K.takeError();
  R.Kernels = std::move(*K);
  for (const KernelCounts &KC : R.Kernels) {
    auto E = estimate(KC, R.Roofs, R.Choice.Mode);
    if (!E)
      return O.Input.empty()
                 ? usageError("{0}", toString(E.takeError()))
                 : inputError(O.Input, 0, "{0}", toString(E.takeError()));
    R.Estimates.push_back(std::move(*E));
  }
  return std::move(R);
}

ChartData keel::roofline::modelChart(const ModelReport &R) {
  ChartData D = chartFor(R.Roofs, "cache-aware estimates");
  for (size_t I = 0; I < R.Kernels.size(); ++I) {
    const KernelCounts &K = R.Kernels[I];
    const Estimate &E = R.Estimates[I];
    if (!E.Estimable)
      continue;
    double Bytes = K.M * K.ElementBytes;
    if (Bytes > 0)
      D.Points.push_back({K.Name, K.K / Bytes, E.GFlops, std::nullopt});
  }
  return D;
}

json::Object keel::roofline::toJSON(const ModelReport &R) {
  json::Array Arr;
  for (size_t I = 0; I < R.Kernels.size(); ++I) {
    json::Object O = roofline::toJSON(R.Kernels[I]);
    O["estimate"] = roofline::toJSON(R.Estimates[I]);
    Arr.push_back(std::move(O));
  }
  json::Object OverlapJ{{"mode", overlapName(R.Choice.Mode)},
                        {"why", R.Choice.Why}};
  if (R.Choice.Factor)
    OverlapJ["factor"] = *R.Choice.Factor;
  return json::Object{{"ceilings", roofline::toJSON(R.Roofs)},
                      {"overlap", std::move(OverlapJ)},
                      {"kernels", std::move(Arr)}};
}

void keel::roofline::printText(raw_ostream &OS, const ModelReport &R) {
  OS << "overlap: " << overlapName(R.Choice.Mode) << " (" << R.Choice.Why
     << ")\n";
  for (size_t I = 0; I < R.Kernels.size(); ++I)
    printText(OS, R.Kernels[I], R.Roofs, R.Estimates[I]);
}

ChartData keel::roofline::machineChart(const MachineReport &R) {
  ChartData D = chartFor(R.OneCore, "this machine, one core");
  for (const LevelCeiling &L : R.Levels)
    if (L.Level == "L3")
      D.Roofs.insert(D.Roofs.begin() + 2, {"L3", L.ReadGBs});
  D.Peaks.clear();
  for (const PeakResult &P : R.Peaks)
    if (P.Threads == 1)
      D.Peaks.push_back({P.Kind, P.GFlops});
  return D;
}

Expected<RunPlacement> keel::roofline::placeProgram(const RunOptions &O) {
  auto C = ceilingsFrom(O.Roofs);
  if (!C)
    return C.takeError();
  RunPlacement P;
  P.Config = O.Config;
  if (P.Config.Argv.empty() && !P.Config.CallgrindOut)
    return usageError("give a program: run -- ./prog");
  P.Config.Roofs = *C;
  if (P.Config.Argv.empty() && !P.Config.Seconds)
    return usageError("--callgrind-out without a program needs --seconds");
  auto R = runRoofline(P.Config);
  if (!R)
    return R.takeError();
  P.Report = std::move(*R);
  return std::move(P);
}

ChartData keel::roofline::runChart(const RunPlacement &P) {
  const RunReport &R = P.Report;
  ChartData D = chartFor(P.Config.Roofs, "program on the roofline");
  std::string Program =
      P.Config.Argv.empty() ? std::string("program") : P.Config.Argv[0];
  for (const LevelPlacement &L : R.Levels)
    if (L.Intensity > 0)
      D.Points.push_back({Program + " (" + L.Level + " bytes)", L.Intensity,
                          R.AchievedGFlops,
                          std::min(L.RoofGFlops, P.Config.Roofs.Ppeak)});
  return D;
}

Expected<ChartData> keel::roofline::pointsChart(const ChartOptions &O) {
  auto C = ceilingsFrom(O.Roofs);
  if (!C)
    return C.takeError();
  if (O.SVG.empty())
    return usageError("chart needs --svg=FILE");
  ChartData D = chartFor(*C, "measured points");
  if (O.Points.empty())
    return D;
  auto Text = readTextFile(O.Points);
  if (!Text)
    return Text.takeError();
  auto V = parseJSON(*Text, O.Points);
  if (!V)
    return V.takeError();
  const json::Object *Obj = V->getAsObject();
  const json::Array *A = Obj ? Obj->getArray("points") : nullptr;
  if (!A)
    return inputError(O.Points, 1, "expected an object with \"points\"");
  if (auto T = Obj->getString("title"))
    D.Title = T->str();
  for (const json::Value &Pt : *A) {
    const json::Object *PO = Pt.getAsObject();
    auto X = PO ? PO->getNumber("intensity") : std::nullopt;
    auto Y = PO ? PO->getNumber("gflops") : std::nullopt;
    if (!X || !Y)
      return inputError(O.Points, lineOfKey(*Text, "points"),
                        "each point needs \"intensity\" and \"gflops\"");
    ChartData::Point P{"", *X, *Y, PO->getNumber("estimate")};
    if (auto L = PO->getString("label"))
      P.Label = L->str();
    D.Points.push_back(P);
  }
  return D;
}
