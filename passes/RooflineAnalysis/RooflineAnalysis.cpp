//===- RooflineAnalysis.cpp - roofline loop counts from the compiler ------===//
//
// For every innermost loop, describe one iteration the way the cache-aware
// roofline model (Minami et al., section 5.4 (1); docs/references.md) asks
// for it:
//   m      bytes per iteration that come from memory,
//   nL2    bytes re-read from L2,
//   nL1_S  bytes re-read at short distance (i+-1, i+-2: registers or L1),
//   nL1_L  bytes re-read from L1 at longer distance (i+-12),
//   k      floating-point operations,
// each divided by the element size and by the elements one iteration covers
// (so a loop vectorized 4 x 4 still reads "3M-2L2-5F").
//
// How an access is classified (ScalarEvolution):
//  * Its address must be an affine AddRec {start,+,s} in the loop with a
//    constant step; otherwise it is reported as unclassified.
//  * Accesses whose starts differ by a constant form a group (one array).
//  * An access re-reads data when another member of its group (or itself,
//    in an earlier iteration of the parent loop) touched an overlapping
//    address before: the reuse is R iterations of this loop back. Element
//    distance <= 2 is short (nL1_S); otherwise the bytes the loop moves in R
//    iterations decide: <= L1 size -> nL1_L, <= L2 size -> nL2, else m.
//  * Accesses nobody touched before bring s new bytes per iteration per
//    group (m). A store that misses brings its line in and writes it back,
//    so it counts twice (write-allocate), as in the paper's 3M-2L2 kernel.
// Flops: fadd/fsub/fmul/fdiv/frem (1 per lane), llvm.fma/fmuladd (2 per
// lane), llvm.sqrt (1 per lane).
//
// Usage:
//   opt -load-pass-plugin=KeelRoofline.so -passes='print<keel-roofline>' \
//       -disable-output x.ll [-keel-roofline-json=x.json]
//   clang -O2 -fpass-plugin=KeelRoofline.so -mllvm -keel-roofline-json=x.json
//
//===----------------------------------------------------------------------===//
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Plugins/PassPlugin.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

using namespace llvm;

static cl::opt<std::string>
    JSONOut("keel-roofline-json",
            cl::desc("write the per-loop counts as JSON (for layout-roofline "
                     "model --input)"),
            cl::value_desc("file"));
static cl::opt<uint64_t> L1Size("keel-roofline-l1",
                                cl::desc("L1 data cache bytes"),
                                cl::init(48 * 1024));
static cl::opt<uint64_t> L2Size("keel-roofline-l2", cl::desc("L2 cache bytes"),
                                cl::init(2 * 1024 * 1024));
static cl::opt<unsigned>
    AssumedTrip("keel-roofline-trip",
                cl::desc("trip count to assume when the compiler cannot tell "
                         "(0: report such reuse as unclassified)"),
                cl::init(0));

