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

/// One access to instrument: the instruction, its pointer, the accessed type
/// and the kind (0 read, 1 write, 3 read then write of the same bytes, e.g.
/// `*p += 1`, one call for both).
struct MemAccess {
  Instruction *I;
  Value *Ptr;
  Type *Ty;
  unsigned Kind;
};

/// A heap allocation call and its size in bytes (the call itself for
/// calloc: the product of both arguments, computed when instrumenting).
using AllocCall = std::pair<CallInst *, Value *>;

/// The -keel-fs-functions filter: none when the option is empty; an error
/// (for a diagnostic) when the regex does not compile.
Expected<std::optional<Regex>> functionFilter() {
  std::optional<Regex> Filter;
  if (Functions.empty())
    return std::move(Filter);
  Filter.emplace(Functions);
  std::string Err;
  if (!Filter->isValid(Err))
    return createStringError(
        inconvertibleErrorCode(),
        (Twine("keel-fs: -keel-fs-functions: bad regex '") + Functions +
         "': " + Err)
            .str());
  return std::move(Filter);
}

/// The store that records its read with load L (kind 3): a store to the same
/// pointer, of the same size, soon after L, with nothing in between that
/// writes memory or calls out. Null when there is none.
StoreInst *mergedStore(LoadInst *L, const DataLayout &DL) {
  unsigned Steps = 0;
  for (Instruction *N = L->getNextNode(); N && Steps < 16;
       N = N->getNextNode(), ++Steps) {
    if (auto *S = dyn_cast<StoreInst>(N)) {
      if (S->getPointerOperand() == L->getPointerOperand() &&
          DL.getTypeStoreSize(S->getValueOperand()->getType()) ==
              DL.getTypeStoreSize(L->getType()))
        return S;
      return nullptr;
    }
    if (N->mayWriteToMemory() || isa<CallBase>(N))
      return nullptr;
  }
  return nullptr;
}

/// The size argument of a heap allocation call (malloc, calloc, realloc,
/// aligned_alloc, operator new and new[]), CI itself for calloc, or null
/// when CI is not one or its size is not an i64.
Value *allocSize(CallInst *CI) {
  Function *Callee = CI->getCalledFunction();
  if (!Callee || !CI->getType()->isPointerTy())
    return nullptr;
  StringRef N = Callee->getName();
  Value *Size = nullptr;
  if ((N == "malloc" || N == "_Znwm" || N == "_Znam") && CI->arg_size() == 1)
    Size = CI->getArgOperand(0);
  else if ((N == "realloc" || N == "aligned_alloc") && CI->arg_size() == 2)
    Size = CI->getArgOperand(1);
  else if (N == "calloc" && CI->arg_size() == 2)
    Size = CI; // the product of both arguments, computed when instrumenting
  if (Size && Size != CI && !Size->getType()->isIntegerTy(64))
    Size = nullptr;
  return Size;
}

/// Walks F once and lists the accesses to instrument, in order, and the heap
/// allocations (so the report can name heap objects by the source line that
/// allocated them).
void collectAccesses(Function &F, const DataLayout &DL,
                     SmallVectorImpl<MemAccess> &Work,
                     SmallVectorImpl<AllocCall> &Allocs) {
  SmallPtrSet<StoreInst *, 8> MergedStores;
  for (Instruction &I : instructions(F)) {
    if (auto *L = dyn_cast<LoadInst>(&I)) {
      if (StoreInst *S = mergedStore(L, DL)) {
        Work.push_back(
            {S, S->getPointerOperand(), S->getValueOperand()->getType(), 3});
        MergedStores.insert(S);
      } else {
        Work.push_back({&I, L->getPointerOperand(), L->getType(), 0});
      }
    } else if (auto *S = dyn_cast<StoreInst>(&I)) {
      if (MergedStores.count(S))
        continue;
      Work.push_back(
          {&I, S->getPointerOperand(), S->getValueOperand()->getType(), 1});
    } else if (auto *RMW = dyn_cast<AtomicRMWInst>(&I)) {
      Work.push_back(
          {&I, RMW->getPointerOperand(), RMW->getValOperand()->getType(), 3});
    } else if (auto *CX = dyn_cast<AtomicCmpXchgInst>(&I)) {
      Work.push_back(
          {&I, CX->getPointerOperand(), CX->getNewValOperand()->getType(), 3});
    } else if (auto *CI = dyn_cast<CallInst>(&I)) {
      if (Value *Size = allocSize(CI))
        Allocs.push_back({CI, Size});
    }
  }
}

