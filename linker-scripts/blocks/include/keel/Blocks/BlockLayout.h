//===- keel/Blocks/BlockLayout.h - basic-block layout from a profile -*- C++ -*-===//
//
// Propeller-style block layout at build time. A binary built with
// `-fbasic-block-address-map` carries `.llvm_bb_addr_map`: for every
// function, its machine basic blocks (stable IDs, offsets, sizes). Profile
// counts (exact valgrind ranges or LBR-derived ones) are mapped onto those
// blocks; per hot function LLVM's own Ext-TSP (llvm/Transforms/Utils/
// CodeLayout.h: computeExtTspLayout) orders the executed blocks, and blocks
// never executed are split off. The result is written as a
// `-fbasic-block-sections=<file>` profile (version 1: "v1", "f name",
// "c id id ...") plus a symbol order for lld that puts every hot part
// together and the cold parts ("name.cold", section .text.split.name) apart.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_BLOCKS_BLOCKLAYOUT_H
#define KEEL_BLOCKS_BLOCKLAYOUT_H

#include "keel/Profile/BranchProfile.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace keel {

class Binary;

struct BlockInfo {
  uint32_t ID = 0;    ///< MachineBasicBlock ID from .llvm_bb_addr_map
  uint64_t Addr = 0;  ///< link-time address of the block
  uint64_t Size = 0;
  uint64_t Count = 0; ///< times execution entered the block
  /// From the block map's metadata: the block may fall through to the next
  /// one in address order, and it is a landing pad (entered by unwinding).
  bool CanFallThrough = true;
  bool IsEHPad = false;
  /// The block (index into FunctionBlocks::Blocks) its conditional branch
  /// goes to, when the block ends in a direct conditional branch (or in
  /// one and a jump): decoded for executed blocks by mapProfileToBlocks.
  /// An order that does not place that block next still reaches it by the
  /// taken branch, with no jump added (estimateBranchCost).
  std::optional<uint32_t> BranchTo;
};

/// One function's blocks (address order) and profile on them.
struct FunctionBlocks {
  std::string Name; ///< symbol name, as -fbasic-block-sections matches it
  uint64_t Addr = 0;
  /// A weak symbol (C++ inline or template function: COMDAT), see
  /// FunctionLayout::Weak.
  bool Weak = false;
  std::vector<BlockInfo> Blocks;
  /// Edge counts between block indices (into Blocks): taken branches and
  /// fall-throughs.
  std::map<std::pair<unsigned, unsigned>, uint64_t> Edges;
  uint64_t Instructions = 0; ///< executed instructions inside the function
};

/// How much of the profile landed on mapped blocks.
struct BlockMapStats {
  uint64_t FunctionsWithMap = 0;
  uint64_t RangeCount = 0, RangeCountMapped = 0;   ///< fall-through ranges
  uint64_t BranchCount = 0, BranchCountMapped = 0; ///< taken branches
  double coverage() const {
    uint64_t T = RangeCount + BranchCount;
    return T ? double(RangeCountMapped + BranchCountMapped) / double(T) : 0.0;
  }
};

/// What a profile without fall-through ranges (fdata, or branches alone)
/// says of one block beyond the records that enter it: in such a profile a
/// block that is entered only by falling into it (after a call returns: with
/// exceptions on, a call that may throw ends its block) has no record of its
/// own.
struct BlockRecords {
  /// The most records from one instruction of the block (calls included):
  /// the block ran at least this often.
  uint64_t FromOneInstruction = 0;
  /// Records leaving the block that are not calls (taken branches, fdata's
  /// fall-through edges): how much of its count does not fall into the next
  /// block.
  uint64_t Leaving = 0;
};

