//===- CacheGeometry.cpp - cache sizes, ways, lines -----------------------===//
#include "keel/Support/CacheGeometry.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace keel {

std::string cacheLevelSpec(const CacheLevel &L) {
  return formatv("{0},{1},{2}", L.Size, L.Assoc, L.Line).str();
}

std::optional<CacheLevel> parseCacheLevelSpec(StringRef Spec) {
  SmallVector<StringRef, 3> F;
  Spec.split(F, ',');
  CacheLevel L;
  if (F.size() != 3 || F[0].trim().getAsInteger(10, L.Size) ||
      F[1].trim().getAsInteger(10, L.Assoc) ||
      F[2].trim().getAsInteger(10, L.Line))
    return std::nullopt;
  return L;
}

std::string geometryText(const CacheGeometry &G) {
  return formatv("I1={0} D1={1} LL={2}", cacheLevelSpec(G.I1),
                 cacheLevelSpec(G.D1), cacheLevelSpec(G.LL))
      .str();
}

CacheGeometry parseCacheGeometry(StringRef S) {
  CacheGeometry G;
  SmallVector<StringRef, 4> Parts;
  S.split(Parts, ' ', -1, /*KeepEmpty=*/false);
  for (StringRef P : Parts) {
    auto [Name, Spec] = P.split('=');
    std::optional<CacheLevel> L = parseCacheLevelSpec(Spec);
    if (!L)
      continue;
    if (Name == "I1")
      G.I1 = *L;
    else if (Name == "D1")
      G.D1 = *L;
    else if (Name == "LL")
      G.LL = *L;
  }
  return G;
}

} // namespace keel