/// The alignment of a load, store, atomicrmw or cmpxchg.
Align accessAlign(Instruction *I) {
  if (auto *L = dyn_cast<LoadInst>(I))
    return L->getAlign();
  if (auto *S = dyn_cast<StoreInst>(I))
    return S->getAlign();
  if (auto *RMW = dyn_cast<AtomicRMWInst>(I))
    return RMW->getAlign();
  if (auto *CX = dyn_cast<AtomicCmpXchgInst>(I))
    return CX->getAlign();
  return Align(1);
}

LoadInst *loadRelaxed(IRBuilder<> &B, Value *Addr, const Twine &Name) {
  LoadInst *L = B.CreateAlignedLoad(B.getInt64Ty(), Addr, Align(8), Name);
  L->setAtomic(AtomicOrdering::Monotonic);
  return L;
}

Value *fieldAt(IRBuilder<> &B, Value *Base, unsigned Offset) {
  return B.CreateConstInBoundsGEP1_32(B.getInt8Ty(), Base, Offset);
}

/// Instruments one module: declares the runtime's entry points, creates the
/// constant site and string globals (one per distinct source location) and
/// the per-site caches, and adds the calls or inline checks before each
/// access and after each heap allocation.
class Instrumenter {
public:
  explicit Instrumenter(Module &M);
  void instrumentFunction(Function &F);
  /// Tells the runtime the sampling period before main runs.
  void addModuleInit();
  unsigned count() const { return Count; }
  unsigned inlineCount() const { return InlineCount; }

private:
  Constant *str(StringRef S);
  Constant *site(Instruction &I, StringRef Fn);
  GlobalVariable *cacheFor(Constant *Site);
  void instrumentAlloc(CallInst *CI, Value *Size, StringRef Fn);
  void instrumentAccess(const MemAccess &A, StringRef Fn);
  void emitInlineAccess(Instruction *I, Value *P, uint64_t Size, unsigned Kind,
                        Align InstAlign, Constant *Site);

  Module &M;
  LLVMContext &C;
  const DataLayout &DL;
  Type *I32, *I64;
  PointerType *Ptr;
  StructType *SiteTy, *CacheTy;
  bool UseInline;
  FunctionCallee Access, AccessCached, Alloc;
  std::map<std::tuple<std::string, std::string, unsigned, unsigned>,
           Constant *>
      Sites;
  std::map<std::string, Constant *> Strings;
  std::map<Constant *, GlobalVariable *> Caches;
  unsigned Count = 0, InlineCount = 0;
};

Instrumenter::Instrumenter(Module &M)
    : M(M), C(M.getContext()), DL(M.getDataLayout()) {
  I32 = Type::getInt32Ty(C);
  I64 = Type::getInt64Ty(C);
  Ptr = PointerType::getUnqual(C);
  SiteTy = StructType::get(C, {Ptr, Ptr, I32, I32});
  CacheTy = StructType::get(C, {I64, Ptr, Ptr});
  // The inline fast path's caches are local-exec TLS, valid in executables
  // only: position-independent code that is not an executable (a shared
  // library) keeps the plain call. Sampling needs a call per access.
  UseInline = Inline && Sample <= 1 &&
              (M.getPIELevel() != PIELevel::Default ||
               M.getPICLevel() == PICLevel::NotPIC);
  // (declared in this order: it is the order of the module's declarations)
  Access = M.getOrInsertFunction("__keel_fs_access", Type::getVoidTy(C), Ptr,
                                 I32, I32, Ptr);
  if (UseInline)
    AccessCached = M.getOrInsertFunction(
        "__keel_fs_access_cached", Type::getVoidTy(C), Ptr, I32, I32, Ptr, Ptr);
  Alloc = M.getOrInsertFunction("__keel_fs_alloc", Type::getVoidTy(C), Ptr, I64,
                                Ptr);
}