/// Give a count to every block of \p FB that \p Records (one per block)
/// shows executed but no record entered (its Count is 0), and the edges that
/// led into it:
///  - a block with a record from one of its instructions ran;
///  - a block that ran more often than records entered it was fallen into
///    from the block before it, if that one can fall through (the block is
///    no landing pad);
///  - a block that ran more often than records left it fell into the next
///    block, if it can fall through and the next is no landing pad.
/// Blocks with a count keep it. Returns, per block, the count it was given
/// (0 where unchanged).
std::vector<uint64_t> inferUnenteredBlocks(FunctionBlocks &FB,
                                           llvm::ArrayRef<BlockRecords> Records);

/// Whether \p Bin has a block map (a non-empty .llvm_bb_addr_map section:
/// built with -fbasic-block-address-map), so that its blocks can be laid
/// out. Reads only the section headers.
bool hasBlockMap(const Binary &Bin);

/// Read .llvm_bb_addr_map of \p Bin and map \p AP onto its blocks. Error
/// (InputError naming the binary) if the binary has no block map.
llvm::Expected<std::vector<FunctionBlocks>>
mapProfileToBlocks(const Binary &Bin, const AddressProfile &AP,
                   BlockMapStats &Stats);

/// What an order of one function's blocks costs in branches, estimated
/// from the profile's edge counts (FunctionBlocks::Edges). A block's
/// successor that is not the next block in the order is reached by a taken
/// branch; the branch is a jump the order adds (executed on top of the
/// block's own instructions) unless it is the block's conditional branch
/// (BlockInfo::BranchTo): a block with one executed successor elsewhere
/// runs a jump to it unless its conditional branch goes there; one with
/// two executed successors, neither next, runs its conditional branch to
/// one and a jump to the other (to the rarer where BranchTo is unknown).
/// Blocks with more than two executed successors (a jump table) and
/// self-loops cost the same in every order and are left out.
struct BranchCost {
  uint64_t Jumps = 0; ///< unconditional jumps executed
  uint64_t Taken = 0; ///< taken branches executed, the jumps among them
  /// Jumps weigh one (an instruction the order adds, and a taken branch);
  /// a taken branch TakenWeight more: on a real core it ends the fetch
  /// block, so the next one starts in a new fetch window (a bubble where
  /// the branch target buffer must redirect fetch).
  static constexpr double TakenWeight = 0.75;
  double cost() const { return double(Jumps) + TakenWeight * double(Taken); }
};

/// The branch cost of \p Order (indices into FB.Blocks, every block once):
/// each block's next one is the block after it in \p Order.
BranchCost estimateBranchCost(const FunctionBlocks &FB,
                              llvm::ArrayRef<uint64_t> Order);

/// Improve \p Order (indices into FB.Blocks, the entry first, every block
/// once) for estimateBranchCost: each executed block but the entry, hottest
/// first, moves to right after one of its predecessors or right before one
/// of its successors where that lowers the order's cost, until no move does
/// (at most \p MaxPasses passes). Ext-TSP's score gives a short forward jump
/// a tenth of a fall-through's weight whether or not it is an instruction
/// of its own, and its greedy merging leaves some that a one-block move
/// removes: a loop entered by a jump over its latch (0 jmp 2; 1: latch,
/// falls into 2, the header; 2 -> 1 taken back) becomes 0 2 1, entered by a
/// fall-through, with as many taken branches. Only executed blocks move,
/// only next to executed blocks, so never-executed blocks stay where they
/// were (last, with splitting). Returns the number of moves; deterministic.
/// An \p Order that is not a permutation of FB's block indices is left
/// unchanged (0 moves).
size_t refineJumps(const FunctionBlocks &FB, std::vector<uint64_t> &Order,
                   unsigned MaxPasses = 8);

