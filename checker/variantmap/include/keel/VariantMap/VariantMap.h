//===- keel/VariantMap/VariantMap.h - a variant as a map of the base's bytes -*- C++ -*-===//
//
// keel-sim (docs/keel-sim.md) simulates a variant of a program from one
// execution of the base binary when the variant executes the same
// instructions with its bytes elsewhere: a code or data pad, a different
// order of the same functions. deriveVariantMap compares the two ELF files
// and describes where each byte of the base lives in the variant:
//
//  - an allocated section of the same name and size in both moves whole;
//  - a section whose size changed (a pad merged into .text) moves symbol by
//    symbol: every defined function and object symbol of the base needs one
//    in the variant with the same name, size and rank among same-named
//    symbols; bytes no symbol covers get no range (keel-sim counts accesses
//    to them, and such a variant falls back to a run of its own binary);
//  - the heap (valgrind puts brk at the page after the executable's last
//    byte, and lets it grow 8 MB) moves by the change of that page.
//
// Anything else (a section only one of them has, a symbol missing or
// resized, ranges that disagree) is an error: the variant is not a map of
// the base, and needs its own run.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_VARIANTMAP_VARIANTMAP_H
#define KEEL_VARIANTMAP_VARIANTMAP_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <vector>

namespace keel {
namespace sweep {

struct MapRange {
  uint64_t Lo = 0, Hi = 0; ///< base file addresses, [Lo, Hi)
  int64_t Offset = 0;      ///< variant address - base address
};

struct VariantMap {
  std::string Name;
  std::vector<MapRange> Ranges; ///< sorted by Lo, disjoint, Offset != 0 or not
  unsigned SymbolRanges = 0;    ///< ranges that came from symbols
};

/// The base binary's loaded extent [Lo, Hi): keel-sim's `exe` line.
struct ExeExtent {
  uint64_t Lo = 0, Hi = 0;
};

llvm::Expected<ExeExtent> exeExtent(llvm::StringRef Base);

/// Where each byte of Base lives in Variant; an error says why the variant
/// is not a map of the base.
llvm::Expected<VariantMap> deriveVariantMap(llvm::StringRef Base,
                                            llvm::StringRef Variant,
                                            llvm::StringRef Name);

/// keel-sim's --keel-sim-map-file text for these variants.
void writeKeelSimMap(llvm::raw_ostream &OS, const ExeExtent &E,
                     const std::vector<VariantMap> &Maps);

} // namespace sweep
} // namespace keel

#endif
