//===- LayoutOpt.cpp - apply a Keel plan to a module ----------------------===//
//
// One Applier per module: look up each definition, apply its entry, then
// put the hot symbols in plan order, then summarise. Every decision is a
// remark; nothing here is an error except an unreadable plan or bad
// options, which stop the compile with a message naming file:line (a plan
// that silently did nothing would be worse).
//
//===----------------------------------------------------------------------===//
#include "LayoutOpt.h"
#include "Options.h"
#include "PlanIndex.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DiagnosticHandler.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <mutex>
#include <tuple>

using namespace llvm;

namespace keel {
namespace layoutopt {
namespace {

// How many missing names the per-module missed remark spells out.
constexpr unsigned MaxMissingNamesShown = 8;

struct Counts {
  unsigned HotFunctions = 0, ColdFunctions = 0, HotGlobals = 0;
  unsigned FalseSharingAligned = 0, FalseSharingPadded = 0, NotApplied = 0;
  unsigned Missing = 0, Entries = 0;
};

const char *phaseName(ThinOrFullLTOPhase P) {
  switch (P) {
  case ThinOrFullLTOPhase::None:
    return "";
  case ThinOrFullLTOPhase::ThinLTOPreLink:
    return " (ThinLTO pre-link)";
  case ThinOrFullLTOPhase::ThinLTOPostLink:
    return " (ThinLTO back end)";
  case ThinOrFullLTOPhase::FullLTOPreLink:
    return " (LTO pre-link)";
  case ThinOrFullLTOPhase::FullLTOPostLink:
    return " (LTO back end)";
  }
  return "";
}

bool isPIC(const Module &M) {
  return M.getPICLevel() != PICLevel::NotPIC ||
         M.getPIELevel() != PIELevel::Default;
}

// The output section LLVM's ELF lowering picks for a hot global, for
// messages only (mergeable strings get .rodata.str*.hot. etc.).
StringRef hotSectionFor(const GlobalVariable &GV) {
  const Constant *Init = GV.getInitializer();
  if (GV.isConstant())
    return Init->needsRelocation() && isPIC(*GV.getParent())
               ? ".data.rel.ro.hot"
               : ".rodata.hot";
  if (Init->isNullValue() || isa<UndefValue>(Init))
    return ".bss.hot";
  return ".data.hot";
}

class Applier {
public:
  Applier(Module &M, const PlanIndex &PI, const Settings &S)
      : M(M), PI(PI), S(S),
        FunctionSeen(PI.ThePlan.Functions.size()),
        GlobalSeen(PI.ThePlan.Globals.size()),
        FalseSharingSeen(PI.ThePlan.FalseSharing.size()) {
    LLVMContext &Ctx = M.getContext();
    RemarksOn = Ctx.getLLVMRemarkStreamer() ||
                Ctx.getDiagHandlerPtr()->isAnyRemarkEnabled(PassName);
  }

  bool run();
  const Counts &counts() const { return C; }

private:
  template <typename EntryT>
  std::optional<unsigned>
  lookup(const StringMap<SmallVector<unsigned, 1>> &Map,
         const std::vector<EntryT> &Entries, const GlobalObject &GO) const;
  bool fileOf(const GlobalObject &GO, StringRef PlanFile) const;

  void applyFunction(Function &F, unsigned Idx);
  GlobalVariable *applyFalseSharing(GlobalVariable *GV, unsigned Idx);
  void applyHotGlobal(GlobalVariable &GV, unsigned Idx);
  GlobalVariable *padToLines(GlobalVariable *GV, uint64_t Line);
  void putHotSymbolsInPlanOrder();
  void reportMissing();

  // Remarks: functions carry their own location; a global's remark is
  // attached (without a location) to a function that uses it, or else to
  // the first function defined in the module.
  const Function *hostFor(const GlobalValue &GV) const;
  template <typename RemarkT, typename BuildT>
  void remark(const GlobalObject &GO, StringRef Name, BuildT Build);
  void notApplied(const GlobalObject &GO, StringRef What, StringRef Why);

