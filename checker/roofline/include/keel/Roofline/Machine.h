//===- Machine.h - measure this machine's roofline ceilings -----*- C++ -*-===//
//
// In the spirit of the Empirical Roofline Toolkit and likwid-bench: kernels
// with known bytes and flops per iteration, run over a working-set sweep
// (read and triad) and best-of-N timed; peak FLOP/s from independent FMA
// chains (scalar and AVX2), on one core and on all cores.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_ROOFLINE_MACHINE_H
#define KEEL_ROOFLINE_MACHINE_H

#include "keel/Roofline/Model.h"
#include "keel/Support/CacheGeometry.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace keel {
namespace roofline {

/// This machine's data caches, from sysfs (size 0: unknown). The ways
/// default to 8, 16, 16 where sysfs does not say; every level has the one
/// line size Linux reports last (64 if none).
struct MachineCaches {
  CacheLevel L1d{0, 8, 64}, L2{0, 16, 64}, L3{0, 16, 64};
};

/// Caches of CPU 0 as Linux reports them (/sys/devices/system/cpu/cpu0/cache).
MachineCaches readMachineCaches();

struct MachineOptions {
  bool Quick = false;      ///< a short run for tests: few sizes, small DRAM set
  unsigned Repeats = 5;    ///< best-of-N
  unsigned Threads = 0;    ///< "all cores": 0 = hardware_concurrency
  uint64_t DramBytes = 0;  ///< working set for the DRAM points; 0 = 4 x L3
};

struct PeakResult {
  std::string Kind; ///< "scalar_fma" or "avx2_fma"
  unsigned Threads = 1;
  double GFlops = 0;
};

struct SweepPoint {
  std::string Kernel; ///< "read" (8 B, 1 flop per element) or "triad"
  uint64_t WorkingSet = 0; ///< bytes per thread
  unsigned Threads = 1;
  double GBs = 0;          ///< best of N
  std::string Level;       ///< L1, L2, L3, DRAM or "" between levels
};

struct LevelCeiling {
  std::string Level;
  double ReadGBs = 0, TriadGBs = 0; ///< one core, best over the level's points
  double AllCoresReadGBs = 0;
  uint64_t WorkingSet = 0; ///< the point used for the all-cores run
};

struct MachineReport {
  std::string CPUName;
  unsigned Cores = 1;
  bool HasAVX2FMA = false;
  MachineCaches Caches;
  std::vector<PeakResult> Peaks;
  std::vector<SweepPoint> Sweep;
  std::vector<LevelCeiling> Levels;
  /// STREAM-style triad (three arrays, each >= 4 x L3 unless --quick), one
  /// core, 24 B per element: the cross-check for the DRAM ceiling.
  double StreamTriadGBs = 0;
  uint64_t StreamArrayBytes = 0;
  Ceilings OneCore, AllCores;
  /// Whether one core overlaps a memory stream with L2 re-reads (see
  /// LevelOverlap in Model.h); `model --overlap=auto` uses its mode.
  std::optional<LevelOverlap> MeasuredOverlap;
};

llvm::Expected<MachineReport> measureMachine(const MachineOptions &Opts);

llvm::json::Object toJSON(const MachineReport &R);
void printText(llvm::raw_ostream &OS, const MachineReport &R);

} // namespace roofline
} // namespace keel

#endif