namespace {

enum Class { Mem, L2, L1S, L1L, NumClasses };
const char *const ClassNames[NumClasses] = {"m", "nL2", "nL1_S", "nL1_L"};

struct Access {
  Instruction *I = nullptr;
  bool IsStore = false;
  uint64_t Width = 0; ///< bytes
  uint64_t Elem = 0;  ///< scalar element bytes
  const SCEV *Start = nullptr;
  int64_t Step = 0;   ///< bytes per iteration of the loop
  int64_t Offset = 0; ///< from the group's first start
  unsigned Group = 0;
  Class C = Mem;
  bool Leader = false;
  std::string Why;  ///< the reuse found, for the report
};

struct Group {
  const SCEV *Start; ///< of the first member
  int64_t Step;
  std::optional<int64_t> OuterStep; ///< bytes per parent iteration
  bool OuterKnown = false;
  std::vector<unsigned> Members;
};

struct LoopReport {
  std::string Name, Location;
  std::optional<unsigned> Trip;
  double ElementsPerIter = 1;
  uint64_t ElementBytes = 8;
  double Bytes[NumClasses] = {0, 0, 0, 0};
  double Flops = 0;
  std::vector<std::string> Unclassified;
  std::vector<std::string> Notes; ///< one per access
};

std::string describe(const Instruction &I) {
  std::string S;
  raw_string_ostream OS(S);
  I.print(OS);
  return StringRef(S).trim().str();
}

std::string location(const Loop &L) {
  if (DebugLoc DL = L.getStartLoc())
    return formatv("{0}:{1}", DL->getFilename(), DL.getLine()).str();
  return "";
}

unsigned lanes(Type *T) {
  if (auto *VT = dyn_cast<FixedVectorType>(T))
    return VT->getNumElements();
  return 1;
}

/// Flops one execution of I does.
double flopsOf(const Instruction &I) {
  switch (I.getOpcode()) {
  case Instruction::FAdd:
  case Instruction::FSub:
  case Instruction::FMul:
  case Instruction::FDiv:
  case Instruction::FRem:
    return lanes(I.getType());
  default:
    break;
  }
  if (auto *II = dyn_cast<IntrinsicInst>(&I)) {
    switch (II->getIntrinsicID()) {
    case Intrinsic::fma:
    case Intrinsic::fmuladd:
      return 2.0 * lanes(II->getType());
    case Intrinsic::sqrt:
      return lanes(II->getType());
    case Intrinsic::vector_reduce_fadd:
    case Intrinsic::vector_reduce_fmul:
      return lanes(II->getArgOperand(1)->getType());
    default:
      break;
    }
  }
  return 0;
}

class LoopClassifier {
public:
  LoopClassifier(Loop &L, ScalarEvolution &SE, const DataLayout &DL,
                 unsigned Index)
      : L(L), SE(SE), DL(DL), Index(Index) {}

  LoopReport run() {
    // clang drops value names, so number the loops when the header has none.
    StringRef Header = L.getHeader()->getName();
    R.Name = (L.getHeader()->getParent()->getName() + ":" +
              (Header.empty() ? "loop" + Twine(Index) : Twine(Header)))
                 .str();
    R.Location = location(L);
    if (unsigned T = SE.getSmallConstantTripCount(&L))
      R.Trip = T;
    else if (AssumedTrip)
      R.Trip = AssumedTrip;
    collect();
    formGroups();
    classify();
    normalise();
    return R;
  }

private:
  Loop &L;
  ScalarEvolution &SE;
  const DataLayout &DL;
  unsigned Index;
  LoopReport R;
  std::vector<Access> Accesses;
  std::vector<Group> Groups;
  double BytesPerIter = 0; ///< distinct bytes the loop touches per iteration

  void collect() {
    for (BasicBlock *BB : L.blocks())
      for (Instruction &I : *BB) {
        R.Flops += flopsOf(I);
        Value *Ptr = nullptr;
        Type *Ty = nullptr;
        bool Store = false;
        if (auto *LI = dyn_cast<LoadInst>(&I)) {
          Ptr = LI->getPointerOperand();
          Ty = LI->getType();
        } else if (auto *SI = dyn_cast<StoreInst>(&I)) {
          Ptr = SI->getPointerOperand();
          Ty = SI->getValueOperand()->getType();
          Store = true;
        } else if (auto *II = dyn_cast<IntrinsicInst>(&I)) {
          if (II->getIntrinsicID() == Intrinsic::masked_load ||
              II->getIntrinsicID() == Intrinsic::masked_store ||
              II->getIntrinsicID() == Intrinsic::masked_gather ||
              II->getIntrinsicID() == Intrinsic::masked_scatter)
            R.Unclassified.push_back("masked/gather access: " + describe(I));
          continue;
        } else {
          continue;
        }
        add(I, Ptr, Ty, Store);
      }
  }

  void add(Instruction &I, Value *Ptr, Type *Ty, bool Store) {
    const SCEV *S = SE.getSCEV(Ptr);
    if (SE.isLoopInvariant(S, &L))
      return; // one address for the whole loop: a register or one L1 line
    auto *AR = dyn_cast<SCEVAddRecExpr>(S);
    if (!AR || AR->getLoop() != &L || !AR->isAffine()) {
      R.Unclassified.push_back("address is not affine in the loop: " +
                               describe(I));
      return;
    }
    auto *Step = dyn_cast<SCEVConstant>(AR->getStepRecurrence(SE));
    if (!Step || Step->getAPInt().getSignificantBits() > 63 ||
        Step->getAPInt().isZero()) {
      R.Unclassified.push_back("step is not a constant: " + describe(I));
      return;
    }
    Access A;
    A.I = &I;
    A.IsStore = Store;
    A.Width = DL.getTypeStoreSize(Ty).getFixedValue();
    A.Elem = DL.getTypeStoreSize(Ty->getScalarType()).getFixedValue();
    A.Start = AR->getStart();
    A.Step = Step->getAPInt().getSExtValue();
    Accesses.push_back(A);
  }

