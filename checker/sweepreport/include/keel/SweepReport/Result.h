//===- keel/SweepReport/Result.h - what a layout sweep measured --------*- C++ -*-===//
//
// The narrow type between the sweep engine (perturb x measure x journal) and
// the statistics/report side (Stats.h, Report.h). The engine fills a
// SweepResult; statistics, gates and reports only read it.
//
// One Variant = one point of the perturbation grid (axis + offset in bytes)
// of one series (the swept binary, or the --compare binary). A Measurement is
// what one backend observed for that variant, or why it failed: a failed
// variant never carries a cost and must be left out of every statistic.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_SWEEPREPORT_RESULT_H
#define KEEL_SWEEPREPORT_RESULT_H

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace keel {
namespace sweep {

/// The version of the JSON report (Report.h writes it; readers of a saved
/// report, the gate's --baseline and the automatic sweep's, refuse a newer
/// one). Bumped whenever a key of the JSON report changes meaning or goes
/// away.
inline constexpr int ReportVersion = 2;

/// Perturbation axes (Variant::Axis spells them exactly like this).
///  "code"  - bytes of code added outside the hot code (relink / pad object /
///            BOLT --pad-funcs-before)
///  "data"  - bytes added before the data (__keel_data_pad)
///  "stack" - bytes main starts below its usual stack pointer (LD_PRELOAD
///            shim; the environment does not change)
///  "env"   - bytes added to the environment (moves the environment strings,
///            the initial stack and every frame)
///  "heap"  - bytes every malloc result is shifted by (LD_PRELOAD shim)
///  "fs-spacing" - bytes between data written by different threads (the
///            relink template rebuilds with them; layout-sweep --false-sharing)
///  "aa"    - A/A: byte-identical copies of one binary (time backend noise floor);
///            Offset is then the copy number.

/// Series names: the swept binary is "base", the --compare binary "compare".
struct Variant {
  std::string Series = "base";
  std::string Axis = "code";
  int64_t Offset = 0; ///< bytes (copy number for Axis == "aa")

  /// Stable identity used by the journal: "base/code/64".
  std::string key() const;
  bool operator<(const Variant &O) const;
  bool operator==(const Variant &O) const {
    return Series == O.Series && Axis == O.Axis && Offset == O.Offset;
  }
};

struct Measurement {
  Variant V;
  bool Failed = false;
  std::string FailReason; ///< one line, e.g. "exit code 1", "killed by signal 11"

  /// Backend cost (sim: the weighted cost model; time: median seconds;
  /// perf: cycles). Meaningless when Failed.
  double Cost = 0;
  /// Raw counters by name. sim: Ir I1mr ILmr Dr Dw D1mr D1mw DLmr DLmw Bc Bcm
  /// Bi Bim (cachegrind's event names); perf: cycles instructions.
  std::map<std::string, double> Counters;
  /// Executed instructions (sim: Ir; perf: instructions; time: 0 = unknown).
  /// Differences across variants mean the program is not layout-independent.
  uint64_t Instructions = 0;
  /// time backend: one wall-clock sample (seconds) per round, in round order.
  std::vector<double> Samples;
  /// sim: executed instructions per function (cachegrind's fn= names,
  /// mangled). Kept in the journal so a resumed sweep can still compare
  /// them; the engine empties it once the instruction check is done, so
  /// reports do not carry it.
  std::map<std::string, uint64_t> FunctionInstructions;
  /// sim with keel-sim: why this variant was measured by a run of its own
  /// binary instead of as an address map of one shared run ("" = it was a
  /// map, or needs its own run by its axis: stack, env, heap).
  std::string Fallback;
};

/// A variant that could not be measured, and why (one line).
inline Measurement failedMeasurement(const Variant &V, std::string Reason) {
  Measurement M;
  M.V = V;
  M.Failed = true;
  M.FailReason = std::move(Reason);
  return M;
}

/// A function whose executed-instruction count differs across variants.
struct FunctionDiff {
  std::string Name; ///< demangled
  uint64_t Min = 0, Max = 0;
};

/// The executed-instruction check of one series (docs/sweep-statistics.md):
/// do all variants execute the same instructions, and if not, whose?
struct InstructionCheck {
  std::string Series = "base";
  uint64_t Min = 0, Max = 0; ///< total executed instructions
  int64_t MinOffset = 0, MaxOffset = 0;
  double Tolerance = 0;      ///< relative; --instr-tolerance
  bool PerFunction = false;  ///< per-function counts were compared
  /// Functions of the swept binary itself whose counts differ: the program's
  /// own code paths depend on the layout (not layout-independent).
  std::vector<FunctionDiff> Own;
  /// Functions outside it (libc, ld.so, the heap shim, unnamed code).
  std::vector<FunctionDiff> Other;
  double spread() const { return Min ? double(Max - Min) / Min : 0; }
  bool aboveTolerance() const { return spread() > Tolerance; }
};

/// A series of measurements over one binary (used for --compare).
struct Series {
  std::string Name = "base";
  std::string Binary;
  std::vector<Measurement> Ms; ///< sorted by Variant
  /// --compare-relink: the template that wrote each variant ("" = none).
  std::string Relink;
};

/// Where a result came from (docs/formats/sweep-result.md): enough to tell
/// two reports apart and to run the sweep again. Written by layout-sweep,
/// kept as it is by layout-sweep-report (a re-rendered report is still that
/// sweep's). Empty (Tool == "") in results written before it existed.
struct Provenance {
  std::string Tool;        ///< "layout-sweep"
  std::string ToolVersion; ///< keelVersion(), e.g. "0.1.0"
  /// When the sweep ran, ISO 8601 UTC ("2026-12-02T01:50:00Z"); from
  /// SOURCE_DATE_EPOCH when it is set (reproducible-builds.org), so tests
  /// and reproducible pipelines get the same bytes twice.
  std::string Date;
  std::vector<std::string> Command; ///< the sweep's argv, as given
  /// Each command that wrote variants, its placeholders ({pad}, {out}, ...)
  /// unexpanded, named by series: "base: clang ... -o {out}".
  std::vector<std::string> Relink;
  /// Of the swept binary as given ("" when it is not a file: a --relink
  /// sweep writes every variant, that one included).
  std::string BinarySHA256;
  std::string CompareSHA256; ///< of the --compare binary ("" = none)
  bool empty() const { return Tool.empty(); }
};

struct SweepResult {
  std::string Binary;        ///< the swept binary as given by the user
  std::vector<std::string> Args; ///< its arguments
  std::string Backend;       ///< "sim", "time" or "perf"
  std::string Axis;          ///< the perturbation axis (see above)
  std::string CacheGeometry; ///< sim: "I1=4096,2,64 D1=32768,8,64 LL=262144,8,64"
  std::string GeometryPreset;///< sim: "small", "skylake", ... ("" if custom)
  /// sim: the simulator that counted: "keel-sim" (one run for every variant
  /// that is an address map of another) or "cachegrind" (one run per variant).
  std::string SimTool;
  /// sim cost model weights by counter name ("Ir", "I1mr", ...); cost =
  /// sum(weight * counter).
  std::map<std::string, double> Weights;

  std::vector<Measurement> Ms;   ///< the swept binary ("base"), sorted by Variant
  std::optional<Series> Compare; ///< the --compare binary, same grid
  /// time backend: A/A measurements of byte-identical copies (Axis "aa").
  std::vector<Measurement> NoiseFloor;

  /// Engine findings that are not measurements, one line each, e.g.
  /// "executed instructions differ across variants (min 1200, max 1350): the
  /// program is not layout-independent".
  std::vector<std::string> Notes;
  /// True when the program's own code executes different instructions in
  /// different variants (or, without per-function counts, when the total
  /// differs beyond the tolerance): not layout-independent.
  bool InstructionsDiffer = false;
  /// The data axis: "" when every variant's functions stayed where the
  /// first variant's are; else where the pad moved code (also a note).
  std::string CodeMoved;
  /// One per series whose executed instructions differ across variants.
  std::vector<InstructionCheck> InstructionChecks;
  /// --relink: the template that wrote each variant ("" = none).
  std::string Relink;
  /// Who wrote this result, when, from which command and binary.
  Provenance Prov;
};

/// The date of a provenance record: SOURCE_DATE_EPOCH (whole seconds since
/// 1970, UTC) when set, else now; ISO 8601 UTC. An error when
/// SOURCE_DATE_EPOCH is set but is not a number of seconds.
llvm::Expected<std::string> provenanceDate();

/// SHA-256 of a file's bytes, lower-case hex (keel::readInputFile).
llvm::Expected<std::string> fileSHA256(llvm::StringRef Path);

// JSON forms (used by the journal, --json, and --baseline).
llvm::json::Value toJSON(const Variant &V);
llvm::json::Value toJSON(const Measurement &M);
llvm::json::Value toJSON(const SweepResult &R);
bool fromJSON(const llvm::json::Value &E, Variant &V, llvm::json::Path P);
bool fromJSON(const llvm::json::Value &E, Measurement &M, llvm::json::Path P);
bool fromJSON(const llvm::json::Value &E, SweepResult &R, llvm::json::Path P);
/// The "provenance" object; \p Backend is written beside it so the record
/// reads on its own.
llvm::json::Value toJSON(const Provenance &Pv, llvm::StringRef Backend);
bool fromJSON(const llvm::json::Value &E, Provenance &Pv, llvm::json::Path P);

} // namespace sweep
} // namespace keel

#endif
