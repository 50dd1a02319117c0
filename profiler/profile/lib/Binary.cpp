//===- Binary.cpp - an ELF binary seen through LLVM Object and MC ---------===//
#include "keel/Profile/Binary.h"
#include "keel/Support/Diagnostics.h"
#include "keel/Support/Input.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCDisassembler/MCDisassembler.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstrAnalysis.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/MCTargetOptions.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Object/BuildID.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TargetSelect.h"

#include <mutex>
#include <optional>

using namespace llvm;
using namespace llvm::object;

namespace keel {

Binary::~Binary() = default;

Expected<std::unique_ptr<Binary>> Binary::open(StringRef Path) {
  // A regular file, mapped (a FIFO or /dev/zero given as the binary must
  // neither hang nor fill memory).
  auto MB = readInputFile(Path, InputKind::Binary);
  if (!MB)
    return handleErrors(MB.takeError(), [&](const InputError &E) {
      StringRef Why = E.detail();
      Why.consume_front("cannot read: ");
      return inputError(Path, 0, "cannot open binary: {0}", Why);
    });
  auto OB = ObjectFile::createObjectFile((*MB)->getMemBufferRef());
  if (!OB)
    return handleErrors(OB.takeError(), [&](const ErrorInfoBase &E) {
      return inputError(Path, 0, "cannot open binary: {0}", E.message());
    });
  std::unique_ptr<Binary> B(new Binary());
  B->Path = Path.str();
  B->Owner = OwningBinary<ObjectFile>(std::move(*OB), std::move(*MB));
  B->Obj = B->Owner.getBinary();
  if (!isa<ELF64LEObjectFile>(B->Obj))
    return inputError(Path, 0, "not a 64-bit little-endian ELF file");
  if (Error E = B->index())
    return std::move(E);
  if (Error E = B->initDisassembler())
    return std::move(E);
  B->addPLTEntries();
  return std::move(B);
}

/// Every section of \p Obj, in section-header order.
static std::vector<SectionInfo> readSections(const ELF64LEObjectFile &Obj) {
  std::vector<SectionInfo> Sections;
  for (ELFSectionRef S : Obj.sections()) {
    SectionInfo SI;
    if (auto N = S.getName())
      SI.Name = N->str();
    else
      consumeError(N.takeError());
    SI.Addr = S.getAddress();
    SI.Size = S.getSize();
    SI.FileOffset = S.getOffset();
    SI.IsAlloc = S.getFlags() & ELF::SHF_ALLOC;
    SI.IsExec = S.getFlags() & ELF::SHF_EXECINSTR;
    SI.IsWrite = S.getFlags() & ELF::SHF_WRITE;
    SI.IsBSS = S.getType() == ELF::SHT_NOBITS;
    Sections.push_back(std::move(SI));
  }
  return Sections;
}

/// \p Sym as a function or data symbol (without its file and BOLT name),
/// or nullopt when it is neither.
static std::optional<SymbolInfo> symbolInfo(const ELFSymbolRef &Sym,
                                            const ObjectFile &Obj) {
  uint8_t Type = Sym.getELFType();
  // Sized untyped symbols in code are the parts clang splits off a
  // function (-fbasic-block-sections, -fsplit-machine-functions:
  // "name.cold", "name.__part.N"): code that runs, so functions here.
  bool CodePart = Type == ELF::STT_NOTYPE && Sym.getSize() > 0;
  if (Type != ELF::STT_FUNC && Type != ELF::STT_OBJECT &&
      Type != ELF::STT_GNU_IFUNC && !CodePart)
    return std::nullopt;
  auto Name = Sym.getName();
  auto Addr = Sym.getAddress();
  auto Sec = Sym.getSection();
  if (!Name || !Addr || !Sec || *Sec == Obj.section_end() || Name->empty() ||
      (CodePart && !(*Sec)->isText())) {
    if (!Name) consumeError(Name.takeError());
    if (!Addr) consumeError(Addr.takeError());
    if (!Sec) consumeError(Sec.takeError());
    return std::nullopt;
  }
  SymbolInfo SI;
  SI.Name = Name->str();
  SI.Addr = *Addr;
  SI.Size = Sym.getSize();
  SI.IsLocal = Sym.getBinding() == ELF::STB_LOCAL;
  SI.IsWeak = Sym.getBinding() == ELF::STB_WEAK;
  SI.IsFunction = Type != ELF::STT_OBJECT;
  if (auto SN = (*Sec)->getName())
    SI.Section = SN->str();
  else
    consumeError(SN.takeError());
  return SI;
}

/// The function and data symbols of .symtab (else .dynsym), in symbol-table
/// order. STT_FILE names the file of the local symbols that follow it.
static void readSymbols(const ELF64LEObjectFile &Obj,
                        std::vector<SymbolInfo> &Functions,
                        std::vector<SymbolInfo> &DataSymbols) {
  auto Syms = Obj.symbols();
  bool HaveSymtab = Syms.begin() != Syms.end();
  std::string CurFile;
  std::map<std::string, unsigned> LocalCounts;
  auto Visit = [&](const ELFSymbolRef &Sym) {
    if (Sym.getELFType() == ELF::STT_FILE) {
      auto N = Sym.getName();
      CurFile = N ? N->str() : "";
      if (!N)
        consumeError(N.takeError());
      return;
    }
    std::optional<SymbolInfo> SI = symbolInfo(Sym, Obj);
    if (!SI)
      return;
    if (SI->IsLocal) {
      SI->FileName = CurFile;
      SI->BoltName = SI->Name + "/" + std::to_string(++LocalCounts[SI->Name]);
    } else {
      SI->BoltName = SI->Name;
    }
    (SI->IsFunction ? Functions : DataSymbols).push_back(std::move(*SI));
  };
  if (HaveSymtab)
    for (const ELFSymbolRef &Sym : Syms)
      Visit(Sym);
  else
    for (const ELFSymbolRef &Sym : Obj.getDynamicSymbolIterators())
      Visit(Sym);
}

/// Whether \p Structor is \p Name with one Itanium C1/D1 (complete-object
/// constructor/destructor) replaced by C2/D2 (base-object).
static bool isBaseObjectTwin(StringRef Name, StringRef Structor) {
  if (!Name.starts_with("_Z") || Name.size() != Structor.size())
    return false;
  for (size_t I = 0; I + 1 < Name.size(); ++I)
    if ((Name[I] == 'C' || Name[I] == 'D') && Name[I + 1] == '1' &&
        Structor[I] == Name[I] && Structor[I + 1] == '2' &&
        Name.substr(0, I) == Structor.substr(0, I) &&
        Name.substr(I + 2) == Structor.substr(I + 2))
      return true;
  return false;
}

/// Of the aliases at one address (\p Run, sorted), put first the one to
/// keep. clang emits a C1 constructor or D1 destructor as an alias of its C2
/// or D2 (-mconstructor-aliases, the default on ELF): the function, its
/// section (.text.<C2 name> with -ffunction-sections) and its split part
/// (<C2 name>.cold) are named by C2, and -fbasic-block-sections=list,
/// linker-script section names and lld's order file only match that name.
static void chooseAlias(MutableArrayRef<SymbolInfo> Run) {
  for (size_t I = 1; I < Run.size(); ++I)
    if (Run[I].IsLocal == Run[0].IsLocal &&
        isBaseObjectTwin(Run[0].Name, Run[I].Name)) {
      std::rotate(Run.begin(), Run.begin() + I, Run.begin() + I + 1);
      return;
    }
}

/// Sort by address; among aliases keep globals before locals, then by name
/// (C2/D2 before their C1/D1 alias, chooseAlias), so the choice is
/// deterministic. Drop exact aliases of functions into \p Aliases.
static void sortByAddress(std::vector<SymbolInfo> &Functions,
                          std::vector<SymbolInfo> &DataSymbols,
                          std::vector<std::pair<SymbolInfo, uint64_t>> &Aliases) {
  auto Order = [](const SymbolInfo &A, const SymbolInfo &B) {
    return std::tie(A.Addr, A.IsLocal, A.Name) <
           std::tie(B.Addr, B.IsLocal, B.Name);
  };
  llvm::stable_sort(Functions, Order);
  llvm::stable_sort(DataSymbols, Order);
  std::vector<SymbolInfo> Kept;
  for (size_t I = 0, E; I < Functions.size(); I = E) {
    for (E = I + 1; E < Functions.size() && Functions[E].Addr == Functions[I].Addr;)
      ++E;
    chooseAlias(MutableArrayRef<SymbolInfo>(Functions).slice(I, E - I));
    Kept.push_back(std::move(Functions[I]));
    for (size_t A = I + 1; A < E; ++A)
      Aliases.emplace_back(std::move(Functions[A]), Kept.back().Addr);
  }
  Functions = std::move(Kept);
}

/// Size-0 functions (_init, _fini, hand-written asm) run to the next
/// function or the end of their section, whichever comes first.
static void sizeUnsizedFunctions(
    std::vector<SymbolInfo> &Functions,
    function_ref<const SectionInfo *(uint64_t)> SectionAt) {
  for (size_t I = 0; I < Functions.size(); ++I) {
    SymbolInfo &F = Functions[I];
    if (F.Size || !F.IsFunction)
      continue;
    const SectionInfo *Sec = SectionAt(F.Addr);
    if (!Sec || !Sec->IsExec)
      continue;
    uint64_t End = Sec->Addr + Sec->Size;
    if (I + 1 < Functions.size())
      End = std::min(End, Functions[I + 1].Addr);
    F.Size = End - F.Addr;
  }
}

std::string Binary::buildIDOfFile(StringRef Path) {
  // Never opened unless regular: a FIFO or a device would block or stream.
  if (!sys::fs::is_regular_file(Path))
    return "";
  auto Obj = object::ObjectFile::createObjectFile(Path);
  if (!Obj) {
    consumeError(Obj.takeError());
    return "";
  }
  return toHex(object::getBuildID(Obj->getBinary()), /*LowerCase=*/true);
}

Error Binary::index() {
  auto *ELFObj = cast<ELF64LEObjectFile>(Obj);
  const auto &ELF = ELFObj->getELFFile();
  IsPIE = ELF.getHeader().e_type == ELF::ET_DYN;
  BuildID = toHex(getBuildID(Obj), /*LowerCase=*/true);

  auto Phdrs = ELF.program_headers();
  if (!Phdrs)
    return inputError(Path, 0, "bad program headers: {0}",
                      toString(Phdrs.takeError()));
  BaseAddr = UINT64_MAX;
  for (const auto &P : *Phdrs)
    if (P.p_type == ELF::PT_LOAD) {
      Segments.push_back({P.p_vaddr, P.p_memsz, P.p_offset, P.p_filesz,
                          bool(P.p_flags & ELF::PF_X)});
      BaseAddr = std::min<uint64_t>(BaseAddr, P.p_vaddr);
    }
  if (BaseAddr == UINT64_MAX)
    BaseAddr = 0;

  Sections = readSections(*ELFObj);
  readSymbols(*ELFObj, Functions, DataSymbols);
  sortByAddress(Functions, DataSymbols, Aliases);
  sizeUnsizedFunctions(Functions,
                       [this](uint64_t Addr) { return sectionAt(Addr); });
  indexNames();
  return Error::success();
}

void Binary::indexNames() {
  FunctionByName.clear();
  FunctionByBoltName.clear();
  for (size_t I = 0; I < Functions.size(); ++I) {
    FunctionByName.try_emplace(Functions[I].Name, I);
    FunctionByBoltName.try_emplace(Functions[I].BoltName, I);
  }
  for (const auto &[Alias, Addr] : Aliases) {
    const SymbolInfo *F = functionAt(Addr);
    if (!F || F->Addr != Addr)
      continue;
    size_t I = F - Functions.data();
    FunctionByName.try_emplace(Alias.Name, I);
    FunctionByBoltName.try_emplace(Alias.BoltName, I);
  }
}

/// GOT slot -> symbol name, from the dynamic relocations that fill slots
/// (JUMP_SLOT in .rela.plt, GLOB_DAT in .rela.dyn for .plt.got entries).
static std::map<uint64_t, std::string> gotSlots(const ObjectFile &Obj) {
  std::map<uint64_t, std::string> Slots;
  for (const SectionRef &Sec : Obj.sections())
    for (const RelocationRef &R : Sec.relocations()) {
      auto Sym = R.getSymbol();
      if (Sym == Obj.symbol_end())
        continue;
      auto Name = Sym->getName();
      if (!Name) {
        consumeError(Name.takeError());
        continue;
      }
      if (!Name->empty())
        Slots.emplace(R.getOffset(), Name->str());
    }
  return Slots;
}

void Binary::addPLTEntries() {
  std::map<uint64_t, std::string> Slots;
  bool HaveSlots = false;
  std::vector<SymbolInfo> Entries;
  for (const SectionInfo &Sec : Sections) {
    if (!Sec.IsExec || !StringRef(Sec.Name).starts_with(".plt"))
      continue;
    if (!HaveSlots) {
      Slots = gotSlots(*Obj);
      HaveSlots = true;
    }
    size_t First = Entries.size();
    uint64_t Prev = 0;
    bool PrevIsEndbr = false;
    Error E = forEachInstruction(
        Sec.Addr, Sec.Addr + Sec.Size, [&](const InstInfo &I, const MCInst &MI) {
          uint64_t Slot;
          bool IsEndbr = MII->getName(MI.getOpcode()).starts_with("ENDBR");
          if (I.IsBranch && I.IsIndirect &&
              MIA->evaluateMemoryOperandAddress(MI, STI.get(), I.Addr, I.Size)
                  .has_value()) {
            Slot = *MIA->evaluateMemoryOperandAddress(MI, STI.get(), I.Addr,
                                                      I.Size);
            auto It = Slots.find(Slot);
            if (It != Slots.end()) {
              SymbolInfo S;
              S.Addr = PrevIsEndbr ? Prev : I.Addr;
              S.Name = It->second + "@plt";  // as objdump labels it
              S.BoltName = It->second + "@PLT"; // as BOLT names it
              S.IsFunction = true;
              S.Section = Sec.Name;
              Entries.push_back(std::move(S));
            }
          }
          Prev = I.Addr;
          PrevIsEndbr = IsEndbr;
        });
    consumeError(std::move(E)); // undecodable padding: keep what we found
    // An entry runs to the next one (its lazy-binding push/jmp included).
    for (size_t I = First; I < Entries.size(); ++I)
      Entries[I].Size = (I + 1 < Entries.size() ? Entries[I + 1].Addr
                                                 : Sec.Addr + Sec.Size) -
                        Entries[I].Addr;
  }
  if (Entries.empty())
    return;
  for (SymbolInfo &S : Entries)
    if (!functionAt(S.Addr) || functionAt(S.Addr)->Addr != S.Addr)
      Functions.push_back(std::move(S));
  llvm::stable_sort(Functions, [](const SymbolInfo &A, const SymbolInfo &B) {
    return std::tie(A.Addr, A.IsLocal, A.Name) <
           std::tie(B.Addr, B.IsLocal, B.Name);
  });
  indexNames();
}

Error Binary::initDisassembler() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    InitializeAllTargetInfos();
    InitializeAllTargetMCs();
    InitializeAllDisassemblers();
  });
  Triple TT = Obj->makeTriple();
  std::string Err;
  const Target *T = TargetRegistry::lookupTarget(TT, Err);
  if (!T)
    return inputError(Path, 0, "no disassembler for {0}: {1}", TT.str(), Err);
  MRI.reset(T->createMCRegInfo(TT));
  MCTargetOptions MCOpts;
  MAI.reset(T->createMCAsmInfo(*MRI, TT, MCOpts));
  STI.reset(T->createMCSubtargetInfo(TT, "", ""));
  MII.reset(T->createMCInstrInfo());
  if (!MRI || !MAI || !STI || !MII)
    return inputError(Path, 0, "cannot set up LLVM MC for {0}", TT.str());
  Ctx = std::make_unique<MCContext>(TT, MAI.get(), MRI.get(), STI.get());
  DisAsm.reset(T->createMCDisassembler(*STI, *Ctx));
  MIA.reset(T->createMCInstrAnalysis(MII.get()));
  if (!DisAsm || !MIA)
    return inputError(Path, 0, "cannot create a disassembler for {0}",
                      TT.str());
  return Error::success();
}