/// A private constant C string, one per distinct text.
Constant *Instrumenter::str(StringRef S) {
  auto It = Strings.find(S.str());
  if (It != Strings.end())
    return It->second;
  auto *GV =
      new GlobalVariable(M, ArrayType::get(Type::getInt8Ty(C), S.size() + 1),
                         true, GlobalValue::PrivateLinkage,
                         ConstantDataArray::getString(C, S), "__keel_fs_str");
  GV->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
  return Strings[S.str()] = GV;
}

/// The constant { file, function, line, column } of I's source location
/// (the function's line without a debug location, the module's file
/// without debug info), one per distinct location.
Constant *Instrumenter::site(Instruction &I, StringRef Fn) {
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
      ConstantStruct::get(SiteTy,
                          {str(File), str(Fn), ConstantInt::get(I32, Line),
                           ConstantInt::get(I32, Col)}),
      "__keel_fs_site");
  return Sites[Key] = GV;
}

/// The site's thread-local cache { line, slot, count } (struct
/// keel_fs_cache in runtime/keelfs.c); its line starts at -1, which no
/// address matches.
GlobalVariable *Instrumenter::cacheFor(Constant *Site) {
  GlobalVariable *&GV = Caches[Site];
  if (!GV)
    GV = new GlobalVariable(
        M, CacheTy, false, GlobalValue::InternalLinkage,
        ConstantStruct::get(CacheTy, {ConstantInt::get(I64, ~0ull),
                                      ConstantPointerNull::get(Ptr),
                                      ConstantPointerNull::get(Ptr)}),
        "__keel_fs_cache", nullptr, GlobalValue::LocalExecTLSModel);
  return GV;
}

