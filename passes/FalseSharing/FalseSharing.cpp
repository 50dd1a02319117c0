//===- FalseSharing.cpp - instrument memory accesses for false sharing ----===//
//
// KeelFalseSharing.so: before every load, store, atomicrmw and cmpxchg that
// may touch memory shared between threads, call
//   __keel_fs_access(ptr addr, i32 size, i32 kind, ptr site)
// (kind: 0 read, 1 write, 3 read and write: an atomic read-modify-write, or
// a load and a store of the same pointer close together in one block with
// nothing in between that writes memory, as in `*p += 1`: one call instead
// of two)
// in libkeelfs.so (passes/FalseSharing/runtime), which records per cache
// line which thread read and wrote which bytes. `site` points to a constant
// { file, function, line, column } describing the source location (from the
// debug location; build with -g for lines), so the report names source
// lines without symbolizing return addresses.
//
// Without sampling, in an executable (PIE or non-PIC code), the common case
// does not call: each source site gets a thread-local cache { line, slot,
// count } and an access of 1, 2, 4 or 8 bytes on the cached line whose
// bytes the thread's slot already records is counted inline (reads,
// writes, the site's counter); any other access calls
// __keel_fs_access_cached(addr, size, kind, site, cache), which records it
// and refills the cache. The result is the same report, exact counts
// included (test/false-sharing/fs-inline.test). -keel-fs-inline=0 turns
// this off.
//
// After each call of malloc, calloc, realloc, aligned_alloc, operator new
// and new[]: __keel_fs_alloc(ptr result, i64 bytes, ptr site), so heap
// objects are named by the line that allocated them.
//
// Skipped: accesses whose underlying object is a stack slot (alloca) or a
// thread-local global (never shared), accesses outside address space 0, and
// functions not matching -keel-fs-functions.
//
// Usage:
//   clang -O2 -g -fpass-plugin=KeelFalseSharing.so [-mllvm -keel-fs-sample=N]
//         [-mllvm -keel-fs-functions=REGEX] x.c -L lib -lkeelfs -Wl,-rpath,lib
//   opt -load-pass-plugin=KeelFalseSharing.so -passes=keel-fs x.ll
//
//===----------------------------------------------------------------------===//
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Plugins/PassPlugin.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <map>
#include <tuple>

using namespace llvm;

static cl::opt<unsigned>
    Sample("keel-fs-sample",
           cl::desc("record every Nth instrumented access of each thread "
                    "(1: all); counts in the report are scaled by N"),
           cl::init(1));
static cl::opt<std::string>
    Functions("keel-fs-functions",
              cl::desc("instrument only functions whose name matches this "
                       "regex (default: all)"),
              cl::value_desc("regex"));
static cl::opt<bool> Inline(
    "keel-fs-inline",
    cl::desc("count an access inline, without calling the runtime, when it "
             "repeats this thread's previous line and site on bytes already "
             "recorded (default on; off with -keel-fs-sample > 1)"),
    cl::init(true));
static cl::opt<bool> Summary("keel-fs-summary",
                             cl::desc("print how many accesses were "
                                      "instrumented in each module"));

namespace {

struct FalseSharingPass : PassInfoMixin<FalseSharingPass> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &);
  static bool isRequired() { return true; }
};

bool mayBeShared(Value *Ptr) {
  if (Ptr->getType()->getPointerAddressSpace() != 0)
    return false;
  const Value *Obj = getUnderlyingObject(Ptr, /*MaxLookup=*/0);
  if (isa<AllocaInst>(Obj))
    return false;
  if (auto *GV = dyn_cast<GlobalVariable>(Obj))
    if (GV->isThreadLocal() || GV->isConstant())
      return false;
  return true;
}

} // namespace

