//===- keel/Planner/Spacers.h - growth-absorbing spacers in the hot text -*- C++ -*-===//
//
// In the I1 geometries Keel is measured on (32 KB 8-way, 8 KB 2-way, 64 B
// lines) a line's cache set is (addr / 64) mod 64: it is fixed by the page
// offset, so code moved by a multiple of 4096 bytes keeps every line in its
// set. Code that grows inside the hot region moves everything after it;
// spacers bound that. The planned text order is cut into W-byte "packs", and
// a spacer (an alignment to the next W boundary, measured from the region's
// start) goes in front of every function that fits in W but would cross a
// boundary. Growth inside pack j then moves only the rest of pack j while
// pack j's slack absorbs it, and moves later packs by exactly W (same sets)
// when it does not (code grown right after the k-th hottest function,
// perturbation (2) of bench/layout-compare.py; docs/planner.md).
//
// A function that holds a large share of the profile (an interpreter's
// dispatch loop) also *ends* its pack: the next function starts on the next
// boundary. Code growing in or right after it then moves nothing else by
// less than W, where otherwise the rest of its pack would move by the
// growth and change which branches alias in the predictors and which lines
// share a set. The slack is address space, not cache lines.
//
// The linker script spells a spacer relative to the region's start so that
// __keel_code_pad still moves the whole region uniformly:
//   . = __keel_hot_text_start + ALIGN(. - __keel_hot_text_start, W);
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_PLANNER_SPACERS_H
#define KEEL_PLANNER_SPACERS_H

#include "keel/Planner/Planner.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace keel {

/// One function of the planned order, as the packing sees it.
struct PackItem {
  uint64_t Size = 0;  ///< bytes; 0 = unknown (never gets a spacer)
  uint64_t Align = 1; ///< the linker aligns the function to this (0 = 1)
  bool EndsPack = false; ///< the next item starts on the next boundary
};

/// Where the spacers go in a sequence of PackItems.
struct Packing {
  std::vector<bool> SpacerBefore; ///< per item: a spacer precedes it
  size_t Spacers = 0;             ///< how many spacers
  size_t PackEnds = 0;            ///< of them, how many follow an EndsPack
  uint64_t PadBytes = 0;          ///< bytes the spacers add (estimated)
  uint64_t End = 0;               ///< estimated size of the packed region
  std::vector<uint64_t> Offsets;  ///< per item: where it starts
};

/// Pack \p Items in order into \p Window-byte packs measured from offset 0:
/// each item starts at its alignment; an item of size 1..Window that would
/// cross the next Window boundary gets a spacer and starts on it. Items
/// bigger than Window are placed where they fall. The item after an
/// EndsPack item gets a spacer unless it already starts on a boundary.
/// \p Window 0: no spacers
/// (only the offsets are computed). \p MaxPad > 0: a spacer that would add
/// more than MaxPad bytes is left out (the item straddles the boundary, and
/// the two packs act as one; pack ends are not capped). Pure; \p Window
/// must be 0 or a power of two (asserted).
Packing packIntoWindows(llvm::ArrayRef<PackItem> Items, uint64_t Window,
                        uint64_t MaxPad = 0);

/// Parse a section-size file: "<symbol> <bytes>" per line, '#' starts a
/// comment, blank lines skipped (layout-blocks writes one as sizes.txt).
/// Errors name \p FileName:line.
llvm::Expected<std::map<std::string, uint64_t>>
parseSectionSizes(llvm::StringRef Text, llvm::StringRef FileName);

struct SpacerOptions {
  uint64_t Window = 0;     ///< W; 0 = off
  uint64_t FunctionAlign = 16; ///< alignment assumed for every function
  /// A function with at least this percentage of the call graph's weight
  /// ends its pack (PackItem::EndsPack); 0 = none.
  double PackEndShare = 0;
  /// Most bytes one spacer may add (0 = up to W): a big function that
  /// would leave most of a pack empty straddles the boundary instead.
  uint64_t MaxPad = 0;
  /// Estimated sizes that override the binary's symbol sizes (the hot
  /// parts block layout keeps: PackSizeSource::Estimated).
  std::map<std::string, uint64_t> Sizes;
  /// Sizes measured in a linked binary (layout-order --section-sizes:
  /// PackSizeSource::Given); they override both others. Only the packing
  /// reads them: the hot set, the order and the block layout do not change.
  std::map<std::string, uint64_t> GivenSizes;
};

/// Pack \p LP's hot text (the functions its linker scripts name, in
/// TextOrder) and record the spacers in it (LayoutPlan::SpacerBefore,
/// LayoutPlan::Packed, the counts, and the plan file's `spacers`). A
/// function's size is its given size, else its estimated one, else its
/// symbol's. Returns how many functions of the hot text an override size
/// (given or estimated) named (LayoutPlan::packedFrom counts each kind).
size_t addSpacers(LayoutPlan &LP, const SpacerOptions &Opts);

} // namespace keel

#endif