/// The planned layout of one function.
struct FunctionLayout {
  std::string Name;
  std::vector<uint32_t> HotOrder; ///< block IDs of the hot cluster, in order
  /// Block IDs of the warm cluster, in order (BlockLayoutOptions::
  /// WarmShare): executed, but rarely against the function's hottest block.
  /// clang emits it as a second part, symbol "name.__part.1"; empty when
  /// the function has none.
  std::vector<uint32_t> WarmOrder;
  std::vector<uint32_t> ColdBlocks; ///< block IDs split off (never executed)
  uint64_t Weight = 0;            ///< executed instructions (for ordering)
  /// Estimated bytes of the hot part after the rebuild: the HotOrder
  /// blocks' sizes (computeBlockLayout), plus what estimateHotSizes adds for
  /// the branches and padding the new order needs.
  uint64_t HotSize = 0;
  /// Bytes of the WarmOrder blocks (their sizes in the profiled build).
  uint64_t WarmSize = 0;
  double ScoreBefore = 0, ScoreAfter = 0; ///< Ext-TSP scores (higher = better)
  /// The executed blocks are in the compiler's order (BlockOrder::Keep, or
  /// Guarded without a clear gain, or Cheapest where it costs less).
  bool KeptOrder = false;
  /// estimateBranchCost of the order chosen, and of the other candidate
  /// (Cheapest; the kept order's under ExtTsp and Guarded, Ext-TSP's
  /// never computed under Keep: zero).
  BranchCost Branches, OtherBranches;
  /// Blocks refineJumps moved in the Ext-TSP order (0: none, or not
  /// refined).
  size_t JumpMoves = 0;
  /// The function's symbol is weak: a C++ COMDAT, defined in every object
  /// that uses it. Its split part "name.cold" is a local symbol of each
  /// copy, and lld warns "unable to order discarded symbol" for every copy
  /// it discards, so the order file leaves it out: the linker script's
  /// .text.split.* rule places the kept copy's cold part all the same.
  bool Weak = false;
};

/// In the kept order (BlockOrder::Keep, Guarded), a never-executed block of
/// at most this many bytes right before an executed block the compiler
/// aligned stays in the hot part, so that no hot block falls through into
/// the alignment padding (executed nops) where none did before.
constexpr uint64_t KeepBeforeAlignedBytes = 64;

/// How the executed blocks of a laid-out function are ordered.
enum class BlockOrder {
  /// LLVM's Ext-TSP order (BOLT's -reorder-blocks=ext-tsp).
  ExtTsp,
  /// The compiler's order: the executed blocks keep their relative order,
  /// only the never-executed ones leave (split without reordering). Every
  /// fall-through between two executed blocks stays a fall-through (and
  /// small never-executed blocks before aligned ones stay, see
  /// KeepBeforeAlignedBytes).
  Keep,
  /// Keep, unless Ext-TSP raises the function's Ext-TSP score by at least
  /// BlockLayoutOptions::ReorderGain over the kept order (a clear gain).
  Guarded,
  /// Per function, whichever of the Ext-TSP and the kept order costs less
  /// in branches by the profile (estimateBranchCost; Ext-TSP on a tie).
  /// Ext-TSP's score weighs a fall-through the same whether it saves a
  /// conditional branch being taken or a whole jump being executed, so an
  /// Ext-TSP order can execute more jumps than the compiler's (a loop left
  /// unrotated: exit test at the top, an unconditional jump back).
  Cheapest,
};

llvm::StringRef blockOrderName(BlockOrder O);
std::optional<BlockOrder> parseBlockOrder(llvm::StringRef Name);

struct BlockLayoutOptions {
  /// Only functions covering this share of executed instructions are laid
  /// out (the rest keep the compiler's order).
  double HotCoverage = 0.99;
  /// Split never-executed blocks into the function's cold part.
  bool Split = true;
  BlockOrder Order = BlockOrder::ExtTsp;
  /// BlockOrder::Guarded: the relative Ext-TSP score gain (0.1 = 10%) the
  /// Ext-TSP order must reach over the kept order to be used.
  double ReorderGain = 0.1;
  /// Kept order (Keep, Guarded): an executed block entered fewer than
  /// RareShare times the function's hottest block moves behind the other
  /// executed blocks (still in the hot part), in the compiler's order; 0:
  /// off. Only fall-throughs into or out of such rare blocks change.
  double RareShare = 0;
  /// The warm split (three parts: hot, warm, cold): an executed block
  /// entered fewer than WarmShare times the function's hottest block leaves
  /// the hot part for the function's warm part (FunctionLayout::WarmOrder),
  /// in the order chosen; 0: off. The entry block and landing pads stay
  /// hot, and so, in the kept order, does a block of at most
  /// KeepBeforeAlignedBytes right before an executed hot block the compiler
  /// aligned (no new fall-through into its padding).
  double WarmShare = 0;
  /// Ext-TSP (and the Ext-TSP candidate of Guarded and Cheapest): refine
  /// the order with refineJumps, so that it executes fewer jumps and taken
  /// branches by the profile. Off by default: on the corpus it lowered
  /// every program's executed jumps but not its cost in geomean
  /// (docs/block-layout.md).
  bool RefineJumps = false;
};

