//===- Plugin.cpp - register layout-opt with the new pass manager ---------===//
//
// Where the pass runs, and why there:
//  - OptimizerLast, every phase: after inlining and all IR optimisation, so
//    the pass sees the functions that will really be emitted. In a plain
//    compile this is the last IR pass before code generation. In ThinLTO
//    and full-LTO pre-link it marks the bitcode (section_prefix metadata and
//    alignment survive in bitcode), so `clang -flto=thin -fpass-plugin=...`
//    alone is enough; in the ThinLTO back end (ld.lld --load-pass-plugin) it
//    runs again, idempotently, on the promoted names ("foo.llvm.<hash>").
//  - FullLinkTimeOptimizationLast: the full-LTO back end does not run
//    OptimizerLast, so the merged module is handled here.
//  - A pipeline parsing callback, so `opt -passes=layout-opt` works.
//
//===----------------------------------------------------------------------===//
#include "LayoutOpt.h"

#include "llvm/IR/PassInstrumentation.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Plugins/PassPlugin.h"

using namespace llvm;
using namespace keel::layoutopt;

static void registerCallbacks(PassBuilder &PB) {
  // So -print-pipeline-passes, -print-after=layout-opt and friends know the
  // pass by its pipeline name rather than its C++ class name.
  if (PassInstrumentationCallbacks *PIC = PB.getPassInstrumentationCallbacks())
    PIC->addClassToPassName(LayoutOptPass::name(), PassName);
  PB.registerOptimizerLastEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel, ThinOrFullLTOPhase Phase) {
        MPM.addPass(LayoutOptPass(Phase));
      });
  PB.registerFullLinkTimeOptimizationLastEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel) {
        MPM.addPass(LayoutOptPass(ThinOrFullLTOPhase::FullLTOPostLink));
      });
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM,
         ArrayRef<PassBuilder::PipelineElement>) {
        if (Name != PassName)
          return false;
        MPM.addPass(LayoutOptPass());
        return true;
      });
}

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "LayoutOpt", "0.1", registerCallbacks};
}
