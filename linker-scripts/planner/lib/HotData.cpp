//===- HotData.cpp - data symbols referenced by executed code -------------===//
#include "keel/Planner/HotData.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstrAnalysis.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"

#include <map>

using namespace llvm;

namespace keel {

std::optional<DataKind> dataKindOfSection(const SectionInfo &S) {
  StringRef N = S.Name;
  auto Is = [&](StringRef Prefix) {
    return N == Prefix || N.starts_with((Prefix + ".").str());
  };
  if (!S.IsAlloc || S.IsExec)
    return std::nullopt;
  // RELRO data must stay in the read-only-after-relocation segment; TLS
  // and GOTs are not ours to move.
  if (Is(".data.rel.ro"))
    return std::nullopt;
  if (Is(".bss"))
    return DataKind::BSS;
  if (Is(".rodata"))
    return DataKind::ROData;
  if (Is(".data"))
    return DataKind::Data;
  return std::nullopt;
}

/// The fixed address an instruction's operands name, if any.
static std::optional<uint64_t> fixedTarget(const Binary &Bin,
                                           const InstInfo &I,
                                           const MCInst &Inst) {
  if (auto T = Bin.instrAnalysis().evaluateMemoryOperandAddress(
          Inst, &Bin.subtargetInfo(), I.Addr, I.Size))
    return T;
  // Absolute addresses only mean something in a binary loaded at its link
  // address; in a PIE a small immediate is just a number.
  if (Bin.isPIE() || I.IsBranch || I.IsCall)
    return std::nullopt;
  for (const MCOperand &Op : Inst)
    if (Op.isImm() && Op.getImm() > 0) {
      const SectionInfo *S = Bin.sectionAt(uint64_t(Op.getImm()));
      if (S && !S->IsExec)
        return uint64_t(Op.getImm());
    }
  return std::nullopt;
}

namespace {

/// Follows "lea sym(%rip), %reg" into later accesses through %reg (array
/// indexing: "mov %eax, (%reg,%idx,4)"), so such loads and stores count for
/// sym. Forgotten when the register is redefined, at any branch, call or
/// return, and where the decoded code is not contiguous.
class BaseTracker {
public:
  explicit BaseTracker(const Binary &Bin) : Bin(Bin) {}

  /// The address \p Inst accesses through a tracked base register.
  std::optional<uint64_t> access(const MCInst &Inst) const {
    if (Bases.empty())
      return std::nullopt;
    // An x86 memory operand is five MC operands: base, scale, index,
    // displacement, segment.
    for (unsigned I = 0; I + 4 < Inst.getNumOperands(); ++I) {
      const MCOperand &Base = Inst.getOperand(I), &Scale = Inst.getOperand(I + 1),
                      &Index = Inst.getOperand(I + 2), &Disp = Inst.getOperand(I + 3),
                      &Seg = Inst.getOperand(I + 4);
      if (!Base.isReg() || !Scale.isImm() || !Index.isReg() || !Disp.isImm() ||
          !Seg.isReg())
        continue;
      int64_t S = Scale.getImm();
      if (S != 1 && S != 2 && S != 4 && S != 8)
        continue;
      auto It = Bases.find(Base.getReg().id());
      if (It != Bases.end())
        return It->second + Disp.getImm();
    }
    return std::nullopt;
  }

  /// Update the tracked registers after \p Inst at \p I (whose fixed
  /// target, if any, is \p Target).
  void step(const InstInfo &I, const MCInst &Inst,
            std::optional<uint64_t> Target) {
    if (I.IsBranch || I.IsCall || I.IsReturn) {
      Bases.clear();
      return;
    }
    const MCInstrDesc &D = Bin.instrInfo().get(Inst.getOpcode());
    const MCRegisterInfo &MRI = Bin.registerInfo();
    auto Clobber = [&](MCRegister R) {
      for (auto It = Bases.begin(); It != Bases.end();)
        It = MRI.regsOverlap(MCRegister(It->first), R) ? Bases.erase(It)
                                                       : std::next(It);
    };
    for (unsigned J = 0; J < D.getNumDefs() && J < Inst.getNumOperands(); ++J)
      if (Inst.getOperand(J).isReg())
        Clobber(Inst.getOperand(J).getReg());
    for (MCPhysReg R : D.implicit_defs())
      Clobber(R);
    if (Target && Bin.instrInfo().getName(Inst.getOpcode()).starts_with("LEA") &&
        D.getNumDefs() == 1 && Inst.getOperand(0).isReg())
      Bases[Inst.getOperand(0).getReg().id()] = *Target;
  }

