//===- LinkedSizes.cpp - the packed hot parts as linked -------------------===//
#include "keel/Optimize/LinkedSizes.h"

#include "keel/Profile/Binary.h"
#include "keel/Support/Diagnostics.h"
#include "keel/Support/OutputFile.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace keel {
namespace optimize {

Expected<std::vector<PackedSize>> readSpacerSizes(StringRef Path) {
  Expected<std::string> Text = readWholeFile(Path);
  if (!Text)
    return Text.takeError();
  std::vector<PackedSize> Out;
  SmallVector<StringRef, 8> Lines;
  StringRef(*Text).split(Lines, '\n');
  for (size_t I = 0; I < Lines.size(); ++I) {
    StringRef L = Lines[I].trim();
    if (L.empty() || L.starts_with("#"))
      continue;
    SmallVector<StringRef, 4> F;
    L.split(F, ' ', -1, /*KeepEmpty=*/false);
    PackedSize P;
    if (F.size() != 4 || F[1].getAsInteger(10, P.Bytes))
      return inputError(Path, I + 1,
                        "expected '<symbol> <bytes> <source> <offset>', got "
                        "'{0}'",
                        L);
    P.Name = F[0].str();
    Out.push_back(std::move(P));
  }
  return Out;
}

Expected<LinkedSizes> measureLinkedSizes(StringRef Path,
                                         ArrayRef<PackedSize> Packed) {
  Expected<std::unique_ptr<Binary>> Bin = Binary::open(Path);
  if (!Bin)
    return Bin.takeError();
  StringMap<uint64_t> Size;
  for (const SymbolInfo &S : (*Bin)->functions())
    if (S.IsFunction)
      Size[S.Name] += S.Size;
  LinkedSizes L;
  for (const PackedSize &P : Packed) {
    auto It = Size.find(P.Name);
    if (It == Size.end() || It->second == 0) {
      ++L.Missing;
      continue;
    }
    L.Found.push_back({P.Name, It->second});
    L.Linked += It->second;
    L.Planned += P.Bytes;
    L.Same += It->second == P.Bytes;
  }
  return L;
}

void writeLinkedSizes(const LinkedSizes &L, StringRef Binary, raw_ostream &OS) {
  OS << "# layout-optimize --pack-linked-sizes: the symbol size of each packed "
        "function\n# in " << Binary << ", for layout-order --section-sizes.\n";
  for (const PackedSize &P : L.Found)
    OS << P.Name << ' ' << P.Bytes << '\n';
}

} // namespace optimize
} // namespace keel
