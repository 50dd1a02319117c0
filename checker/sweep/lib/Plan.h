//===- Plan.h - the sweep before anything is built --------------*- C++ -*-===//
//
// The first phase of a sweep: its options checked, its variants listed,
// its work directory made (and removed at the end when it is private).
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_SWEEP_LIB_PLAN_H
#define KEEL_SWEEP_LIB_PLAN_H

#include "keel/Sweep/EngineOptions.h"
#include "keel/SweepReport/Result.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"

#include <string>
#include <vector>

namespace keel {
namespace sweep {

/// Removes the private work directory when the sweep ends.
struct WorkDirGuard {
  std::string Dir;
  bool Remove = false;
  ~WorkDirGuard() {
    if (Remove && !Dir.empty())
      llvm::sys::fs::remove_directories(Dir);
  }
};

/// Check what the user gave before any variant is built: the grid, each
/// axis' offsets (\p Offsets), --cost against the backend, the executor
/// (Slurm's options, a template's {cmd}), --exec-as and --resume.
llvm::Error checkOptions(const EngineOptions &O,
                         llvm::ArrayRef<int64_t> Offsets);

/// Every variant of \p Axis: the base series at each of \p Offsets, then
/// the --compare series' (a variant's index in this list numbers its
/// directory).
std::vector<Variant> gridVariants(const SweepTarget &T, AxisKind Axis,
                                  llvm::ArrayRef<int64_t> Offsets);

/// The work directory: O.WorkDir (--keep-dir), made absolute so relink
/// commands that change directory still find {out}, or a private one that
/// \p WD removes at the end.
llvm::Error makeWorkDir(const PlanOptions &O, WorkDirGuard &WD);

/// \p O measuring its geometry number \p G alone (0: Geometry), with that
/// geometry's journal.
EngineOptions forGeometry(const EngineOptions &O, size_t G);

} // namespace sweep
} // namespace keel

#endif
