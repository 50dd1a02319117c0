//===- keel/Planner/Emit.h - order files, linker scripts, summary -*- C++ -*-===//
//
// Everything layout-order writes, rendered from a LayoutPlan:
//  - order.txt      lld --symbol-ordering-file: hot functions in order.
//  - layout.ld      ld.lld script (INSERT-style, keeps lld's default layout):
//                   .plt/.plt.sec/.iplt, then .text.hot from the hot-text
//                   boundary, .text.unlikely after .text, .rodata.hot and
//                   .data.hot from the hot-data boundary.
//  - layout.gnu.ld  the same for GNU ld (whose default script already puts
//                   the PLT sections before .text).
//  - callgraph.txt  lld --call-graph-ordering-file ("caller callee weight").
//  - spacer-sizes.txt  with spacers: each packed function's size, where
//                   that size came from, and its planned offset.
//  - the --print-plan summary.
// Padding knobs: --defsym=__keel_code_pad=N / __keel_data_pad=N move the hot
// text / hot data by N bytes after their boundary (0 when undefined).
// With spacers (LayoutPlan::SpacerBefore, Spacers.h) .text.hot aligns to
// the next pack boundary, relative to __keel_hot_text_start, before each
// function the packing marked.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_PLANNER_EMIT_H
#define KEEL_PLANNER_EMIT_H

#include "keel/Planner/Planner.h"

#include "llvm/Support/raw_ostream.h"

#include <string>

namespace keel {

/// The --defsym names the sweep relinks with; a contract, do not rename.
constexpr const char *CodePadSymbol = "__keel_code_pad";
constexpr const char *DataPadSymbol = "__keel_data_pad";
/// ld.lld scripts: .rodata.hot is this many bytes longer than its data, and
/// __keel_data_pad moves the data inside it (Emit.cpp, docs/planner.md).
constexpr uint64_t DataPadWindow = 4096;

enum class ScriptFlavor { LLD, GNU };

void writeOrderFile(const LayoutPlan &P, llvm::raw_ostream &OS);
void writeLinkerScript(const LayoutPlan &P, ScriptFlavor Flavor,
                       llvm::raw_ostream &OS);
void writeCallGraphFile(const LayoutPlan &P, llvm::raw_ostream &OS);
void printPlanSummary(const LayoutPlan &P, llvm::raw_ostream &OS);
/// The same summary as one JSON object (layout-order --json).
void printPlanJSON(const LayoutPlan &P, llvm::raw_ostream &OS);
/// Where the packed sizes came from, e.g. "3 given, 1 estimated" (sources
/// that sized nothing left out; "none" when nothing was packed).
std::string packedSizeSources(const LayoutPlan &P);
/// spacer-sizes.txt: a '#' header, then per packed function, in order,
/// "<symbol> <bytes> <source> <offset>" (LayoutPlan::Packed). Its first two
/// columns are a --section-sizes file.
void writeSpacerSizes(const LayoutPlan &P, llvm::raw_ostream &OS);

/// Whether \p Name can appear in a linker-script input-section pattern
/// (no glob or quoting characters).
bool isScriptSafeName(llvm::StringRef Name);

} // namespace keel

#endif