uint64_t Binary::loadBias(uint64_t MapStart, uint64_t PgOff) const {
  // The kernel maps each PT_LOAD from its file offset rounded down to a
  // page, so the pgoff of a code mapping can also lie in the segment before
  // it: lld puts the read-only and the executable segment in one file page,
  // and both mappings then have pgoff 0. The mappings asked about are
  // code (perf's executable MMAP events), so executable segments win.
  const LoadSegment *Best = nullptr;
  for (const LoadSegment &S : Segments) {
    uint64_t PageStart = S.Offset & ~uint64_t(0xfff);
    if (PgOff >= PageStart &&
        PgOff < S.Offset + std::max<uint64_t>(S.FileSize, 1) &&
        (!Best || (S.Exec && !Best->Exec)))
      Best = &S;
  }
  if (Best)
    return MapStart - (Best->VAddr - Best->Offset + PgOff);
  return MapStart - BaseAddr;
}

template <typename Vec>
static const SymbolInfo *lookupSymbol(const Vec &Syms, uint64_t Addr) {
  auto It = llvm::upper_bound(
      Syms, Addr, [](uint64_t A, const SymbolInfo &S) { return A < S.Addr; });
  if (It == Syms.begin())
    return nullptr;
  const SymbolInfo &S = *std::prev(It);
  if (S.Size ? Addr < S.Addr + S.Size
             : (It == Syms.end() || Addr < It->Addr))
    return &S;
  return nullptr;
}