PreservedAnalyses FalseSharingPass::run(Module &M, ModuleAnalysisManager &) {
  // Already instrumented (e.g. an LTO back end after a pre-link run).
  if (M.getFunction("__keel_fs_module_init"))
    return PreservedAnalyses::all();
  std::optional<Regex> Filter;
  if (!Functions.empty()) {
    Filter.emplace(Functions);
    std::string Err;
    if (!Filter->isValid(Err)) {
      // A diagnostic, not report_fatal_error: the compiler reports it and
      // exits 1 like any other error, with no crash dump and no object file.
      M.getContext().diagnose(DiagnosticInfoGeneric(
          Twine("keel-fs: -keel-fs-functions: bad regex '") + Functions +
              "': " + Err,
          DS_Error));
      return PreservedAnalyses::all();
    }
  }
  LLVMContext &C = M.getContext();
  const DataLayout &DL = M.getDataLayout();
  Type *I32 = Type::getInt32Ty(C);
  PointerType *Ptr = PointerType::getUnqual(C);
  StructType *SiteTy = StructType::get(C, {Ptr, Ptr, I32, I32});
  FunctionCallee Access = M.getOrInsertFunction(
      "__keel_fs_access", Type::getVoidTy(C), Ptr, I32, I32, Ptr);
  std::map<std::tuple<std::string, std::string, unsigned, unsigned>,
           Constant *>
      Sites;
  std::map<std::string, Constant *> Strings;
  auto str = [&](StringRef S) -> Constant * {
    auto It = Strings.find(S.str());
    if (It != Strings.end())
      return It->second;
    auto *GV = new GlobalVariable(
        M, ArrayType::get(Type::getInt8Ty(C), S.size() + 1), true,
        GlobalValue::PrivateLinkage, ConstantDataArray::getString(C, S),
        "__keel_fs_str");
    GV->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
    return Strings[S.str()] = GV;
  };
  auto site = [&](Instruction &I, StringRef Fn) -> Constant * {
    std::string File;
    unsigned Line = 0, Col = 0;
    if (const DebugLoc &DLoc = I.getDebugLoc()) {
      File = DLoc->getFilename().str();
      Line = DLoc.getLine();
      Col = DLoc.getCol();
    } else if (DISubprogram *SP = I.getFunction()->getSubprogram()) {
      File = SP->getFilename().str();
      Line = SP->getLine();
    } else {
      File = M.getSourceFileName();
    }
    auto Key = std::make_tuple(File, Fn.str(), Line, Col);
    auto It = Sites.find(Key);
    if (It != Sites.end())
      return It->second;
    auto *GV = new GlobalVariable(
        M, SiteTy, true, GlobalValue::PrivateLinkage,
        ConstantStruct::get(SiteTy, {str(File), str(Fn),
                                     ConstantInt::get(I32, Line),
                                     ConstantInt::get(I32, Col)}),
        "__keel_fs_site");
    return Sites[Key] = GV;
  };

  // The inline fast path (see struct keel_fs_cache in runtime/keelfs.c),
  // with a thread-local cache { line, slot, count } per source site:
  //   if ((a >> 6) == cache.line
  //       [&& (a & 63) + size <= 64, unless the access is aligned]) {
  //     bits = ((1 << size) - 1) << (a & 63);
  //     if ((slot->rmask [& slot->wmask] & bits) == bits) {
  //       slot->reads += 1 [reads]; slot->writes += 1 [writes];
  //       *cache.count += 1; goto done;
  //     }
  //   }
  //   __keel_fs_access_cached(a, size, kind, site, &cache);
  // done:
  // The counters are written by their owner thread only (relaxed atomics,
  // plain moves on x86), as in the runtime. The caches are local-exec TLS,
  // valid in executables only: position-independent code that is not an
  // executable (a shared library) keeps the plain call.
  const bool UseInline = Inline && Sample <= 1 &&
                         (M.getPIELevel() != PIELevel::Default ||
                          M.getPICLevel() == PICLevel::NotPIC);
  unsigned InlineCount = 0;
  Type *I64 = Type::getInt64Ty(C);
  StructType *CacheTy = StructType::get(C, {I64, Ptr, Ptr});
  FunctionCallee AccessCached =
      UseInline ? M.getOrInsertFunction("__keel_fs_access_cached",
                                        Type::getVoidTy(C), Ptr, I32, I32,
                                        Ptr, Ptr)
                : FunctionCallee();
  std::map<Constant *, GlobalVariable *> Caches;
  auto cacheFor = [&](Constant *Site) {
    GlobalVariable *&GV = Caches[Site];
    if (!GV)
      GV = new GlobalVariable(
          M, CacheTy, false, GlobalValue::InternalLinkage,
          ConstantStruct::get(CacheTy, {ConstantInt::get(I64, ~0ull),
                                        ConstantPointerNull::get(Ptr),
                                        ConstantPointerNull::get(Ptr)}),
          "__keel_fs_cache", nullptr, GlobalValue::LocalExecTLSModel);
    return GV;
  };
  auto emitInlineAccess = [&](Instruction *I, Value *P, uint64_t Size,
                              unsigned Kind, Align InstAlign, Constant *Site) {
    auto loadRelaxed = [&](IRBuilder<> &B, Value *Addr, const Twine &Name) {
      LoadInst *L = B.CreateAlignedLoad(I64, Addr, Align(8), Name);
      L->setAtomic(AtomicOrdering::Monotonic);
      return L;
    };
    auto field = [&](IRBuilder<> &B, Value *Base, unsigned Offset) {
      return B.CreateConstInBoundsGEP1_32(B.getInt8Ty(), Base, Offset);
    };
    IRBuilder<> B(I);
    Value *CachePtr = B.CreateThreadLocalAddress(cacheFor(Site));
    Value *A = B.CreatePtrToInt(P, I64, "keelfs.addr");
    Value *Line = B.CreateLShr(A, 6, "keelfs.line");
    Value *CLine = B.CreateAlignedLoad(I64, CachePtr, Align(8), "keelfs.cline");
    Value *Hit = B.CreateICmpEQ(Line, CLine, "keelfs.hit");
    Value *Off = B.CreateAnd(A, 63, "keelfs.off");
    // An access aligned to its size cannot cross a line; others must not.
    if (InstAlign.value() < Size)
      Hit = B.CreateAnd(Hit,
                        B.CreateICmpULE(B.CreateAdd(Off, B.getInt64(Size)),
                                        B.getInt64(64)),
                        "keelfs.inside");
    BasicBlock *Head = I->getParent();
    Function *Fn = Head->getParent();
    BasicBlock *Cont = Head->splitBasicBlock(I, "keelfs.cont");
    BasicBlock *Check = BasicBlock::Create(C, "keelfs.check", Fn, Cont);
    BasicBlock *Bump = BasicBlock::Create(C, "keelfs.count", Fn, Cont);
    BasicBlock *Slow = BasicBlock::Create(C, "keelfs.call", Fn, Cont);
    MDNode *Likely = MDBuilder(C).createBranchWeights(2000, 1);
    Head->getTerminator()->eraseFromParent();
    B.SetInsertPoint(Head);
    B.CreateCondBr(Hit, Check, Slow, Likely);
    // Same line and site: the slot's masks must already hold the bytes.
    B.SetInsertPoint(Check);
    Value *Slot = B.CreateAlignedLoad(Ptr, field(B, CachePtr, 8), Align(8),
                                      "keelfs.slot");
    Value *Bits = B.CreateShl(B.getInt64((1ull << Size) - 1), Off,
                              "keelfs.bits");
    // (rmask & wmask for a read-modify-write: both must hold the bytes)
    Value *Have = nullptr;
    if (Kind != 1)
      Have = loadRelaxed(B, field(B, Slot, 8), "keelfs.rmask");
    if (Kind & 1) {
      Value *W = loadRelaxed(B, field(B, Slot, 16), "keelfs.wmask");
      Have = Have ? B.CreateAnd(Have, W) : W;
    }
    Value *Known = B.CreateICmpEQ(B.CreateAnd(Have, Bits), Bits,
                                  "keelfs.known");
    B.CreateCondBr(Known, Bump, Slow, Likely);
    B.SetInsertPoint(Bump);
    auto bump = [&](Value *Addr) {
      LoadInst *L = loadRelaxed(B, Addr, "keelfs.n");
      StoreInst *St = B.CreateAlignedStore(B.CreateAdd(L, B.getInt64(1)),
                                           Addr, Align(8));
      St->setAtomic(AtomicOrdering::Monotonic);
    };
    if (Kind != 1)
      bump(field(B, Slot, 24));
    if (Kind & 1)
      bump(field(B, Slot, 32));
    bump(B.CreateAlignedLoad(Ptr, field(B, CachePtr, 16), Align(8),
                             "keelfs.sitecount"));
    B.CreateBr(Cont);
    B.SetInsertPoint(Slow);
    B.CreateCall(AccessCached, {P, ConstantInt::get(I32, Size),
                                ConstantInt::get(I32, Kind), Site, CachePtr});
    B.CreateBr(Cont);
  };

  unsigned Count = 0;
  SmallPtrSet<StoreInst *, 8> MergedStores;
  SmallVector<std::pair<CallInst *, Value *>, 4> Allocs;
  FunctionCallee Alloc =
      M.getOrInsertFunction("__keel_fs_alloc", Type::getVoidTy(C), Ptr,
                            Type::getInt64Ty(C), Ptr);
  for (Function &F : M) {
    if (F.isDeclaration() || F.getName().starts_with("__keel_fs"))
      continue;
    if (Filter && !Filter->match(F.getName()))
      continue;
    // (instruction, pointer, accessed type, kind: 0 read, 1 write, 3 read
    // then write of the same bytes, e.g. `*p += 1`, one call for both)
    SmallVector<std::tuple<Instruction *, Value *, Type *, unsigned>, 32> Work;
    for (Instruction &I : instructions(F)) {
      if (auto *L = dyn_cast<LoadInst>(&I)) {
        Work.emplace_back(&I, L->getPointerOperand(), L->getType(), 0);
        // A store to the same pointer soon after, with nothing in between
        // that writes memory or calls out, records the read with it.
        unsigned Steps = 0;
        for (Instruction *N = L->getNextNode(); N && Steps < 16;
             N = N->getNextNode(), ++Steps) {
          if (auto *S = dyn_cast<StoreInst>(N)) {
            if (S->getPointerOperand() == L->getPointerOperand() &&
                DL.getTypeStoreSize(S->getValueOperand()->getType()) ==
                    DL.getTypeStoreSize(L->getType())) {
              Work.pop_back();
              Work.emplace_back(N, S->getPointerOperand(),
                                S->getValueOperand()->getType(), 3);
              MergedStores.insert(S);
            }
            break;
          }
          if (N->mayWriteToMemory() || isa<CallBase>(N))
            break;
        }
      } else if (auto *S = dyn_cast<StoreInst>(&I)) {
        if (MergedStores.count(S))
          continue;
        Work.emplace_back(&I, S->getPointerOperand(),
                          S->getValueOperand()->getType(), 1);
      } else if (auto *RMW = dyn_cast<AtomicRMWInst>(&I)) {
        Work.emplace_back(&I, RMW->getPointerOperand(),
                          RMW->getValOperand()->getType(), 3);
      } else if (auto *CX = dyn_cast<AtomicCmpXchgInst>(&I)) {
        Work.emplace_back(&I, CX->getPointerOperand(),
                          CX->getNewValOperand()->getType(), 3);
      } else if (auto *CI = dyn_cast<CallInst>(&I)) {
        // Heap allocations, so the report can name heap objects by the
        // source line that allocated them.
        Function *Callee = CI->getCalledFunction();
        if (!Callee || !CI->getType()->isPointerTy())
          continue;
        StringRef N = Callee->getName();
        Value *Size = nullptr;
        if ((N == "malloc" || N == "_Znwm" || N == "_Znam") &&
            CI->arg_size() == 1)
          Size = CI->getArgOperand(0);
        else if ((N == "realloc" || N == "aligned_alloc") &&
                 CI->arg_size() == 2)
          Size = CI->getArgOperand(1);
        else if (N == "calloc" && CI->arg_size() == 2)
          Size = CI; // marked below: the product of both arguments
        if (Size && Size != CI && !Size->getType()->isIntegerTy(64))
          Size = nullptr;
        if (Size)
          Allocs.push_back({CI, Size});
      }
    }
    for (auto &[CI, Size] : Allocs) {
      IRBuilder<> B(CI->getNextNode());
      Value *Bytes = Size;
      if (Size == CI)
        Bytes = B.CreateMul(CI->getArgOperand(0), CI->getArgOperand(1));
      if (!Bytes->getType()->isIntegerTy(64))
        continue;
      B.CreateCall(Alloc, {CI, Bytes, site(*CI, F.getName())});
      ++Count;
    }
    Allocs.clear();
    for (auto &[I, P, Ty, Kind] : Work) {
      if (!mayBeShared(P) || !Ty->isSized())
        continue;
      TypeSize TS = DL.getTypeStoreSize(Ty);
      if (TS.isScalable() || TS.getFixedValue() == 0)
        continue;
      uint64_t Size = TS.getFixedValue();
      Constant *Site = site(*I, F.getName());
      Value *Args[] = {P, ConstantInt::get(I32, Size),
                       ConstantInt::get(I32, Kind), Site};
      ++Count;
      if (!UseInline || (Size != 1 && Size != 2 && Size != 4 && Size != 8)) {
        IRBuilder<> B(I);
        B.CreateCall(Access, Args);
        continue;
      }
      Align InstAlign(1);
      if (auto *L = dyn_cast<LoadInst>(I))
        InstAlign = L->getAlign();
      else if (auto *S = dyn_cast<StoreInst>(I))
        InstAlign = S->getAlign();
      else if (auto *RMW = dyn_cast<AtomicRMWInst>(I))
        InstAlign = RMW->getAlign();
      else if (auto *CX = dyn_cast<AtomicCmpXchgInst>(I))
        InstAlign = CX->getAlign();
      emitInlineAccess(I, P, Size, Kind, InstAlign, Site);
      ++InlineCount;
    }
  }
  if (Count) {
    // Tell the runtime the sampling period before main runs.
    auto *CtorTy = FunctionType::get(Type::getVoidTy(C), false);
    Function *Ctor = Function::Create(CtorTy, GlobalValue::InternalLinkage,
                                      "__keel_fs_module_init", M);
    IRBuilder<> B(BasicBlock::Create(C, "", Ctor));
    FunctionCallee Init =
        M.getOrInsertFunction("__keel_fs_init", Type::getVoidTy(C), I32);
    B.CreateCall(Init, {ConstantInt::get(I32, Sample < 1 ? 1 : Sample)});
    B.CreateRetVoid();
    appendToGlobalCtors(M, Ctor, 0);
  }
  if (Summary)
    errs() << "keel-fs: " << M.getSourceFileName() << ": " << Count
           << " accesses instrumented, " << InlineCount
           << " with the inline fast path\n";
  return Count ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "KeelFalseSharing", "0.1.0",
          [](PassBuilder &PB) {
            PB.registerOptimizerLastEPCallback(
                [](ModulePassManager &MPM, OptimizationLevel,
                   ThinOrFullLTOPhase Phase) {
                  // With LTO, instrument once, in the back end, after the
                  // whole program has been optimised.
                  if (Phase == ThinOrFullLTOPhase::ThinLTOPreLink ||
                      Phase == ThinOrFullLTOPhase::FullLTOPreLink)
                    return;
                  MPM.addPass(FalseSharingPass());
                });
            PB.registerPipelineParsingCallback(
                [](StringRef Name, ModulePassManager &MPM,
                   ArrayRef<PassBuilder::PipelineElement>) {
                  if (Name != "keel-fs")
                    return false;
                  MPM.addPass(FalseSharingPass());
                  return true;
                });
          }};
}