  Module &M;
  const PlanIndex &PI;
  const Settings &S;
  BitVector FunctionSeen, GlobalSeen, FalseSharingSeen;
  // (plan order, plan index, symbol) of hot symbols, sorted at the end.
  std::vector<std::tuple<uint64_t, unsigned, Function *>> HotFunctions;
  std::vector<std::tuple<uint64_t, unsigned, GlobalVariable *>> HotGlobals;
  Counts C;
  bool RemarksOn = false;
  bool Changed = false;
};

bool Applier::fileOf(const GlobalObject &GO, StringRef PlanFile) const {
  if (fileMatches(PlanFile, M.getSourceFileName()))
    return true;
  // A full-LTO module is named "ld-temp.o"; with debug info a function
  // still knows its translation unit.
  if (const auto *F = dyn_cast<Function>(&GO))
    if (const DISubprogram *SP = F->getSubprogram())
      if (const DICompileUnit *CU = SP->getUnit())
        return fileMatches(PlanFile, CU->getFilename());
  return false;
}

template <typename EntryT>
std::optional<unsigned>
Applier::lookup(const StringMap<SmallVector<unsigned, 1>> &Map,
                const std::vector<EntryT> &Entries,
                const GlobalObject &GO) const {
  auto It = Map.find(planName(GO.getName()));
  if (It == Map.end())
    return std::nullopt;
  // `file` only disambiguates locals (including ThinLTO-promoted ones);
  // an external name is unique in the program.
  bool WasLocal = GO.hasLocalLinkage() || GO.getName().contains(".llvm.");
  for (unsigned I : It->second) {
    const EntryT &E = Entries[I];
    if (E.File.empty() || !WasLocal || fileOf(GO, E.File))
      return I;
  }
  // A full-LTO module ("ld-temp.o") without debug info cannot tell which
  // file a local came from; the IR linker has already renamed clashing
  // locals ("helper.1"), so a name the plan uses once is unambiguous.
  if (M.getSourceFileName() == "ld-temp.o" && It->second.size() == 1)
    return It->second.front();
  return std::nullopt;
}

const Function *Applier::hostFor(const GlobalValue &GV) const {
  for (const User *U : GV.users())
    if (const auto *I = dyn_cast<Instruction>(U))
      return I->getFunction();
  for (const Function &F : M)
    if (!F.isDeclaration())
      return &F;
  return nullptr;
}

template <typename RemarkT, typename BuildT>
void Applier::remark(const GlobalObject &GO, StringRef Name, BuildT Build) {
  if (!RemarksOn)
    return;
  if (const auto *F = dyn_cast<Function>(&GO)) {
    RemarkT R(PassName, Name, F);
    Build(R);
    M.getContext().diagnose(R);
    return;
  }
  const Function *Host = hostFor(cast<GlobalValue>(GO));
  if (!Host)
    return; // a module without functions has nowhere to hang a remark
  RemarkT R(PassName, Name, DiagnosticLocation(), &Host->getEntryBlock());
  Build(R);
  M.getContext().diagnose(R);
}

void Applier::notApplied(const GlobalObject &GO, StringRef What,
                         StringRef Why) {
  ++C.NotApplied;
  remark<OptimizationRemarkMissed>(GO, "NotApplied", [&](auto &R) {
    R << (isa<Function>(GO) ? "function '" : "global '")
      << ore::NV("Symbol", GO.getName()) << "': " << What << " not applied: "
      << Why;
  });
}

void Applier::applyFunction(Function &F, unsigned Idx) {
  const PlanFunction &E = PI.ThePlan.Functions[Idx];
  if (E.Class == Temperature::Warm)
    return; // named by the plan, but stays in .text
  if (F.hasSection()) {
    notApplied(F, E.Class == Temperature::Hot ? "hot placement"
                                              : "cold placement",
               "it has an explicit section");
    return;
  }
  if (E.Class == Temperature::Cold) {
    Changed |= F.setSectionPrefix("unlikely");
    ++C.ColdFunctions;
    remark<OptimizationRemark>(F, "ColdFunction", [&](auto &R) {
      R << "cold function '" << ore::NV("Function", F.getName())
        << "' placed in .text.unlikely";
    });
    return;
  }

  Changed |= F.setSectionPrefix("hot");
  uint64_t Want =
      E.Align ? E.Align : S.FunctionAlign.value_or(PI.ThePlan.FunctionAlign);
  // The plan's linker script aligns (and pads) the region itself; aligning
  // its first function here too would swallow the sweep's code pad.
  bool Head = PI.TextRegionHead == Idx &&
              (!PI.ThePlan.LinkerAlignsRegions || S.HotTextAlign);
  if (Head)
    Want = std::max(Want, S.HotTextAlign.value_or(PI.ThePlan.HotTextAlign));
  if (F.getAlign().valueOrOne().value() < Want) {
    F.setAlignment(Align(Want));
    Changed = true;
  }
  uint64_t Got = F.getAlign().valueOrOne().value();
  HotFunctions.emplace_back(E.Order, Idx, &F);
  ++C.HotFunctions;
  remark<OptimizationRemark>(F, "HotFunction", [&](auto &R) {
    R << "hot function '" << ore::NV("Function", F.getName())
      << "' placed in .text.hot, aligned to " << ore::NV("Align", Got)
      << " bytes, plan order " << ore::NV("Order", E.Order);
    if (Head)
      R << " (start of the hot text region)";
  });
}

GlobalVariable *Applier::padToLines(GlobalVariable *GV, uint64_t Line) {
  const DataLayout &DL = M.getDataLayout();
  Type *Ty = GV->getValueType();
  uint64_t Size = DL.getTypeAllocSize(Ty);
  uint64_t Padded = alignTo(std::max<uint64_t>(Size, 1), Line);
  if (Padded == Size)
    return GV;
  // Wrap the value as { T, [pad x i8] }: the address of the wrapper is the
  // address of the value, so with opaque pointers every use can simply be
  // redirected to the new global.
  LLVMContext &Ctx = M.getContext();
  auto *PadTy = ArrayType::get(Type::getInt8Ty(Ctx), Padded - Size);
  auto *WrapTy = StructType::get(Ctx, {Ty, PadTy});
  Constant *Init = ConstantStruct::get(
      WrapTy, {GV->getInitializer(), Constant::getNullValue(PadTy)});
  auto *New = new GlobalVariable(M, WrapTy, GV->isConstant(),
                                 GV->getLinkage(), Init, "", GV,
                                 GV->getThreadLocalMode(),
                                 GV->getAddressSpace(),
                                 GV->isExternallyInitialized());
  New->copyAttributesFrom(GV);
  New->copyMetadata(GV, 0);
  New->takeName(GV);
  GV->replaceAllUsesWith(New);
  GV->eraseFromParent();
  return New;
}

GlobalVariable *Applier::applyFalseSharing(GlobalVariable *GV, unsigned Idx) {
  const FalseSharingCandidate &E = PI.ThePlan.FalseSharing[Idx];
  if (GV->isConstant()) {
    notApplied(*GV, "false-sharing padding", "it is read-only");
    return GV;
  }
  if (GV->isThreadLocal()) {
    notApplied(*GV, "false-sharing padding",
               "it is thread-local (no other thread writes it)");
    return GV;
  }
  if (GV->hasCommonLinkage()) {
    notApplied(*GV, "false-sharing padding",
               "it is a common symbol (compile with -fno-common)");
    return GV;
  }
  const DataLayout &DL = M.getDataLayout();
  uint64_t OldSize = DL.getTypeAllocSize(GV->getValueType());
  // Pad only a definition that is the one the linker keeps: a weak or
  // linkonce copy may be replaced by an unpadded one from another file.
  bool CanPad = GV->hasExternalLinkage() || GV->hasLocalLinkage();
  if (CanPad)
    GV = padToLines(GV, E.Align);
  if (DL.getPreferredAlign(GV).value() < E.Align)
    GV->setAlignment(Align(E.Align));
  uint64_t NewSize = DL.getTypeAllocSize(GV->getValueType());
  Changed = true;
  ++C.FalseSharingAligned;
  if (NewSize != OldSize)
    ++C.FalseSharingPadded;
  remark<OptimizationRemark>(*GV, "FalseSharing", [&](auto &R) {
    R << "global '" << ore::NV("Global", GV->getName()) << "' aligned to "
      << ore::NV("Align", E.Align) << " bytes";
    if (NewSize != OldSize)
      R << " and padded from " << ore::NV("OldSize", OldSize) << " to "
        << ore::NV("NewSize", NewSize) << " bytes";
    R << " so no other object shares its cache lines";
    if (!CanPad)
      R << " (not padded: the linker may keep another file's copy)";
    if (!E.Reason.empty())
      R << "; reason: " << ore::NV("Reason", E.Reason);
  });
  return GV;
}

void Applier::applyHotGlobal(GlobalVariable &GV, unsigned Idx) {
  const PlanGlobal &E = PI.ThePlan.Globals[Idx];
  if (GV.isThreadLocal())
    return notApplied(GV, "hot placement", "it is thread-local");
  if (GV.hasSection())
    return notApplied(GV, "hot placement", "it has an explicit section");
  if (GV.hasCommonLinkage())
    return notApplied(GV, "hot placement",
                      "it is a common symbol (compile with -fno-common)");
  Changed |= GV.setSectionPrefix("hot");
  bool Head = PI.DataRegionHead[unsigned(E.Kind)] == Idx &&
              (!PI.ThePlan.LinkerAlignsRegions || S.HotDataAlign);
  if (Head) {
    uint64_t Want = S.HotDataAlign.value_or(PI.ThePlan.HotDataAlign);
    if (M.getDataLayout().getPreferredAlign(&GV).value() < Want) {
      GV.setAlignment(Align(Want));
      Changed = true;
    }
  }
  HotGlobals.emplace_back(E.Order, Idx, &GV);
  ++C.HotGlobals;
  remark<OptimizationRemark>(GV, "HotGlobal", [&](auto &R) {
    R << "hot global '" << ore::NV("Global", GV.getName()) << "' placed in "
      << ore::NV("Section", hotSectionFor(GV)) << ", plan order "
      << ore::NV("Order", E.Order);
    if (Head)
      R << ", aligned to "
        << ore::NV("Align", M.getDataLayout().getPreferredAlign(&GV).value())
        << " bytes (start of the hot " << dataKindName(E.Kind) << " region)";
  });
}

void Applier::putHotSymbolsInPlanOrder() {
  // Moving a symbol to the end of its list changes only the order in which
  // the assembler creates sections, i.e. the order in the object file.
  llvm::stable_sort(HotFunctions);
  for (auto &[Order, Idx, F] : HotFunctions) {
    F->removeFromParent();
    M.getFunctionList().push_back(F);
  }
  llvm::stable_sort(HotGlobals);
  for (auto &[Order, Idx, GV] : HotGlobals) {
    M.removeGlobalVariable(GV);
    M.insertGlobalVariable(GV);
  }
}

void Applier::reportMissing() {
  std::vector<StringRef> Names;
  auto Collect = [&](const BitVector &Seen, auto &Entries) {
    for (unsigned I = 0, E = Entries.size(); I != E; ++I)
      if (!Seen[I])
        Names.push_back(Entries[I].Name);
  };
  Collect(FunctionSeen, PI.ThePlan.Functions);
  Collect(GlobalSeen, PI.ThePlan.Globals);
  Collect(FalseSharingSeen, PI.ThePlan.FalseSharing);
  C.Missing = Names.size();
  if (Names.empty() || !RemarksOn)
    return;
  const Function *Host = nullptr;
  for (const Function &F : M)
    if (!F.isDeclaration()) {
      Host = &F;
      break;
    }
  if (!Host)
    return;
  OptimizationRemarkMissed R(PassName, "PlanEntriesNotInModule",
                             DiagnosticLocation(), &Host->getEntryBlock());
  R << ore::NV("Missing", unsigned(Names.size())) << " of "
    << ore::NV("Entries", C.Entries)
    << " plan entries are not defined in this module (expected when the "
       "program has several files, or a function was inlined everywhere): ";
  for (unsigned I = 0; I < Names.size() && I < MaxMissingNamesShown; ++I)
    R << (I ? ", " : "") << Names[I];
  if (Names.size() > MaxMissingNamesShown)
    R << " and " << ore::NV("More", unsigned(Names.size() - MaxMissingNamesShown))
      << " more";
  M.getContext().diagnose(R);
}

bool Applier::run() {
  const Plan &P = PI.ThePlan;
  C.Entries = P.Functions.size() + P.Globals.size() + P.FalseSharing.size();

  for (Function &F : M) {
    // available_externally bodies are ThinLTO imports: another module
    // owns (and lays out) the definition.
    if (F.isDeclaration() || F.hasAvailableExternallyLinkage())
      continue;
    if (auto Idx = lookup(PI.Functions, P.Functions, F)) {
      FunctionSeen.set(*Idx);
      applyFunction(F, *Idx);
    }
  }

  // Collect first: padding replaces globals while we walk.
  std::vector<GlobalVariable *> Globals;
  for (GlobalVariable &GV : M.globals())
    if (!GV.isDeclaration() && !GV.hasAvailableExternallyLinkage() &&
        !GV.getName().starts_with("llvm."))
      Globals.push_back(&GV);
  for (GlobalVariable *GV : Globals) {
    if (auto Idx = lookup(PI.FalseSharing, P.FalseSharing, *GV)) {
      FalseSharingSeen.set(*Idx);
      GV = applyFalseSharing(GV, *Idx);
    }
    if (auto Idx = lookup(PI.Globals, P.Globals, *GV)) {
      GlobalSeen.set(*Idx);
      applyHotGlobal(*GV, *Idx);
    }
  }

  putHotSymbolsInPlanOrder();
  reportMissing();
  return Changed;
}

void printSummary(const Module &M, ThinOrFullLTOPhase Phase,
                  StringRef PlanPath, const Counts *C) {
  static std::mutex Lock; // ld.lld runs ThinLTO back ends in threads
  std::string Line;
  raw_string_ostream OS(Line);
  OS << "layout-opt: " << M.getSourceFileName() << phaseName(Phase) << ": ";
  if (!C)
    OS << "no plan (-layout-plan not given)";
  else
    OS << formatv("plan {0}: {1} hot functions, {2} cold functions, {3} hot "
                  "globals, {4} false-sharing aligned ({5} padded), {6} not "
                  "applied; {7} of {8} plan entries not in this module",
                  PlanPath, C->HotFunctions, C->ColdFunctions, C->HotGlobals,
                  C->FalseSharingAligned, C->FalseSharingPadded, C->NotApplied,
                  C->Missing, C->Entries);
  OS << '\n';
  std::lock_guard<std::mutex> Guard(Lock);
  errs() << Line;
}

void reportFatal(Module &M, const Twine &Msg) {
  std::string Text = ("layout-opt: " + Msg).str();
  M.getContext().diagnose(DiagnosticInfoGeneric(Text, DS_Error));
}

} // namespace

PreservedAnalyses LayoutOptPass::run(Module &M, ModuleAnalysisManager &) {
  Expected<Settings> S = processSettings();
  if (!S) {
    reportFatal(M, toString(S.takeError()));
    return PreservedAnalyses::all();
  }
  if (S->PlanPath.empty()) {
    if (S->Summary)
      printSummary(M, Phase, "", nullptr);
    return PreservedAnalyses::all();
  }
  Expected<std::shared_ptr<const PlanIndex>> PI = loadPlan(S->PlanPath);
  if (!PI) {
    reportFatal(M, toString(PI.takeError()));
    return PreservedAnalyses::all();
  }
  Applier A(M, **PI, *S);
  bool Changed = A.run();
  if (S->Summary)
    printSummary(M, Phase, S->PlanPath, &A.counts());
  return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

} // namespace layoutopt
} // namespace keel