const SymbolInfo *Binary::functionAt(uint64_t Addr) const {
  const SymbolInfo *S = lookupSymbol(Functions, Addr);
  // A size-0 symbol (_init, hand-written asm) covers at most the rest of
  // its own section: not the .plt that follows .init.
  if (S && !S->Size) {
    const SectionInfo *Sec = sectionAt(Addr);
    if (!Sec || !Sec->IsExec || Sec->Name != S->Section)
      return nullptr;
  }
  return S;
}

const SymbolInfo *Binary::dataAt(uint64_t Addr) const {
  return lookupSymbol(DataSymbols, Addr);
}

const SymbolInfo *Binary::functionByBoltName(StringRef Name) const {
  auto It = FunctionByBoltName.find(Name.str());
  if (It != FunctionByBoltName.end())
    return &Functions[It->second];
  return functionNamed(Name);
}

const SymbolInfo *Binary::functionNamed(StringRef Name) const {
  auto It = FunctionByName.find(Name.str());
  if (It != FunctionByName.end())
    return &Functions[It->second];
  // BOLT's "name/N" and our "file:name" spellings for locals.
  auto [Base, Suffix] = Name.rsplit('/');
  if (!Suffix.empty() && llvm::all_of(Suffix, isDigit))
    if ((It = FunctionByName.find(Base.str())) != FunctionByName.end())
      return &Functions[It->second];
  auto [File, Local] = Name.split(':');
  if (!Local.empty())
    for (const SymbolInfo &S : Functions)
      if (S.Name == Local && S.FileName == File)
        return &S;
  return nullptr;
}

