//===- Run.h - place a program on the roofline ------------------*- C++ -*-===//
//
// Counters first (perf_event), else a callgrind cache simulation:
//   L1 bytes      = sum over memory instructions of executions x operand
//                   width (guessed from the opcode), per read and per write
//   L2 bytes      = (D1mr + D1mw) x line size
//   beyond-LL     = (DLmr + DLmw) x line size (LL = this machine's L2 unless
//                   --LL says otherwise), charged at the DRAM ceiling
//   flops         = sum over instructions of Ir x flops(opcode) (FlopTable.h)
// Time comes from native runs (best of N). Roof per level = ceiling x
// intensity; the roof is the lowest of them and the peak; headroom = roof /
// achieved.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_ROOFLINE_RUN_H
#define KEEL_ROOFLINE_RUN_H

#include "keel/Roofline/Cachegrind.h"
#include "keel/Roofline/Model.h"
#include "keel/Support/Diagnostics.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace keel {
namespace roofline {

struct RunConfig {
  std::vector<std::string> Argv;
  std::string I1 = "32768,8,64", D1, LL; ///< valgrind geometries; "" = sysfs
  unsigned Repeats = 3;                  ///< native timing runs (best of)
  std::string Function;                  ///< count only this function's code
  std::optional<std::string> CallgrindOut; ///< use this output, run nothing
  std::optional<double> Seconds;         ///< skip native timing
  Ceilings Roofs;
};

struct LevelPlacement {
  std::string Level; ///< "L1", "L2", "memory"
  double Bytes = 0, Intensity = 0, RoofGFlops = 0, CeilingGBs = 0;
};

struct RunReport {
  std::string Source; ///< "callgrind" or "perf_event"
  std::string CounterNote;
  std::string D1, LL;
  uint64_t Instructions = 0;
  double Flops = 0;
  std::map<std::string, double> FlopsByOpcode;
  std::vector<LevelPlacement> Levels;
  double Seconds = 0, AchievedGFlops = 0, RoofGFlops = 0, Headroom = 0;
  std::string BoundBy;
  QualityReport Quality;
};

/// Compute the placement from parsed costs (no processes run): exposed so
/// tests can drive it with a checked-in callgrind output.
llvm::Expected<RunReport> placeFromCosts(const InstructionCosts &Costs,
                                         const RunConfig &Cfg,
                                         unsigned LineSize);

/// The whole `layout-roofline run`: counters or callgrind, native timing,
/// placement.
llvm::Expected<RunReport> runRoofline(const RunConfig &Cfg);

llvm::json::Object toJSON(const RunReport &R);
void printText(llvm::raw_ostream &OS, const RunReport &R);

} // namespace roofline
} // namespace keel

#endif
