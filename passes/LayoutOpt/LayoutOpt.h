//===- LayoutOpt.h - apply a Keel plan to a module --------------*- C++ -*-===//
//
// The layout-opt pass reads the plan named by -layout-plan (or
// KEEL_LAYOUT_OPTS) and, for the symbols the plan names and this module
// defines:
//  - hot functions: section prefix "hot" (.text.hot.<name>) and an alignment
//    (the entry's align, else -layout-function-align, else the plan's
//    function-align); the first hot function in plan order also gets the
//    text-region alignment (hot-text-align);
//  - cold functions: section prefix "unlikely" (.text.unlikely.<name>);
//  - hot globals: section prefix "hot", which LLVM's ELF lowering turns into
//    .data.hot.<name>, .bss.hot.<name>, .rodata.hot.<name> or
//    .data.rel.ro.hot.<name> by the global's real kind; the first hot
//    global of each kind in plan order gets the data-region alignment;
//  - false-sharing candidates: aligned to their cache line and padded to a
//    whole number of lines, so no other object can share one of its lines;
//  - hot functions and hot globals are moved, within the module, into plan
//    order, so one file's hot symbols come out of the assembler in that
//    order with no linker help (across files, use the planner's order file).
// Symbols the plan does not name are left untouched. Each decision is an
// optimisation remark (pass name "layout-opt"); plan entries this module
// does not define are listed in one missed remark, never a warning per
// entry, because in a multi-file build every file misses most of them.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_LAYOUTOPT_LAYOUTOPT_H
#define KEEL_LAYOUTOPT_LAYOUTOPT_H

#include "llvm/IR/PassManager.h"
#include "llvm/Pass.h"

namespace keel {
namespace layoutopt {

/// The pass name used in remarks and in -passes=.
constexpr const char *PassName = "layout-opt";

class LayoutOptPass : public llvm::PassInfoMixin<LayoutOptPass> {
public:
  explicit LayoutOptPass(
      llvm::ThinOrFullLTOPhase Phase = llvm::ThinOrFullLTOPhase::None)
      : Phase(Phase) {}
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  /// Layout decisions are not optimisations that opt-bisect or optnone may
  /// drop: an -O0 file of a planned program must be laid out the same way.
  static bool isRequired() { return true; }

private:
  llvm::ThinOrFullLTOPhase Phase;
};

} // namespace layoutopt
} // namespace keel

#endif