const SectionInfo *Binary::sectionAt(uint64_t Addr) const {
  for (const SectionInfo &S : Sections)
    if (S.IsAlloc && Addr >= S.Addr && Addr < S.Addr + S.Size)
      return &S;
  return nullptr;
}

bool Binary::isExecutableAddress(uint64_t Addr) const {
  const SectionInfo *S = sectionAt(Addr);
  return S && S->IsExec;
}

Expected<ArrayRef<uint8_t>> Binary::bytesAt(uint64_t Addr,
                                            uint64_t Size) const {
  const SectionInfo *S = sectionAt(Addr);
  if (!S || S->IsBSS)
    return inputError(Path, 0, "address {0:x} is not in a file-backed section",
                      Addr);
  uint64_t Avail = S->Addr + S->Size - Addr;
  Size = std::min(Size, Avail);
  StringRef Data = Obj->getData();
  uint64_t Off = S->FileOffset + (Addr - S->Addr);
  if (Off + Size > Data.size())
    return inputError(Path, 0, "section {0} extends past the end of the file",
                      S->Name);
  return ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(Data.data()) + Off, Size);
}

static InstInfo analyze(const MCInstrAnalysis &MIA, const MCInstrInfo &MII,
                        const MCInst &Inst, uint64_t Addr, uint64_t Size) {
  InstInfo I;
  I.Addr = Addr;
  I.Size = Size;
  I.IsCall = MIA.isCall(Inst);
  I.IsReturn = MIA.isReturn(Inst);
  I.IsBranch = MIA.isBranch(Inst);
  I.IsConditional = MIA.isConditionalBranch(Inst);
  I.IsIndirect = MIA.isIndirectBranch(Inst) ||
                 (I.IsCall && !MII.get(Inst.getOpcode()).operands().empty() &&
                  !Inst.getOperand(0).isImm());
  uint64_t Target;
  if ((I.IsBranch || I.IsCall) && MIA.evaluateBranch(Inst, Addr, Size, Target))
    I.Target = Target;
  return I;
}