  void formGroups() {
    for (unsigned I = 0; I < Accesses.size(); ++I) {
      Access &A = Accesses[I];
      bool Placed = false;
      for (unsigned G = 0; G < Groups.size() && !Placed; ++G) {
        if (Groups[G].Step != A.Step)
          continue;
        auto D = SE.computeConstantDifference(A.Start, Groups[G].Start);
        if (!D || D->getSignificantBits() > 63)
          continue;
        A.Offset = D->getSExtValue();
        A.Group = G;
        Groups[G].Members.push_back(I);
        Placed = true;
      }
      if (Placed)
        continue;
      A.Offset = 0;
      A.Group = Groups.size();
      Group G{A.Start, A.Step, std::nullopt, false, {I}};
      outerStep(G);
      Groups.push_back(G);
    }
    for (const Group &G : Groups)
      BytesPerIter += std::abs(G.Step);
  }

  /// How the group's start moves with the parent loop.
  void outerStep(Group &G) {
    Loop *P = L.getParentLoop();
    if (!P)
      return;
    if (SE.isLoopInvariant(G.Start, P)) {
      G.OuterStep = 0;
      G.OuterKnown = true;
      return;
    }
    if (auto *AR = dyn_cast<SCEVAddRecExpr>(G.Start))
      if (AR->getLoop() == P && AR->isAffine())
        if (auto *C = dyn_cast<SCEVConstant>(AR->getStepRecurrence(SE)))
          if (C->getAPInt().getSignificantBits() <= 63) {
            G.OuterStep = C->getAPInt().getSExtValue();
            G.OuterKnown = true;
          }
  }

  /// Reuse distance in iterations of this loop at which B touched bytes
  /// that A touches (B before A), or nothing.
  std::optional<double> reuse(const Access &A, unsigned AI, const Access &B,
                              unsigned BI, const Group &G, bool &NeedTrip) {
    // Normalise so the loop walks upwards.
    double Sgn = A.Step < 0 ? -1 : 1;
    double S = std::abs(double(A.Step));
    double D = Sgn * double(B.Offset - A.Offset);
    double W = double(std::min(A.Width, B.Width));
    std::optional<double> Best;
    auto Consider = [&](double V) {
      if (!Best || V < *Best)
        Best = V;
    };
    // Same iteration of the parent loop (q = 0): B is ahead by D >= 0.
    if (BI != AI) {
      double RI = std::round(D / S);
      for (double Rr : {RI - 1, RI, RI + 1}) {
        if (Rr < 0 || std::abs(D - Rr * S) >= W)
          continue;
        if (Rr == 0 && (D < 0 || (D == 0 && BI > AI)))
          continue; // same iteration: only an earlier or leading access
        if (R.Trip && Rr >= *R.Trip)
          continue;
        Consider(Rr);
      }
    }
    // Earlier iterations of the parent loop (q >= 1).
    if (G.OuterKnown && !R.Trip) {
      NeedTrip = true;
    } else if (G.OuterKnown) {
      double OS = Sgn * double(*G.OuterStep);
      double T = *R.Trip;
      for (int Q = 1; Q <= 8; ++Q) {
        double X = D - Q * OS; // B at (j-q, u) touches A's (j, t): u = t - X/S
        double Rr = std::round(X / S);
        for (double C : {Rr - 1, Rr, Rr + 1})
          if (std::abs(X - C * S) < W && std::abs(C) < T)
            Consider(Q * T - C);
        if (OS == 0)
          break; // every q gives the same reuse
      }
    }
    return Best;
  }

