//===- keel/Optimize/LinkedSizes.h - the packed hot parts as linked -*- C++ -*-===//
//
// layout-optimize --pack-linked-sizes: the spacers of a plan are placed by
// the sizes it packed with (spacer-sizes.txt; with block layout, estimates
// of the hot parts). After the first link the real sizes are the symbols'
// sizes in the linked binary (a hot part keeps the function's symbol; its
// cold part is NAME.cold), which layout-order --section-sizes takes.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_OPTIMIZE_LINKEDSIZES_H
#define KEEL_OPTIMIZE_LINKEDSIZES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <vector>

namespace keel {
namespace optimize {

/// One function of a plan's packed hot text and the size it was packed with.
struct PackedSize {
  std::string Name;
  uint64_t Bytes = 0;
};

/// The packed functions of spacer-sizes.txt ("<symbol> <bytes> <source>
/// <offset>" lines, '#' comments), in order. Errors name \p Path:line.
llvm::Expected<std::vector<PackedSize>> readSpacerSizes(llvm::StringRef Path);

/// What the linked binary says about the packed functions.
struct LinkedSizes {
  std::vector<PackedSize> Found; ///< in the plan's order
  size_t Missing = 0;            ///< packed, but no function symbol of that name
  uint64_t Linked = 0;           ///< bytes of Found, as linked
  uint64_t Planned = 0;          ///< bytes of Found, as packed
  size_t Same = 0;               ///< of Found, linked at the size packed
};

/// The size of each of \p Packed in \p Binary: the sum of its function
/// symbols of that name (same-named locals share one linker-script pattern).
llvm::Expected<LinkedSizes> measureLinkedSizes(llvm::StringRef Binary,
                                               llvm::ArrayRef<PackedSize> Packed);

/// \p L as a layout-order --section-sizes file, with a '#' header naming
/// \p Binary.
void writeLinkedSizes(const LinkedSizes &L, llvm::StringRef Binary,
                      llvm::raw_ostream &OS);

} // namespace optimize
} // namespace keel

#endif
