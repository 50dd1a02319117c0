//===- keel/Sweep/SimBackend.h - cachegrind as a deterministic backend -*- C++ -*-===//
//
// The `sim` backend counts cachegrind's events for every variant -- with
// keel-sim (docs/keel-sim.md), or one cachegrind run per variant
// (--backend=cachegrind) -- with an explicit cache geometry (never the
// host's: VMs report bogus caches) and branch simulation, and turns the
// counters into one cost:
//
//   cost = sum over events E of Weight[E] * count[E]
//
// Default weights (a rough cycles model of an out-of-order core; every
// weight is configurable with --weights=Ir=1,I1mr=10,...):
//   Ir 1     every executed instruction costs about a cycle
//   I1mr 10  L1 I-miss served by L2/LL
//   D1mr 10  L1 D read miss served by L2/LL (write misses are buffered: 0)
//   ILmr 100 LL miss on an instruction fetch (memory latency)
//   DLmr 100 LL miss on a data read
//   Bcm 15   conditional branch mispredict (pipeline refill)
//   Bim 15   indirect branch mispredict
// Events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm Bi Bim (cachegrind's).
//
// --cost=NAME picks a preset weight table (costPreset): "cachegrind" is the
// table above; "skylake" and "zen4" weigh the events of keel-sim's front-end
// model too (docs/frontend-model.md): every keel-sim run of the sweep (the
// shared runs and the own runs) gets --frontend=NAME; they need keel-sim
// (not --backend=cachegrind). --weights then overrides single weights of the
// preset.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_SWEEP_SIMBACKEND_H
#define KEEL_SWEEP_SIMBACKEND_H

#include "keel/SweepReport/Stats.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <string>
#include <vector>

namespace keel {
namespace sweep {

/// Cachegrind's event names, in its output order.
llvm::ArrayRef<llvm::StringRef> cachegrindEvents();

/// keel-sim's front-end model's events (--frontend), after cachegrind's in
/// its output.
llvm::ArrayRef<llvm::StringRef> frontendEvents();

using CostWeights = std::map<std::string, double>;
CostWeights defaultWeights();

/// A --cost preset: its weights, the events that are its branch mispredicts,
/// and the keel-sim front-end model it needs ("" = cachegrind's events only).
struct CostPreset {
  std::string Name;
  CostWeights Weights;
  std::vector<std::string> BranchEvents;
  std::string Frontend;
};
llvm::ArrayRef<llvm::StringRef> costPresetNames();
/// Unknown names are an error listing the known ones.
llvm::Expected<CostPreset> costPreset(llvm::StringRef Name);
/// {"cost":NAME,"weights":{...},"branch_events":[...]} on one line
/// (layout-sweep --print-cost).
std::string costPresetJSON(const CostPreset &P, const CostWeights &W);

/// Parse "Ir=1,I1mr=12" on top of \p Base (unknown event names -- neither
/// cachegrind's nor the front-end model's -- and negative or non-numeric
/// weights are errors).
llvm::Expected<CostWeights> parseWeights(llvm::StringRef Text,
                                         CostWeights Base = defaultWeights());

double costOf(const std::map<std::string, double> &Counters,
              const CostWeights &W);

/// Geometry presets: "small" (I1 4 KB 2-way, for sensitivity: a hot loop
/// must fit it), "small8k" (I1 8 KB 2-way), "skylake" (32K 8-way L1I/L1D,
/// LL 8 MB 16-way), "zen3" (32K 8-way L1I/L1D, LL 32 MB 16-way),
/// "neoverse-n1" (64K 4-way L1I/L1D, LL 1 MB 8-way = its L2).
llvm::Expected<CacheGeometry> geometryPreset(llvm::StringRef Name);
llvm::ArrayRef<llvm::StringRef> geometryPresetNames();

/// Parse "size,assoc,line" as cachegrind does, and check what cachegrind
/// checks (line and set count powers of two) so bad input fails before a
/// single variant runs.
llvm::Expected<CacheLevel> parseCacheLevel(llvm::StringRef Option,
                                           llvm::StringRef Spec);

/// valgrind's arguments (after the valgrind path) for one variant.
std::vector<std::string> cachegrindArgs(const CacheGeometry &G,
                                        llvm::StringRef OutFile,
                                        llvm::StringRef LogFile);

/// Read the totals ("events:" and "summary:" lines) of a cachegrind output
/// file. Errors name file:line.
llvm::Expected<std::map<std::string, double>>
parseCachegrindOut(llvm::StringRef Path);
llvm::Expected<std::map<std::string, double>>
parseCachegrindText(llvm::StringRef Text, llvm::StringRef Name);

/// Executed instructions (Ir) per function name (fn= lines, any "@version"
/// dropped; one function name in several files is summed), in one pass
/// over the per-line counts. Empty when there is no Ir event.
std::map<std::string, uint64_t> cachegrindFunctionIr(llvm::StringRef Text);

/// keel-sim (docs/keel-sim.md): the directory valgrind is started with as
/// VALGRIND_LIB (it holds keel-sim-amd64-linux beside links to valgrind's own
/// files): $KEEL_SIM_LIB, else \p ToolLibDir, the tool's own lib/keel-sim
/// (keel::findKeelLibFile: the library does not guess which program it is
/// linked into). "" when there is none (keel-sim was not built).
std::string findKeelSimLib(llvm::StringRef ToolLibDir);

/// valgrind's arguments for one keel-sim run: one geometry, per-function Ir,
/// the front-end model \p Frontend ("" = none: cachegrind's 13 events only;
/// docs/frontend-model.md), the variants of \p MapFile ("" = the base
/// alone). Its tool directory goes into VALGRIND_LIB.
std::vector<std::string> keelSimArgs(const CacheGeometry &G,
                                     llvm::StringRef Frontend,
                                     llvm::StringRef OutFile,
                                     llvm::StringRef LogFile,
                                     llvm::StringRef MapFile = "");
/// The same for several geometries in one run (`result V G` lines, G in
/// the order given).
std::vector<std::string> keelSimArgs(llvm::ArrayRef<CacheGeometry> Gs,
                                     llvm::StringRef Frontend,
                                     llvm::StringRef OutFile,
                                     llvm::StringRef LogFile,
                                     llvm::StringRef MapFile = "");

/// How many I1 geometries one keel-sim run (and so one sweep) simulates
/// at most (keel-sim's KS_MAX_GEOMS).
constexpr size_t MaxSweepGeometries = 16;

/// What one keel-sim run wrote (geometry 0 of each variant).
struct KeelSimOutput {
  struct Variant {
    std::string Name;
    uint64_t Unmapped = 0; ///< accesses no range of its map covered
    /// By the names of the "events:" line: cachegrind's, then (--frontend)
    /// the front-end model's.
    std::map<std::string, double> Counters;
    /// Every geometry's counters, by its number ([0] = Counters).
    std::vector<std::map<std::string, double>> ByGeometry;
  };
  std::vector<Variant> Variants; ///< [0] = the base, then the map's order
  uint64_t Forks = 0, Execs = 0; ///< of the simulated process
  /// Executed instructions per function ("@version" dropped, summed).
  std::map<std::string, uint64_t> FunctionIr;
};

/// Parse keel-sim's output file text. Errors name file:line.
llvm::Expected<KeelSimOutput> parseKeelSimText(llvm::StringRef Text,
                                               llvm::StringRef Name);

} // namespace sweep
} // namespace keel

#endif