  void classify() {
    std::vector<double> Leader(Groups.size(), 0), Total(Groups.size(), 0);
    for (unsigned AI = 0; AI < Accesses.size(); ++AI) {
      Access &A = Accesses[AI];
      const Group &G = Groups[A.Group];
      std::optional<double> Best;
      unsigned From = AI;
      bool NeedTrip = false;
      for (unsigned BI : G.Members) {
        auto Rr = reuse(A, AI, Accesses[BI], BI, G, NeedTrip);
        if (Rr && (!Best || *Rr < *Best)) {
          Best = Rr;
          From = BI;
        }
      }
      Total[A.Group] += A.Width;
      if (!Best) {
        if (NeedTrip) {
          R.Unclassified.push_back(
              "trip count unknown, reuse across the parent loop cannot be "
              "sized (use -keel-roofline-trip=N): " +
              describe(*A.I));
          A.C = Mem;
          A.Why = "no trip count";
        } else {
          A.C = Mem;
          A.Why = "new data";
        }
        A.Leader = true;
        Leader[A.Group] += A.Width;
        continue;
      }
      double ElemDist =
          std::abs(double(Accesses[From].Offset - A.Offset)) / double(A.Elem);
      double Between = *Best * BytesPerIter;
      if (ElemDist <= 2 && *Best <= 2)
        A.C = L1S;
      else if (Between <= double(L1Size))
        A.C = L1L;
      else if (Between <= double(L2Size))
        A.C = L2;
      else
        A.C = Mem;
      A.Why = formatv("re-reads data {0} iterations later ({1} B between)",
                      *Best, Between)
                  .str();
    }
    // A group brings |s| new bytes per iteration even when its leading
    // accesses cover less (partially overlapping vector loads): move the
    // shortfall from its re-reads to memory.
    for (unsigned GI = 0; GI < Groups.size(); ++GI) {
      double S = std::abs(double(Groups[GI].Step));
      double LeadBytes = 0, ReuseBytes = 0;
      for (unsigned AI : Groups[GI].Members)
        (Accesses[AI].Leader ? LeadBytes : ReuseBytes) += Accesses[AI].Width;
      double Shortfall =
          (LeadBytes > 0 && LeadBytes < S) ? std::min(S, Total[GI]) - LeadBytes
                                           : 0;
      Shortfall = std::min(Shortfall, ReuseBytes);
      double Scale = ReuseBytes > 0 ? 1 - Shortfall / ReuseBytes : 1;
      for (unsigned AI : Groups[GI].Members) {
        const Access &A = Accesses[AI];
        double Bytes = A.Leader ? A.Width : A.Width * Scale;
        double Weight = (A.C == Mem && A.IsStore) ? 2 : 1; // write-allocate
        R.Bytes[A.C] += Bytes * Weight;
      }
      double Weight = 1;
      for (unsigned AI : Groups[GI].Members)
        if (Accesses[AI].IsStore)
          Weight = 2;
      R.Bytes[Mem] += Shortfall * Weight;
    }
    for (const Access &A : Accesses)
      R.Notes.push_back(formatv("{0} {1} B +{2} B/iter group {3} offset {4}: "
                                "{5} ({6})",
                                A.IsStore ? "store" : "load", A.Width, A.Step,
                                A.Group, A.Offset, ClassNames[A.C], A.Why)
                            .str());
  }

  void normalise() {
    // Element size: the most common scalar size; elements per iteration:
    // the smallest group step in elements.
    std::map<uint64_t, unsigned> Sizes;
    for (const Access &A : Accesses)
      ++Sizes[A.Elem];
    uint64_t Elem = 8;
    unsigned Most = 0;
    for (auto [Size, N] : Sizes)
      if (N > Most)
        Elem = Size, Most = N;
    R.ElementBytes = Elem;
    double Per = 0;
    for (const Group &G : Groups) {
      double E = std::abs(double(G.Step)) / double(Elem);
      Per = Per == 0 ? E : std::min(Per, E);
    }
    R.ElementsPerIter = std::max(1.0, Per);
  }
};

struct RooflinePrinter : PassInfoMixin<RooflinePrinter> {
  bool Print;
  explicit RooflinePrinter(bool Print) : Print(Print) {}

