//===- PlanIndex.h - a plan file indexed by symbol name ---------*- C++ -*-===//
//
// The pass looks every defined function and global of a module up in the
// plan. The plan is read and indexed once per process and path, then shared
// (read-only) by every module and thread: clang compiles one module, but
// ld.lld runs one ThinLTO back end per thread in the same process.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_LAYOUTOPT_PLANINDEX_H
#define KEEL_LAYOUTOPT_PLANINDEX_H

#include "keel/Plan/Plan.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>

namespace keel {
namespace layoutopt {

struct PlanIndex {
  Plan ThePlan;
  /// Symbol name -> indices into ThePlan.Functions / Globals / FalseSharing
  /// (several entries share a name when locals of different files do).
  llvm::StringMap<llvm::SmallVector<unsigned, 1>> Functions, Globals,
      FalseSharing;
  /// The first hot function in plan order: the start of the hot text region.
  std::optional<unsigned> TextRegionHead;
  /// Per DataKind, the first hot global in plan order.
  std::optional<unsigned> DataRegionHead[3];
};

/// Read and index the plan at \p Path, once per process; later calls (from
/// any thread) return the same index or the same error.
llvm::Expected<std::shared_ptr<const PlanIndex>> loadPlan(llvm::StringRef Path);

/// Index an already parsed plan (for tests and loadPlan).
std::shared_ptr<const PlanIndex> indexPlan(Plan P);

/// The name a plan uses for an IR symbol: ThinLTO renames promoted locals
/// "foo.llvm.<hash>"; the plan (made from the final binary of a non-LTO
/// build, or from this one) may use either form, so we match on "foo".
llvm::StringRef planName(llvm::StringRef IRName);

/// True if the plan's `file` field \p PlanFile names \p SourceFile: equal
/// after dropping "./", or one is a suffix of the other at a '/' boundary
/// ("util.c" matches "src/util.c" and "/abs/src/util.c").
bool fileMatches(llvm::StringRef PlanFile, llvm::StringRef SourceFile);

} // namespace layoutopt
} // namespace keel

#endif
