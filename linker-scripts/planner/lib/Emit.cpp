//===- Emit.cpp - order file, linker scripts, call graph, summary ---------===//
//
// The linker scripts are INSERT-style: they add output sections to the
// linker's own default layout instead of replacing it, so they work for
// ordinary programs with both ld.lld and GNU ld. Input sections are matched
// by the names -ffunction-sections / -fdata-sections give them
// (.text.<fn>, .data.<var>) and by the prefixes the LayoutOpt plugin (and
// GCC) use (.text.hot.<fn>, .data.hot.<var>, ...).
//
//===----------------------------------------------------------------------===//
#include "keel/Planner/Emit.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace llvm;

namespace keel {

bool isScriptSafeName(StringRef Name) {
  return !Name.empty() &&
         Name.find_first_of("*?[]\\\"(){}; \t\n,") == StringRef::npos;
}

void writeOrderFile(const LayoutPlan &P, raw_ostream &OS) {
  for (uint32_t N : P.TextOrder)
    OS << P.Graph.Nodes[N].Name << '\n';
}

void writeCallGraphFile(const LayoutPlan &P, raw_ostream &OS) {
  for (const CallArc &A : P.Graph.Arcs)
    OS << P.Graph.Nodes[A.Caller].Name << ' ' << P.Graph.Nodes[A.Callee].Name
       << ' ' << A.Count << '\n';
}

/// "DEFINED(sym) ? sym : D": the knob is the plan's default D (0 unless
/// layout-order --code-pad baked one in) unless --defsym sets it.
static std::string padExpr(const char *Sym, uint64_t Default) {
  return formatv("DEFINED({0}) ? {0} : {1}", Sym, Default).str();
}

static void writeHotText(const LayoutPlan &P, ScriptFlavor Flavor,
                         raw_ostream &OS) {
  uint64_t Align = P.File.HotTextAlign;
  OS << "/* Hot text: " << P.HotOrder.size() << " hot and "
     << P.WarmOrder.size() << " warm functions in planned order, from a "
     << Align
     << "-byte boundary; --defsym=" << CodePadSymbol
     << "=N moves all of it by N bytes";
  if (P.File.CodePad)
    OS << " (default " << P.File.CodePad << ", chosen when planning)";
  OS << ".";
  if (P.HotFirst)
    OS << " The " << P.HotOrder.size() << " hot functions (the densest, "
       << P.HotBytes << " bytes for a budget of " << P.HotBudget
       << ") come first, the warm ones after them.";
  if (P.File.Spacers)
    OS << " Spacers: packed into " << P.File.Spacers
       << "-byte packs from __keel_hot_text_start; " << P.SpacerCount
       << " spacers align a function that would cross a pack boundary to "
          "the next one (about "
       << P.SpacerPadBytes << " bytes), so code growing inside a pack "
       << "moves later packs by 0 or " << P.File.Spacers << " bytes.";
  if (P.File.Spacers && P.PackEndCount)
    OS << " " << P.PackEndCount
       << " of the spacers end the pack of a function holding a large share "
          "of the profile, so that its growth moves no other code by less "
          "than "
       << P.File.Spacers << " bytes.";
  OS << " */\n";
  OS << "SECTIONS\n{\n";
  if (Flavor == ScriptFlavor::LLD) {
    // lld puts the PLT after .text, where any padding moves it; hot code
    // calls through it (malloc, memcpy), so keep it just before the hot
    // region and ahead of the pad. GNU ld's default script already does.
    OS << "  .plt : { *(.plt) }\n";
    OS << "  .plt.sec : { *(.plt.sec) }\n";
    OS << "  .iplt : { *(.iplt) }\n";
  }
  OS << "  .text.hot : ALIGN(" << Align << ")\n  {\n";
  OS << "    . += " << padExpr(CodePadSymbol, P.File.CodePad) << ";\n";
  OS << "    __keel_hot_text_start = .;\n";
  // Hot and warm functions in one planned sequence, then whatever the
  // plugin marked hot that the profile did not see. A spacer aligns
  // relative to the region's start so that the code pad still moves the
  // whole region uniformly (GNU ld and lld alike).
  bool WarmParts = P.HotFirst && P.WarmPartsAfterHotTier;
  for (size_t I = 0; I < P.TextOrder.size(); ++I) {
    StringRef Name = P.Graph.Nodes[P.TextOrder[I]].Name;
    if (!isScriptSafeName(Name))
      continue;
    // The warm parts after the hot tier, in the order file's order, ahead of
    // the warm tier's fixed start: up to that start they move no warm
    // function (spacers do not count them).
    if (WarmParts && I >= P.HotOrder.size()) {
      OS << "    *(.text.hot.*.__part.*)\n";
      WarmParts = false;
    }
    if (P.WarmStart && I == P.WarmStartIndex)
      OS << formatv("    . = MAX(., __keel_hot_text_start + {0});\n",
                    P.WarmStart);
    else if (I < P.SpacerBefore.size() && P.SpacerBefore[I])
      OS << formatv("    . = __keel_hot_text_start + "
                    "ALIGN(. - __keel_hot_text_start, {0});\n",
                    P.File.Spacers);
    OS << formatv("    *(.text.{0} .text.hot.{0} .text.startup.{0})\n", Name);
  }
  // The catch-all also takes the warm parts of block layout's warm split
  // (.text.hot.f.f.__part.1, built with -funique-basic-block-section-names)
  // unless they went after the hot tier: after every hot and warm function,
  // in the order file's order.
  OS << "    *(.text.hot .text.hot.*)\n";
  OS << "    __keel_hot_text_end = .;\n";
  OS << "  }\n";
}

/// The cold section follows the hot one inside the same SECTIONS, so both go
/// before .text: code the plan does not name (new functions, objects built
/// without function sections, a pad object) lands in .text behind every
/// planned byte and moves none of it. The cold parts are the profiled
/// functions' never-executed blocks and the never-executed functions, the
/// code another input is likeliest to run; kept at a fixed distance from the
/// hot region, their I-cache sets, pages and branch addresses relative to it
/// no longer change with unrelated code.
static void writeColdText(const LayoutPlan &P, raw_ostream &OS) {
  OS << "  /* Cold text: " << P.Cold.size()
     << " never-executed functions and the never-executed parts split off "
        "executed ones, after the hot text and before the unplanned rest. */\n";
  OS << "  .text.unlikely :\n  {\n";
  // .text.split.* are the never-executed parts that block layout
  // (-fbasic-block-sections, layout-blocks) split off hot functions: cold
  // code too, kept apart from the hot region with the cold functions.
  OS << "    *(.text.unlikely .text.unlikely.* .text.split.*)\n";
  if (P.Cold.size() > P.ColdPatternLimit) {
    OS << "    /* " << P.Cold.size() << " cold functions exceed the limit of "
       << P.ColdPatternLimit
       << " patterns (--cold-pattern-limit): not listed */\n";
    OS << "  }\n}\nINSERT BEFORE .text;\n";
    return;
  }
  bool Any = false;
  for (uint32_t N : P.Cold) {
    StringRef Name = P.Graph.Nodes[N].Name;
    if (!isScriptSafeName(Name))
      continue;
    OS << (Any ? "      " : "    *(") << ".text." << Name << '\n';
    Any = true;
  }
  if (Any)
    OS << "    )\n";
  OS << "  }\n}\nINSERT BEFORE .text;\n";
}

static void writeDataPatterns(ArrayRef<const HotDatum *> Data,
                              raw_ostream &OS) {
  for (const HotDatum *D : Data) {
    if (!isScriptSafeName(D->Name))
      continue;
    if (D->Kind == DataKind::ROData)
      OS << formatv("    *(.rodata.{0} .rodata.hot.{0})\n", D->Name);
    else
      OS << formatv("    *(.data.{0} .data.hot.{0} .bss.{0} .bss.hot.{0})\n",
                    D->Name);
  }
}

/// The hot read-only data. ld.lld puts the read-only segment in front of the
/// code, so a data pad that grew .rodata.hot moved the code after it by a
/// page whenever the segment crossed one (seen on gzip): there the section
/// is a window of a fixed size, the hot data's rounded size plus
/// DataPadWindow, and the pad moves the data inside it; nothing after the
/// window moves for any pad up to DataPadWindow less 64 (with inputs aligned
/// to at most 64). GNU ld puts .rodata after the code: no window there.
static void writeHotROData(const LayoutPlan &P, ScriptFlavor Flavor,
                           ArrayRef<const HotDatum *> RO, raw_ostream &OS) {
  uint64_t Align = P.File.HotDataAlign;
  bool Window = Flavor == ScriptFlavor::LLD;
  OS << "\n/* Hot read-only data: " << RO.size() << " symbols from a "
     << Align << "-byte boundary; --defsym=" << DataPadSymbol
     << "=N moves it by N bytes";
  if (Window)
    OS << " inside a window " << DataPadWindow
       << " bytes longer than the data, so the pad moves no code (ld.lld "
          "puts .rodata before .text)";
  OS << ". */\n";
  OS << "SECTIONS\n{\n  .rodata.hot : ALIGN(" << Align << ")\n  {\n";
  OS << "    . += " << padExpr(DataPadSymbol, 0) << ";\n";
  OS << "    __keel_hot_rodata_start = .;\n";
  writeDataPatterns(RO, OS);
  OS << "    *(.rodata.hot .rodata.hot.*)\n";
  OS << "    __keel_hot_rodata_end = .;\n";
  if (Window)
    OS << formatv("    . = MAX(., ADDR(.rodata.hot) + "
                  "ALIGN(__keel_hot_rodata_end - __keel_hot_rodata_start, 64) "
                  "+ {0});\n",
                  DataPadWindow);
  OS << "  }\n}\nINSERT BEFORE .rodata;\n";
}

static void writeHotData(const LayoutPlan &P, ScriptFlavor Flavor,
                         raw_ostream &OS) {
  std::vector<const HotDatum *> RO, Read, Written;
  for (const HotDatum &D : P.HotData)
    (D.Kind == DataKind::ROData ? RO : D.Written ? Written : Read)
        .push_back(&D);
  uint64_t Align = P.File.HotDataAlign;
  if (!RO.empty())
    writeHotROData(P, Flavor, RO, OS);
  if (Read.empty() && Written.empty())
    return;
  OS << "\n/* Hot writable data: " << Read.size() << " read-mostly, then "
     << Written.size() << " written symbols on their own cache lines, from a "
     << Align << "-byte boundary; --defsym=" << DataPadSymbol
     << "=N moves it by N bytes. */\n";
  // The boundary is aligned inside the section, not with ALIGN() on it:
  // .data.hot opens the writable PT_LOAD, whose start the linker sets
  // congruent to its file offset; an aligned section start then skipped a
  // whole page, leaving a hole in the mapping that makes ld.so's
  // _dl_find_object set-up take its non-contiguous path (+613 executed
  // instructions at start-up on examples/interp, docs/planner.md).
  OS << "SECTIONS\n{\n  .data.hot :\n  {\n";
  OS << "    . = ALIGN(" << Align << ");\n";
  OS << "    . += " << padExpr(DataPadSymbol, 0) << ";\n";
  OS << "    __keel_hot_data_start = .;\n";
  writeDataPatterns(Read, OS);
  OS << "    . = ALIGN(64);\n";
  OS << "    __keel_hot_data_written = .;\n";
  writeDataPatterns(Written, OS);
  OS << "    *(.data.hot .data.hot.* .bss.hot .bss.hot.*)\n";
  OS << "    __keel_hot_data_end = .;\n";
  // When every hot writable object is zero-initialised, the section is
  // NOBITS: before .data it would end the file-backed part of the writable
  // segment and make the linker start another PT_LOAD for .data (one more
  // mapping for ld.so at every start). In front of .bss it stays in the
  // same segment, still on its own boundary.
  bool AllBSS = llvm::all_of(Read, [](const HotDatum *D) {
                  return D->Kind == DataKind::BSS;
                }) &&
                llvm::all_of(Written, [](const HotDatum *D) {
                  return D->Kind == DataKind::BSS;
                });
  OS << "  }\n}\nINSERT BEFORE " << (AllBSS ? ".bss" : ".data") << ";\n";
}

void writeLinkerScript(const LayoutPlan &P, ScriptFlavor Flavor,
                       raw_ostream &OS) {
  OS << "/* Keel layout plan for "
     << (Flavor == ScriptFlavor::LLD ? "ld.lld" : "GNU ld") << " ("
     << orderAlgorithmName(P.Order) << " order), generated by layout-order"
     << (P.File.Binary.empty() ? "" : " from " + P.File.Binary)
     << ". Use with -T; it inserts into the default layout. */\n";
  if (Flavor == ScriptFlavor::LLD)
    // ld.lld starts the writable segments at the page offset the text ends
    // at, so code added anywhere moves .data, .bss, .got and RELRO data
    // against the stack and heap (D1 conflicts change with unrelated code;
    // docs/planner.md "Data that moves with the code"). -z separate-code
    // page-aligns the end of the executable segment. A script cannot do it
    // robustly: an output section that only aligns, or a cold section with
    // no input, comes out non-executable and adds a segment. GNU ld on
    // x86-64 separates code by default.
    OS << "/* Link with -z separate-code as well: the writable data then "
          "keeps its page offset when code is added. */\n";
  // The knobs default to 0 (the code pad to the plan's --code-pad).
  // PROVIDE_HIDDEN gives them a value without leaving an undefined symbol
  // in .dynsym (which a bare DEFINED() test does with ld.lld); --defsym
  // overrides it.
  OS << "PROVIDE_HIDDEN(" << CodePadSymbol << " = " << P.File.CodePad
     << ");\n";
  OS << "PROVIDE_HIDDEN(" << DataPadSymbol << " = 0);\n";
  writeHotText(P, Flavor, OS);
  writeColdText(P, OS);
  writeHotData(P, Flavor, OS);
}

static std::string percent(uint64_t Part, uint64_t Total) {
  return formatv("{0:F2}%", Total ? 100.0 * Part / Total : 0.0).str();
}

void printPlanSummary(const LayoutPlan &P, raw_ostream &OS) {
  uint64_t Total = P.Graph.totalWeight();
  size_t Executed = P.Graph.Nodes.size() - P.countOf(Temperature::Cold);
  OS << "plan: " << P.Graph.Nodes.size() << " functions, " << Executed
     << " executed, " << Total << " " << P.Graph.WeightUnit << "\n";
  for (Temperature T : {Temperature::Hot, Temperature::Warm, Temperature::Cold})
    OS << formatv("  {0,-4} {1,6} functions {2,8} of {3}\n", temperatureName(T),
                  P.countOf(T), percent(P.weightOf(T), Total),
                  P.Graph.WeightUnit);
  OS << "order: " << orderAlgorithmName(P.Order) << ", hot text from a "
     << P.File.HotTextAlign << "-byte boundary (" << CodePadSymbol;
  if (P.File.CodePad)
    OS << " default " << P.File.CodePad;
  OS << ")\n";
  if (P.HotFirst)
    OS << formatv("hot tier: {0} bytes (budget {1}), before the warm "
                  "functions\n",
                  P.HotBytes, P.HotBudget);
  if (P.File.Spacers)
    OS << formatv("spacers: {0} every {1} bytes ({2} ending a pack), {3} "
                  "bytes of padding, hot text {4} bytes (estimated), sizes: "
                  "{5}\n",
                  P.SpacerCount, P.File.Spacers, P.PackEndCount,
                  P.SpacerPadBytes, P.PackedTextBytes, packedSizeSources(P));
  uint64_t Offset = 0;
  size_t NextPacked = 0;
  for (size_t I = 0; I < P.TextOrder.size(); ++I) {
    const FunctionNode &N = P.Graph.Nodes[P.TextOrder[I]];
    if (P.WarmStart && I == P.WarmStartIndex) {
      OS << formatv("       warm tier: from offset {0}\n", P.WarmStart);
      Offset = std::max(Offset, P.WarmStart);
    } else if (I < P.SpacerBefore.size() && P.SpacerBefore[I]) {
      OS << formatv("       spacer: to the next {0}-byte boundary\n",
                    P.File.Spacers);
      Offset = alignTo(Offset, P.File.Spacers);
    }
    // A packed function: where the packing put it, and the size it
    // counted (a hot part's, with block layout) and where that came from.
    const PackedFunction *PF = nullptr;
    if (NextPacked < P.Packed.size() && P.Packed[NextPacked].Index == I)
      PF = &P.Packed[NextPacked++];
    if (PF)
      Offset = PF->Offset;
    OS << formatv("  {0,4} {1,-4} {2,-32} size {3,6} offset {4,7} weight {5} "
                  "({6})",
                  I, temperatureName(P.Classes[P.TextOrder[I]]), N.Name,
                  N.Size, Offset, N.Weight, percent(N.Weight, Total));
    if (PF)
      OS << formatv(" packed {0} {1}", PF->Size, packSizeSourceName(PF->Source));
    OS << '\n';
    Offset += PF ? PF->Size : N.Size;
  }
  OS << "cold: " << P.Cold.size() << " functions to .text.unlikely\n";
  OS << "hot data: " << P.HotData.size() << " symbols from a "
     << P.File.HotDataAlign << "-byte boundary (" << DataPadSymbol << ")\n";
  for (size_t I = 0; I < P.HotData.size(); ++I) {
    const HotDatum &D = P.HotData[I];
    OS << formatv("  {0,4} {1,-32} {2,-6} size {3,6} weight {4} {5}\n", I,
                  D.Name, dataKindName(D.Kind), D.Size, D.Weight,
                  D.Written ? "written" : "read");
  }
  OS << "call graph: " << P.Graph.Arcs.size() << " arcs from "
     << P.Graph.Source << "\n";
}

std::string packedSizeSources(const LayoutPlan &P) {
  std::string S;
  for (PackSizeSource Src : {PackSizeSource::Given, PackSizeSource::Estimated,
                             PackSizeSource::Symbol})
    if (size_t N = P.packedFrom(Src))
      S += formatv("{0}{1} {2}", S.empty() ? "" : ", ", N,
                   packSizeSourceName(Src))
               .str();
  return S.empty() ? "none" : S;
}

void writeSpacerSizes(const LayoutPlan &P, raw_ostream &OS) {
  OS << "# layout-order: the size each function of the hot text was packed "
        "with (--spacers=" << P.File.Spacers << "),\n"
        "# in the planned order: <symbol> <bytes> <source> <offset>. source: "
        "given\n"
        "# (--section-sizes), estimated (block layout's hot part, sizes.txt) "
        "or symbol\n"
        "# (the profiled binary's symbol); offset: from __keel_hot_text_start "
        "as planned.\n";
  for (const PackedFunction &F : P.Packed)
    OS << P.Graph.Nodes[P.TextOrder[F.Index]].Name << ' ' << F.Size << ' '
       << packSizeSourceName(F.Source) << ' ' << F.Offset << '\n';
}

void printPlanJSON(const LayoutPlan &P, raw_ostream &OS) {
  json::OStream J(OS, 2);
  J.object([&] {
    J.attribute("binary", P.File.Binary);
    J.attribute("build-id", P.File.BuildID);
    J.attribute("order", orderAlgorithmName(P.Order));
    J.attribute("weight-unit", P.Graph.WeightUnit);
    J.attribute("total-weight", int64_t(P.Graph.totalWeight()));
    J.attribute("functions", int64_t(P.Graph.Nodes.size()));
    for (Temperature T :
         {Temperature::Hot, Temperature::Warm, Temperature::Cold})
      J.attributeObject(temperatureName(T), [&] {
        J.attribute("count", int64_t(P.countOf(T)));
        J.attribute("weight", int64_t(P.weightOf(T)));
      });
    J.attribute("hot-text-align", int64_t(P.File.HotTextAlign));
    J.attribute("hot-data-align", int64_t(P.File.HotDataAlign));
    J.attribute("code-pad", int64_t(P.File.CodePad));
    J.attribute("spacers", int64_t(P.File.Spacers));
    if (P.HotFirst) {
      J.attribute("hot-budget", int64_t(P.HotBudget));
      J.attribute("hot-bytes", int64_t(P.HotBytes));
    }
    if (P.File.Spacers)
      J.attributeObject("spacer-packing", [&] {
        J.attribute("count", int64_t(P.SpacerCount));
        J.attribute("pack-ends", int64_t(P.PackEndCount));
        J.attribute("pad-bytes", int64_t(P.SpacerPadBytes));
        J.attribute("hot-text-bytes", int64_t(P.PackedTextBytes));
        J.attribute("estimated", true);
        J.attributeObject("sizes", [&] {
          for (PackSizeSource S : {PackSizeSource::Given,
                                   PackSizeSource::Estimated,
                                   PackSizeSource::Symbol})
            J.attribute(packSizeSourceName(S), int64_t(P.packedFrom(S)));
        });
      });
    J.attributeArray("text-order", [&] {
      for (uint32_t N : P.TextOrder)
        J.object([&] {
          const FunctionNode &F = P.Graph.Nodes[N];
          J.attribute("name", F.Name);
          J.attribute("class", temperatureName(P.Classes[N]));
          J.attribute("size", int64_t(F.Size));
          J.attribute("weight", int64_t(F.Weight));
        });
    });
    J.attributeArray("hot-data", [&] {
      for (const HotDatum &D : P.HotData)
        J.object([&] {
          J.attribute("name", D.Name);
          J.attribute("kind", dataKindName(D.Kind));
          J.attribute("size", int64_t(D.Size));
          J.attribute("weight", int64_t(D.Weight));
          J.attribute("written", D.Written);
        });
    });
    J.attribute("call-arcs", int64_t(P.Graph.Arcs.size()));
    J.attribute("call-graph-source", P.Graph.Source);
  });
  OS << '\n';
}

} // namespace keel