  void reset() { Bases.clear(); }

private:
  const Binary &Bin;
  std::map<unsigned, uint64_t> Bases;
};

} // namespace

Expected<std::vector<DataReference>>
collectDataReferences(const Binary &Bin, const AddressProfile &AP,
                      QualityReport &Quality) {
  // Executions per instruction address first: ranges overlap a lot, and
  // each instruction is then decoded once.
  std::map<uint64_t, int64_t> Delta; // range start: +N, past its end: -N
  for (const auto &[K, N] : AP.FallThroughs) {
    auto Next = Bin.nextInstruction(K.second);
    if (!Next || K.second < K.first) {
      if (!Next)
        consumeError(Next.takeError());
      Quality.count("fall-through ranges cannot be disassembled");
      continue;
    }
    Delta[K.first] += N;
    Delta[*Next] -= N;
  }
  std::map<std::tuple<uint64_t, bool>, uint64_t> Refs;
  BaseTracker Tracker(Bin);
  uint64_t DecodedEnd = 0;
  int64_t Running = 0;
  for (auto It = Delta.begin(); It != Delta.end(); ++It) {
    Running += It->second;
    auto Next = std::next(It);
    if (Running <= 0 || Next == Delta.end())
      continue;
    if (It->first != DecodedEnd)
      Tracker.reset();
    DecodedEnd = Next->first;
    uint64_t Count = Running;
    Error E = Bin.forEachInstruction(
        It->first, Next->first, [&](const InstInfo &I, const MCInst &Inst) {
          auto T = fixedTarget(Bin, I, Inst);
          auto Access = T ? T : Tracker.access(Inst);
          Tracker.step(I, Inst, T);
          if (!Access)
            return;
          bool Store = Bin.instrInfo().get(Inst.getOpcode()).mayStore();
          Refs[{*Access, Store}] += Count;
        });
    if (E) {
      consumeError(std::move(E));
      Tracker.reset();
      Quality.count("executed ranges do not decode as instructions");
    }
  }
  std::vector<DataReference> Out;
  for (const auto &[K, N] : Refs)
    Out.push_back({std::get<0>(K), N, std::get<1>(K)});
  return Out;
}

static const SymbolInfo *symbolAt(ArrayRef<SymbolInfo> Syms, uint64_t Addr) {
  auto It = llvm::upper_bound(
      Syms, Addr, [](uint64_t A, const SymbolInfo &S) { return A < S.Addr; });
  if (It == Syms.begin())
    return nullptr;
  const SymbolInfo &S = *std::prev(It);
  return Addr < S.Addr + std::max<uint64_t>(S.Size, 1) ? &S : nullptr;
}

static const SectionInfo *sectionOf(ArrayRef<SectionInfo> Sections,
                                    uint64_t Addr) {
  for (const SectionInfo &S : Sections)
    if (S.IsAlloc && Addr >= S.Addr && Addr < S.Addr + std::max<uint64_t>(S.Size, 1))
      return &S;
  return nullptr;
}

std::vector<HotDatum> rankHotData(ArrayRef<SymbolInfo> Syms,
                                  ArrayRef<SectionInfo> Sections,
                                  ArrayRef<DataReference> Refs,
                                  QualityReport &Quality) {
  std::map<const SymbolInfo *, HotDatum> ByName;
  for (const DataReference &R : Refs) {
    const SymbolInfo *S = symbolAt(Syms, R.Target);
    if (!S) {
      // GOT slots, string literals, jump tables: nothing to place by name.
      Quality.count("data references have no data symbol (GOT, literals)");
      continue;
    }
    const SectionInfo *Sec = sectionOf(Sections, S->Addr);
    std::optional<DataKind> Kind;
    if (Sec)
      Kind = dataKindOfSection(*Sec);
    if (!Kind) {
      Quality.count("data references go to sections the planner does not "
                    "move (relro, TLS, GOT)");
      continue;
    }
    HotDatum &D = ByName[S];
    if (D.Name.empty()) {
      D.Name = S->Name;
      D.File = S->IsLocal ? S->FileName : "";
      D.Section = Sec->Name;
      D.Kind = *Kind;
      D.Addr = S->Addr;
      D.Size = S->Size;
    }
    D.Weight += R.Count;
    D.Written |= R.IsStore;
  }
  std::vector<HotDatum> Out;
  for (auto &[S, D] : ByName)
    Out.push_back(std::move(D));
  // Address order from the map, so equal weights keep address order.
  llvm::stable_sort(Out, [](const HotDatum &A, const HotDatum &B) {
    return A.Weight > B.Weight;
  });
  return Out;
}

} // namespace keel