  PreservedAnalyses run(Module &M, ModuleAnalysisManager &MAM) {
    auto &FAM = MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
    std::vector<LoopReport> Reports;
    for (Function &F : M) {
      if (F.isDeclaration())
        continue;
      auto &LI = FAM.getResult<LoopAnalysis>(F);
      auto &SE = FAM.getResult<ScalarEvolutionAnalysis>(F);
      unsigned Index = 0;
      for (Loop *L : LI.getLoopsInPreorder())
        if (L->isInnermost())
          Reports.push_back(
              LoopClassifier(*L, SE, M.getDataLayout(), Index++).run());
    }
    if (Print)
      printText(errs(), M, Reports);
    if (!JSONOut.empty())
      writeJSON(M, Reports);
    return PreservedAnalyses::all();
  }

  static double per(const LoopReport &R, double Bytes) {
    return Bytes / double(R.ElementBytes) / R.ElementsPerIter;
  }

  static void printText(raw_ostream &OS, Module &M,
                        const std::vector<LoopReport> &Reports) {
    OS << "keel-roofline: " << M.getName() << ", " << Reports.size()
       << " innermost loop(s)\n";
    for (const LoopReport &R : Reports) {
      OS << formatv("loop {0}{1}: m {2:f2} nL2 {3:f2} nL1_S {4:f2} nL1_L "
                    "{5:f2} k {6:f2} ({7} B elements, {8} per iteration, "
                    "trip {9})\n",
                    R.Name, R.Location.empty() ? "" : " at " + R.Location,
                    per(R, R.Bytes[Mem]), per(R, R.Bytes[L2]),
                    per(R, R.Bytes[L1S]), per(R, R.Bytes[L1L]),
                    R.Flops / R.ElementsPerIter, R.ElementBytes,
                    R.ElementsPerIter,
                    R.Trip ? std::to_string(*R.Trip) : std::string("unknown"));
      for (const std::string &N : R.Notes)
        OS << "  " << N << '\n';
      for (const std::string &U : R.Unclassified)
        OS << "  unclassified: " << U << '\n';
    }
  }

  static void writeJSON(Module &M, const std::vector<LoopReport> &Reports) {
    json::Array Kernels;
    for (const LoopReport &R : Reports) {
      json::Array U;
      for (const std::string &S : R.Unclassified)
        U.push_back(S);
      json::Object O{{"name", R.Name},
                     {"location", R.Location},
                     {"m", per(R, R.Bytes[Mem])},
                     {"nL2", per(R, R.Bytes[L2])},
                     {"nL1_S", per(R, R.Bytes[L1S])},
                     {"nL1_L", per(R, R.Bytes[L1L])},
                     {"k", R.Flops / R.ElementsPerIter},
                     {"element_bytes", int64_t(R.ElementBytes)},
                     {"elements_per_iteration", R.ElementsPerIter},
                     {"unclassified", std::move(U)}};
      if (R.Trip)
        O["trip_count"] = int64_t(*R.Trip);
      Kernels.push_back(std::move(O));
    }
    json::Object Top{{"module", M.getName()},
                     {"l1_bytes", int64_t(L1Size)},
                     {"l2_bytes", int64_t(L2Size)},
                     {"kernels", std::move(Kernels)}};
    std::error_code EC;
    raw_fd_ostream OS(JSONOut, EC, sys::fs::OF_Text);
    if (EC) {
      errs() << "keel-roofline: cannot write " << JSONOut << ": "
             << EC.message() << '\n';
      return;
    }
    OS << formatv("{0:2}", json::Value(std::move(Top))) << '\n';
  }
};

void registerCallbacks(PassBuilder &PB) {
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM,
         ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "print<keel-roofline>") {
          MPM.addPass(RooflinePrinter(/*Print=*/true));
          return true;
        }
        if (Name == "keel-roofline") {
          MPM.addPass(RooflinePrinter(/*Print=*/false));
          return true;
        }
        return false;
      });
  // With clang -fpass-plugin: analyse the final IR when a JSON file is asked
  // for (-mllvm -keel-roofline-json=FILE); otherwise stay out of the way.
  PB.registerOptimizerLastEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel, ThinOrFullLTOPhase) {
        if (!JSONOut.empty())
          MPM.addPass(RooflinePrinter(/*Print=*/false));
      });
}

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "KeelRoofline", "0.1", registerCallbacks};
}