// The inline fast path, with a thread-local cache { line, slot, count } per
// source site:
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
// plain moves on x86), as in the runtime.
void Instrumenter::emitInlineAccess(Instruction *I, Value *P, uint64_t Size,
                                    unsigned Kind, Align InstAlign,
                                    Constant *Site) {
  IRBuilder<> B(I);
  Value *CachePtr = B.CreateThreadLocalAddress(cacheFor(Site));
  Value *A = B.CreatePtrToInt(P, I64, "keelfs.addr");
  Value *Line = B.CreateLShr(A, 6, "keelfs.line");
  Value *CLine = B.CreateAlignedLoad(I64, CachePtr, Align(8), "keelfs.cline");
  Value *Hit = B.CreateICmpEQ(Line, CLine, "keelfs.hit");
  Value *Off = B.CreateAnd(A, 63, "keelfs.off");
  // An access aligned to its size cannot cross a line; others must not.
  if (InstAlign.value() < Size)
    Hit = B.CreateAnd(
        Hit,
        B.CreateICmpULE(B.CreateAdd(Off, B.getInt64(Size)), B.getInt64(64)),
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
  Value *Slot = B.CreateAlignedLoad(Ptr, fieldAt(B, CachePtr, 8), Align(8),
                                    "keelfs.slot");
  Value *Bits = B.CreateShl(B.getInt64((1ull << Size) - 1), Off, "keelfs.bits");
  // (rmask & wmask for a read-modify-write: both must hold the bytes)
  Value *Have = nullptr;
  if (Kind != 1)
    Have = loadRelaxed(B, fieldAt(B, Slot, 8), "keelfs.rmask");
  if (Kind & 1) {
    Value *W = loadRelaxed(B, fieldAt(B, Slot, 16), "keelfs.wmask");
    Have = Have ? B.CreateAnd(Have, W) : W;
  }
  Value *Known = B.CreateICmpEQ(B.CreateAnd(Have, Bits), Bits, "keelfs.known");
  B.CreateCondBr(Known, Bump, Slow, Likely);
  B.SetInsertPoint(Bump);
  auto bump = [&](Value *Addr) {
    LoadInst *L = loadRelaxed(B, Addr, "keelfs.n");
    StoreInst *St =
        B.CreateAlignedStore(B.CreateAdd(L, B.getInt64(1)), Addr, Align(8));
    St->setAtomic(AtomicOrdering::Monotonic);
  };
  if (Kind != 1)
    bump(fieldAt(B, Slot, 24));
  if (Kind & 1)
    bump(fieldAt(B, Slot, 32));
  bump(B.CreateAlignedLoad(Ptr, fieldAt(B, CachePtr, 16), Align(8),
                           "keelfs.sitecount"));
  B.CreateBr(Cont);
  B.SetInsertPoint(Slow);
  B.CreateCall(AccessCached, {P, ConstantInt::get(I32, Size),
                              ConstantInt::get(I32, Kind), Site, CachePtr});
  B.CreateBr(Cont);
}

/// After the allocation: __keel_fs_alloc(ptr, bytes, site).
void Instrumenter::instrumentAlloc(CallInst *CI, Value *Size, StringRef Fn) {
  IRBuilder<> B(CI->getNextNode());
  Value *Bytes = Size;
  if (Size == CI)
    Bytes = B.CreateMul(CI->getArgOperand(0), CI->getArgOperand(1));
  if (!Bytes->getType()->isIntegerTy(64))
    return;
  B.CreateCall(Alloc, {CI, Bytes, site(*CI, Fn)});
  ++Count;
}

/// Before the access, if it may touch shared memory: the inline fast path
/// for 1, 2, 4 or 8 bytes when enabled, else __keel_fs_access(addr, size,
/// kind, site).
void Instrumenter::instrumentAccess(const MemAccess &A, StringRef Fn) {
  if (!mayBeShared(A.Ptr) || !A.Ty->isSized())
    return;
  TypeSize TS = DL.getTypeStoreSize(A.Ty);
  if (TS.isScalable() || TS.getFixedValue() == 0)
    return;
  uint64_t Size = TS.getFixedValue();
  Constant *Site = site(*A.I, Fn);
  ++Count;
  if (!UseInline || (Size != 1 && Size != 2 && Size != 4 && Size != 8)) {
    IRBuilder<> B(A.I);
    B.CreateCall(Access, {A.Ptr, ConstantInt::get(I32, Size),
                          ConstantInt::get(I32, A.Kind), Site});
    return;
  }
  emitInlineAccess(A.I, A.Ptr, Size, A.Kind, accessAlign(A.I), Site);
  ++InlineCount;
}

/// The allocations first, then the accesses, each in program order (the
/// order in which site globals are created).
void Instrumenter::instrumentFunction(Function &F) {
  SmallVector<MemAccess, 32> Work;
  SmallVector<AllocCall, 4> Allocs;
  collectAccesses(F, DL, Work, Allocs);
  for (auto &[CI, Size] : Allocs)
    instrumentAlloc(CI, Size, F.getName());
  for (const MemAccess &A : Work)
    instrumentAccess(A, F.getName());
}

void Instrumenter::addModuleInit() {
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

} // namespace

PreservedAnalyses FalseSharingPass::run(Module &M, ModuleAnalysisManager &) {
  // Already instrumented (e.g. an LTO back end after a pre-link run).
  if (M.getFunction("__keel_fs_module_init"))
    return PreservedAnalyses::all();
  Expected<std::optional<Regex>> Filter = functionFilter();
  if (!Filter) {
    // A diagnostic, not report_fatal_error: the compiler reports it and
    // exits 1 like any other error, with no crash dump and no object file.
    M.getContext().diagnose(
        DiagnosticInfoGeneric(toString(Filter.takeError()), DS_Error));
    return PreservedAnalyses::all();
  }
  Instrumenter In(M);
  for (Function &F : M) {
    if (F.isDeclaration() || F.getName().starts_with("__keel_fs"))
      continue;
    if (*Filter && !(*Filter)->match(F.getName()))
      continue;
    In.instrumentFunction(F);
  }
  if (In.count())
    In.addModuleInit();
  if (Summary)
    errs() << "keel-fs: " << M.getSourceFileName() << ": " << In.count()
           << " accesses instrumented, " << In.inlineCount()
           << " with the inline fast path\n";
  return In.count() ? PreservedAnalyses::none() : PreservedAnalyses::all();
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