Expected<InstInfo> Binary::instructionAt(uint64_t Addr) const {
  auto It = InstCache.find(Addr);
  if (It != InstCache.end())
    return It->second;
  if (!isExecutableAddress(Addr))
    return inputError(Path, 0, "address {0:x} is not in executable code",
                      Addr);
  auto Bytes = bytesAt(Addr, 16);
  if (!Bytes)
    return Bytes.takeError();
  MCInst Inst;
  uint64_t Size = 0;
  if (DisAsm->getInstruction(Inst, Size, *Bytes, Addr, nulls()) !=
          MCDisassembler::Success ||
      Size == 0)
    return inputError(Path, 0, "cannot decode an instruction at {0:x}", Addr);
  InstInfo I = analyze(*MIA, *MII, Inst, Addr, Size);
  InstCache.emplace(Addr, I);
  return I;
}

Expected<uint64_t> Binary::nextInstruction(uint64_t Addr) const {
  auto I = instructionAt(Addr);
  if (!I)
    return I.takeError();
  return Addr + I->Size;
}

Error Binary::forEachInstruction(
    uint64_t Start, uint64_t End,
    function_ref<void(const InstInfo &, const MCInst &)> Fn) const {
  if (End < Start)
    return inputError(Path, 0, "empty range {0:x}..{1:x}", Start, End);
  if (!isExecutableAddress(Start))
    return inputError(Path, 0, "address {0:x} is not in executable code",
                      Start);
  auto Bytes = bytesAt(Start, End - Start);
  if (!Bytes)
    return Bytes.takeError();
  uint64_t Off = 0;
  while (Off < Bytes->size()) {
    MCInst Inst;
    uint64_t Size = 0;
    if (DisAsm->getInstruction(Inst, Size, Bytes->slice(Off), Start + Off,
                               nulls()) != MCDisassembler::Success ||
        Size == 0)
      return inputError(Path, 0, "cannot decode an instruction at {0:x}",
                        Start + Off);
    Fn(analyze(*MIA, *MII, Inst, Start + Off, Size), Inst);
    Off += Size;
  }
  return Error::success();
}

Expected<uint64_t> Binary::countInstructions(uint64_t Start,
                                             uint64_t Last) const {
  if (Last < Start)
    return inputError(Path, 0, "range {0:x}..{1:x} runs backwards", Start,
                      Last);
  uint64_t N = 0, Addr = Start;
  while (Addr <= Last) {
    auto I = instructionAt(Addr);
    if (!I)
      return I.takeError();
    ++N;
    if (Addr == Last)
      return N;
    Addr += I->Size;
  }
  return inputError(Path, 0,
                    "range {0:x}..{1:x} does not end on an instruction boundary",
                    Start, Last);
}

} // namespace keel
