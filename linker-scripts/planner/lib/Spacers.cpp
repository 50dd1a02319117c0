//===- Spacers.cpp - pack the hot text into W-byte packs ------------------===//
#include "keel/Planner/Spacers.h"
#include "keel/Planner/Emit.h"
#include "keel/Support/Diagnostics.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/LineIterator.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cassert>

using namespace llvm;

namespace keel {

Packing packIntoWindows(ArrayRef<PackItem> Items, uint64_t Window,
                        uint64_t MaxPad) {
  assert((Window == 0 || isPowerOf2_64(Window)) && "window not a power of 2");
  Packing P;
  P.SpacerBefore.assign(Items.size(), false);
  uint64_t Offset = 0;
  bool EndPack = false; // the previous item ends its pack
  for (size_t I = 0; I < Items.size(); ++I) {
    const PackItem &It = Items[I];
    Offset = alignTo(Offset, std::max<uint64_t>(It.Align, 1));
    uint64_t InWindow = Window ? Offset % Window : 0;
    if (Window && EndPack && InWindow) {
      P.SpacerBefore[I] = true;
      ++P.Spacers;
      ++P.PackEnds;
      P.PadBytes += Window - InWindow;
      Offset += Window - InWindow;
      InWindow = 0;
    }
    EndPack = It.EndsPack;
    // An item that fits in a pack but would straddle its end starts the
    // next pack; one bigger than a pack straddles whatever we do, and an
    // unknown (0) size cannot straddle.
    if (Window && It.Size && It.Size <= Window && InWindow &&
        InWindow + It.Size > Window &&
        (MaxPad == 0 || Window - InWindow <= MaxPad)) {
      P.SpacerBefore[I] = true;
      ++P.Spacers;
      P.PadBytes += Window - InWindow;
      Offset += Window - InWindow;
    }
    P.Offsets.push_back(Offset);
    Offset += It.Size;
  }
  P.End = Offset;
  return P;
}

Expected<std::map<std::string, uint64_t>>
parseSectionSizes(StringRef Text, StringRef FileName) {
  std::map<std::string, uint64_t> Sizes;
  auto MB = MemoryBuffer::getMemBuffer(Text, FileName,
                                       /*RequiresNullTerminator=*/false);
  for (line_iterator L(*MB, /*SkipBlanks=*/true, '#'); !L.is_at_eof(); ++L) {
    StringRef Line = L->trim();
    if (Line.empty())
      continue;
    auto [Name, Rest] = Line.split(' ');
    Rest = Rest.trim();
    uint64_t Bytes = 0;
    if (Name.empty() || Rest.empty() || Rest.contains(' ') ||
        Rest.contains('\t') || Rest.getAsInteger(10, Bytes))
      return inputError(FileName, L.line_number(),
                        "expected '<symbol> <bytes>', got '{0}'", Line);
    if (!Sizes.emplace(Name.str(), Bytes).second)
      return inputError(FileName, L.line_number(),
                        "'{0}' is listed twice", Name);
  }
  return Sizes;
}

/// The size \p Name is packed with: given, else estimated, else \p Symbol.
static std::pair<uint64_t, PackSizeSource>
packSize(StringRef Name, uint64_t Symbol, const SpacerOptions &Opts) {
  auto G = Opts.GivenSizes.find(Name.str());
  if (G != Opts.GivenSizes.end())
    return {G->second, PackSizeSource::Given};
  auto E = Opts.Sizes.find(Name.str());
  if (E != Opts.Sizes.end())
    return {E->second, PackSizeSource::Estimated};
  return {Symbol, PackSizeSource::Symbol};
}

size_t addSpacers(LayoutPlan &LP, const SpacerOptions &Opts) {
  // The items are the functions the linker scripts name (script-safe
  // names), in TextOrder. A name listed twice (same-named locals) is
  // matched by its first pattern only, so that one holds both sizes.
  std::vector<PackItem> Items;
  std::vector<size_t> ItemOf(LP.TextOrder.size(), SIZE_MAX);
  std::vector<std::pair<size_t, PackSizeSource>> Function; // per item
  StringMap<size_t> First;
  size_t Overridden = 0;
  bool FirstWarmSeen = false;
  const double Total = double(LP.Graph.totalWeight());
  for (size_t I = 0; I < LP.TextOrder.size(); ++I) {
    const FunctionNode &N = LP.Graph.Nodes[LP.TextOrder[I]];
    if (!isScriptSafeName(N.Name))
      continue;
    // With a hot budget only the hot tier (first in TextOrder) is packed,
    // and it ends its pack: the first warm function starts on the next
    // boundary (an item of unknown size, so it gets no other spacer), and
    // the warm tier after it gets no spacers. Code growing inside the tier
    // then moves nothing after it by less than W.
    if (LP.HotFirst && LP.Classes[LP.TextOrder[I]] != Temperature::Hot) {
      if (!FirstWarmSeen && !Items.empty()) {
        FirstWarmSeen = true;
        Items.back().EndsPack = true;
        ItemOf[I] = Items.size();
        Items.push_back({0, Opts.FunctionAlign, false});
        Function.push_back({SIZE_MAX, PackSizeSource::Symbol});
      }
      continue;
    }
    auto [Size, Source] = packSize(N.Name, N.Size, Opts);
    auto [Prev, New] = First.try_emplace(N.Name, Items.size());
    if (!New) {
      if (Source == PackSizeSource::Symbol) // an override is the whole section
        Items[Prev->second].Size += Size;
      continue;
    }
    Overridden += Source != PackSizeSource::Symbol;
    ItemOf[I] = Items.size();
    bool Ends = Opts.PackEndShare > 0 && Total > 0 &&
                100.0 * double(N.Weight) / Total >= Opts.PackEndShare;
    Items.push_back({Size, Opts.FunctionAlign, Ends});
    Function.push_back({I, Source});
  }
  Packing P = packIntoWindows(Items, Opts.Window, Opts.MaxPad);
  LP.SpacerBefore.assign(LP.TextOrder.size(), false);
  LP.Packed.clear();
  for (size_t K = 0; K < Items.size(); ++K)
    if (Function[K].first != SIZE_MAX)
      LP.Packed.push_back(
          {Function[K].first, P.Offsets[K], Items[K].Size, Function[K].second});
  for (size_t I = 0; I < LP.TextOrder.size(); ++I)
    if (ItemOf[I] != SIZE_MAX)
      LP.SpacerBefore[I] = P.SpacerBefore[ItemOf[I]];
  // The first warm function: from a fixed offset, at least W after the
  // tier's end (its pack end already put it on a boundary).
  LP.WarmStart = 0;
  if (FirstWarmSeen && Opts.Window) {
    LP.WarmStart = P.End + Opts.Window;
    P.PadBytes += Opts.Window;
    P.End = LP.WarmStart;
    for (size_t I = 0; I < LP.TextOrder.size(); ++I)
      if (LP.Classes[LP.TextOrder[I]] != Temperature::Hot &&
          ItemOf[I] != SIZE_MAX) {
        LP.WarmStartIndex = I;
        if (!LP.SpacerBefore[I]) { // the tier ended on a boundary
          ++P.Spacers;
          ++P.PackEnds;
        }
        LP.SpacerBefore[I] = true;
        break;
      }
  }
  LP.SpacerCount = P.Spacers;
  LP.PackEndCount = P.PackEnds;
  LP.SpacerPadBytes = P.PadBytes;
  LP.PackedTextBytes = P.End;
  LP.File.Spacers = Opts.Window;
  return Overridden;
}

} // namespace keel
