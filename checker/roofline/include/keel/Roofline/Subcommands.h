//===- keel/Roofline/Subcommands.h - layout-roofline's work -----*- C++ -*-===//
//
// What each `layout-roofline` subcommand does between reading its options
// and printing, as functions of plain option structs:
//   model   - modelKernels, modelChart, toJSON / printText (ModelReport)
//   machine - measureMachine (Machine.h), machineChart
//   run     - placeProgram, runChart
//   chart   - pointsChart
// Ceilings come from ceilingsFrom (the K computer's, a machine file, then
// single values); reports and charts are written by writeReportFile and
// writeChartFile.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_ROOFLINE_SUBCOMMANDS_H
#define KEEL_ROOFLINE_SUBCOMMANDS_H

#include "keel/Roofline/Chart.h"
#include "keel/Roofline/Machine.h"
#include "keel/Roofline/Model.h"
#include "keel/Roofline/Run.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace keel {
namespace roofline {

/// Where the ceilings come from; later sources win: the K computer's
/// (KComputer), a machine file, then each single value given.
struct CeilingOptions {
  bool KComputer = false;
  std::string MachineFile; ///< a `machine --json` report or a ceilings object
  std::string Scope = "one_core"; ///< one_core or all_cores
  std::optional<double> Mband, L2band, L1band, Ppeak;
};

/// The ceilings of \p O; all four must end up positive. The machine file's
/// measured level overlap, if any, goes to *Measured.
llvm::Expected<Ceilings>
ceilingsFrom(const CeilingOptions &O,
             std::optional<LevelOverlap> *Measured = nullptr);

/// A chart with C's roofs (L1, L2, memory) and its peak, no points.
ChartData chartFor(const Ceilings &C, llvm::StringRef Title);

/// Write \p O (with \p JSON, as JSON) or else \p Text to \p Path ("-":
/// stdout).
llvm::Error writeReportFile(llvm::StringRef Path, bool JSON, llvm::json::Object O,
                            llvm::function_ref<void(llvm::raw_ostream &)> Text);

/// Render \p D as SVG into \p Path; nothing when \p Path is empty.
llvm::Error writeChartFile(llvm::StringRef Path, const ChartData &D);

/// `model`: kernels from a file and by name, estimated under ceilings.
struct ModelOptions {
  CeilingOptions Roofs;
  std::optional<Overlap> Explicit; ///< none: the machine file's, else max
  std::string Input;               ///< kernel.json
  std::vector<std::string> KernelNames; ///< "3M-8L2-16F"
};

struct ModelReport {
  Ceilings Roofs;
  OverlapChoice Choice;
  std::vector<KernelCounts> Kernels;
  std::vector<Estimate> Estimates; ///< one per kernel
};

llvm::Expected<ModelReport> modelKernels(const ModelOptions &O);
/// The estimable kernels as points (flops per byte of memory traffic).
ChartData modelChart(const ModelReport &R);
llvm::json::Object toJSON(const ModelReport &R);
void printText(llvm::raw_ostream &OS, const ModelReport &R);

/// `machine`'s chart: one core's roofs with L3 when measured, the
/// one-thread peaks.
ChartData machineChart(const MachineReport &R);

/// `run`: a program placed under the ceilings.
struct RunOptions {
  CeilingOptions Roofs;
  RunConfig Config; ///< Config.Roofs is filled from Roofs
};

struct RunPlacement {
  RunConfig Config; ///< as run, with the ceilings
  RunReport Report;
};

llvm::Expected<RunPlacement> placeProgram(const RunOptions &O);
/// One point per level with traffic, with the level's roof as estimate.
ChartData runChart(const RunPlacement &P);

/// `chart`: measured points (a points.json) against the ceilings.
struct ChartOptions {
  CeilingOptions Roofs;
  std::string SVG;    ///< required
  std::string Points; ///< {"title": .., "points": [..]}; empty: no points
};

llvm::Expected<ChartData> pointsChart(const ChartOptions &O);

} // namespace roofline
} // namespace keel

#endif
