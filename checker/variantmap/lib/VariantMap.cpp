//===- VariantMap.cpp - a variant as a map of the base binary's bytes -----===//
#include "keel/VariantMap/VariantMap.h"

#include "keel/Support/Diagnostics.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Object/ELF.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <map>
#include <tuple>

using namespace llvm;

namespace keel {
namespace sweep {

namespace {
struct Section {
  uint64_t Addr = 0, Size = 0;
  StringRef Bytes; // empty for NOBITS
};

struct Symbol {
  uint64_t Addr = 0, Size = 0;
};

/// What deriveVariantMap needs of one executable.
struct Layout {
  std::map<std::string, Section> Sections; // allocated, by name
  uint64_t Lo = UINT64_MAX, End = 0;       // extent of the allocated sections
  /// (name, rank among symbols of that name) -> symbol; defined function and
  /// object symbols with a size.
  std::map<std::pair<std::string, unsigned>, Symbol> Symbols;
  object::OwningBinary<object::ObjectFile> Owner;
};
} // namespace

static Expected<Layout> readLayout(StringRef Path) {
  Expected<object::OwningBinary<object::ObjectFile>> O =
      object::ObjectFile::createObjectFile(Path);
  if (!O) {
    consumeError(O.takeError());
    return inputError(Path, 0, "not an ELF executable");
  }
  auto *Elf = dyn_cast<object::ELF64LEObjectFile>(O->getBinary());
  if (!Elf)
    return inputError(Path, 0, "keel-sim maps 64-bit little-endian ELF only");
  Layout L;
  for (object::ELFSectionRef S : Elf->sections()) {
    if (!(S.getFlags() & ELF::SHF_ALLOC) || S.getSize() == 0)
      continue;
    Expected<StringRef> Name = S.getName();
    if (!Name)
      return Name.takeError();
    StringRef Bytes;
    if (S.getType() != ELF::SHT_NOBITS) {
      Expected<StringRef> C = S.getContents();
      if (!C)
        return C.takeError();
      Bytes = *C;
    }
    if (!L.Sections.emplace(Name->str(),
                            Section{S.getAddress(), S.getSize(), Bytes})
             .second)
      return inputError(Path, 0, "two allocated sections named '{0}'", *Name);
    L.Lo = std::min(L.Lo, S.getAddress());
    L.End = std::max(L.End, S.getAddress() + S.getSize());
  }
  if (L.Sections.empty())
    return inputError(Path, 0, "no allocated sections");
  std::map<std::string, unsigned> Rank;
  for (const object::ELFSymbolRef &Sym : Elf->symbols()) {
    uint8_t Type = Sym.getELFType();
    if (Type != ELF::STT_FUNC && Type != ELF::STT_OBJECT)
      continue;
    Expected<object::section_iterator> Sec = Sym.getSection();
    if (!Sec) {
      consumeError(Sec.takeError());
      continue;
    }
    if (*Sec == Elf->section_end() || Sym.getSize() == 0)
      continue;
    Expected<StringRef> Name = Sym.getName();
    Expected<uint64_t> Addr = Sym.getAddress();
    if (!Name || !Addr) {
      if (!Name)
        consumeError(Name.takeError());
      if (!Addr)
        consumeError(Addr.takeError());
      continue;
    }
    unsigned R = Rank[Name->str()]++;
    L.Symbols[{Name->str(), R}] = Symbol{*Addr, Sym.getSize()};
  }
  L.Owner = std::move(*O);
  return std::move(L);
}

Expected<ExeExtent> exeExtent(StringRef Base) {
  Expected<Layout> L = readLayout(Base);
  if (!L)
    return L.takeError();
  return ExeExtent{L->Lo, L->End};
}

/// Adds [Lo, Hi) -> Offset unless an equal range is there; an overlap with a
/// different offset, or a partial overlap, is an error.
static Error addRange(std::vector<MapRange> &Out, MapRange R, StringRef What) {
  for (const MapRange &X : Out) {
    if (R.Hi <= X.Lo || X.Hi <= R.Lo)
      continue;
    if (X.Offset != R.Offset)
      return makeError("{0} [{1:x}, {2:x}) moves by {3} but overlaps a range "
                       "that moves by {4}",
                       What, R.Lo, R.Hi, R.Offset, X.Offset);
  }
  Out.push_back(R);
  return Error::success();
}

/// Sorted, overlaps of equal offsets merged.
static std::vector<MapRange> normalise(std::vector<MapRange> In) {
  llvm::sort(In, [](const MapRange &A, const MapRange &B) {
    return std::tie(A.Lo, A.Hi) < std::tie(B.Lo, B.Hi);
  });
  std::vector<MapRange> Out;
  for (const MapRange &R : In) {
    if (!Out.empty() && R.Lo <= Out.back().Hi && R.Offset == Out.back().Offset) {
      Out.back().Hi = std::max(Out.back().Hi, R.Hi);
      continue;
    }
    Out.push_back(R);
  }
  return Out;
}

/// Bytes of a resized section that no sized symbol covers (start-up code
/// whose symbols have no size, alignment between functions). A gap between
/// two ranges that move by the same offset moves with them: the variant has
/// a gap of the same length there, between the same symbols, so the linker
/// put the same input sections in it (their bytes may differ only where
/// they address data that moved, and those addresses are mapped too). A gap
/// at the section's start or end moves with its one neighbour only when the
/// variant has the very same bytes there.
static Error fillGaps(std::vector<MapRange> &Ranges, const Section &S,
                      const Section &VS) {
  std::vector<MapRange> In;
  for (const MapRange &R : Ranges)
    if (R.Lo >= S.Addr && R.Hi <= S.Addr + S.Size)
      In.push_back(R);
  In = normalise(std::move(In));
  std::vector<MapRange> Gaps;
  for (size_t I = 0; I <= In.size(); ++I) {
    uint64_t Lo = I == 0 ? S.Addr : In[I - 1].Hi;
    uint64_t Hi = I == In.size() ? S.Addr + S.Size : In[I].Lo;
    if (Lo >= Hi || In.empty())
      continue;
    int64_t Off;
    bool Edge = I == 0 || I == In.size();
    if (I == 0)
      Off = In[0].Offset;
    else if (I == In.size())
      Off = In.back().Offset;
    else if (In[I - 1].Offset == In[I].Offset)
      Off = In[I].Offset;
    else
      continue;
    uint64_t VLo = uint64_t(int64_t(Lo) + Off);
    if (VLo < VS.Addr || VLo + (Hi - Lo) > VS.Addr + VS.Size)
      continue;
    if (Edge && !S.Bytes.empty() &&
        (VS.Bytes.empty() ||
         S.Bytes.substr(Lo - S.Addr, Hi - Lo) !=
             VS.Bytes.substr(VLo - VS.Addr, Hi - Lo)))
      continue;
    Gaps.push_back({Lo, Hi, Off});
  }
  for (const MapRange &G : Gaps)
    if (Error E = addRange(Ranges, G, "gap"))
      return E;
  return Error::success();
}

Expected<VariantMap> deriveVariantMap(StringRef BasePath, StringRef VarPath,
                                      StringRef Name) {
  Expected<Layout> B = readLayout(BasePath);
  if (!B)
    return B.takeError();
  Expected<Layout> V = readLayout(VarPath);
  if (!V)
    return V.takeError();
  VariantMap M;
  M.Name = Name.str();
  for (const auto &[SecName, S] : V->Sections)
    if (!B->Sections.count(SecName))
      return makeError("{0}: section '{1}' is not in the base {2}", VarPath,
                       SecName, BasePath);
  std::vector<MapRange> Ranges;
  for (const auto &[SecName, S] : B->Sections) {
    auto It = V->Sections.find(SecName);
    if (It == V->Sections.end())
      return makeError("{0}: no section '{1}' (the base {2} has one)", VarPath,
                       SecName, BasePath);
    const Section &VS = It->second;
    // Whole only when every symbol in it moved with it: the same functions
    // in another order keep the section's size.
    int64_t SecOff = int64_t(VS.Addr) - int64_t(S.Addr);
    const Section &BS = S; // a lambda captures no binding (C++17)
    bool SymbolsMoveWith = llvm::all_of(B->Symbols, [&](const auto &KS) {
      const Symbol &Sym = KS.second;
      if (Sym.Addr < BS.Addr || Sym.Addr >= BS.Addr + BS.Size)
        return true;
      auto VIt = V->Symbols.find(KS.first);
      return VIt != V->Symbols.end() && VIt->second.Size == Sym.Size &&
             int64_t(VIt->second.Addr) - int64_t(Sym.Addr) == SecOff;
    });
    if (VS.Size == S.Size && SymbolsMoveWith) {
      if (Error E = addRange(Ranges,
                             {S.Addr, S.Addr + S.Size,
                              int64_t(VS.Addr) - int64_t(S.Addr)},
                             "section " + SecName))
        return std::move(E);
      continue;
    }
    // The section changed size or order: move its symbols one by one.
    for (const auto &[Key, Sym] : B->Symbols) {
      if (Sym.Addr < S.Addr || Sym.Addr >= S.Addr + S.Size)
        continue;
      auto VIt = V->Symbols.find(Key);
      if (VIt == V->Symbols.end())
        return makeError("{0}: no symbol '{1}' (#{2}) of section {3}", VarPath,
                         Key.first, Key.second, SecName);
      if (VIt->second.Size != Sym.Size)
        return makeError("{0}: symbol '{1}' has {2} bytes, {3} in the base",
                         VarPath, Key.first, VIt->second.Size, Sym.Size);
      uint64_t Hi = std::min(Sym.Addr + Sym.Size, S.Addr + S.Size);
      if (Error E = addRange(Ranges,
                             {Sym.Addr, Hi,
                              int64_t(VIt->second.Addr) - int64_t(Sym.Addr)},
                             "symbol " + Key.first))
        return std::move(E);
      ++M.SymbolRanges;
    }
    if (Error E = fillGaps(Ranges, S, VS))
      return std::move(E);
  }
  // The heap: brk starts at the page after the executable's last byte.
  uint64_t BaseBrk = alignTo(B->End, 4096), VarBrk = alignTo(V->End, 4096);
  if (Error E = addRange(Ranges,
                         {BaseBrk, BaseBrk + (8u << 20),
                          int64_t(VarBrk) - int64_t(BaseBrk)},
                         "the heap"))
    return std::move(E);
  M.Ranges = normalise(std::move(Ranges));
  return std::move(M);
}

void writeKeelSimMap(raw_ostream &OS, const ExeExtent &E,
                     const std::vector<VariantMap> &Maps) {
  OS << "# keel-sim address maps (written by Keel; docs/keel-sim.md)\n";
  OS << formatv("exe {0:x} {1:x}\n", E.Lo, E.Hi);
  for (const VariantMap &M : Maps) {
    OS << "variant " << M.Name << "\n";
    for (const MapRange &R : M.Ranges) // offset 0 too: it says "covered"
      OS << formatv("range {0:x} {1:x} {2}\n", R.Lo, R.Hi, R.Offset);
  }
}

} // namespace sweep
} // namespace keel