/// The symbol clang gives the second cluster of a function's
/// -fbasic-block-sections list (its warm part): "name.__part.1". With
/// -funique-basic-block-section-names its section is
/// ".text.hot.name.name.__part.1" (without it, a second ".text.hot.name"
/// that a linker script cannot tell from the hot part).
std::string warmPartSymbol(llvm::StringRef Function);

/// Ext-TSP order and hot/cold split per hot function, hottest first.
std::vector<FunctionLayout> computeBlockLayout(
    llvm::ArrayRef<FunctionBlocks> Functions, const BlockLayoutOptions &Opts);

/// Make every HotSize of \p Layout an upper-leaning estimate of the rebuilt
/// hot part, from the disassembly of \p Functions in \p Bin: the blocks'
/// bytes, plus 5 for a block whose fall-through successor is no longer next
/// (a jmp), plus 4 for a short branch whose target moved to the cold part
/// (rel8 -> rel32), plus 15 for a block that was preceded by alignment
/// padding (it will be again, by up to 15 bytes at 16-byte alignment).
/// Packing (layout-order --spacers) is safe when sizes err high and not
/// when they err low: on Lua the plain block sums were 8.9% short.
void estimateHotSizes(const Binary &Bin,
                      llvm::ArrayRef<FunctionBlocks> Functions,
                      llvm::MutableArrayRef<FunctionLayout> Layout);

/// Write the `-fbasic-block-sections=` profile (v1 format). A name that
/// several functions of \p Layout share (local functions of several objects)
/// is left out: those functions keep the compiler's block order.
void writeBasicBlockSectionsProfile(llvm::ArrayRef<FunctionLayout> Layout,
                                    llvm::raw_ostream &OS);

/// The whole block plan of one binary and profile: mapProfileToBlocks,
/// computeBlockLayout and estimateHotSizes (what layout-blocks and
/// layout-order --blocks compute). Empty when no profiled function has a
/// block map.
llvm::Expected<std::vector<FunctionLayout>>
planBlockLayout(const Binary &Bin, const AddressProfile &AP,
                const BlockLayoutOptions &Opts, BlockMapStats &Stats);

/// lld --symbol-ordering-file lines: \p FunctionOrder (hot functions in the
/// planned order), then the warm parts "name.__part.1" of functions with a
/// warm part (in \p Layout's order, hottest function first), then the cold
/// parts "name.cold" of split functions (neither for weak functions,
/// FunctionLayout::Weak).
void writeBlockSymbolOrder(llvm::ArrayRef<std::string> FunctionOrder,
                           llvm::ArrayRef<FunctionLayout> Layout,
                           llvm::raw_ostream &OS);

/// The estimated size of every hot part, "<symbol> <bytes>" per line, in
/// the order writeBlockSymbolOrder puts them (\p FunctionOrder first), after
/// a '#' header saying they are estimates. layout-order --section-sizes
/// reads it to pack the hot text (--spacers) by these sizes instead of the
/// whole functions' symbol sizes.
void writeHotPartSizes(llvm::ArrayRef<std::string> FunctionOrder,
                       llvm::ArrayRef<FunctionLayout> Layout,
                       llvm::raw_ostream &OS);

} // namespace keel

#endif
