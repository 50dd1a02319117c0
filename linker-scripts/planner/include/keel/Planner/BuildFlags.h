//===- keel/Planner/BuildFlags.h - the flags that apply a plan -*- C++ -*-===//
//
// A plan directory also holds the exact compiler and linker flags that apply
// it, as clang response files, so that applying a plan is the same two
// additions for every build system:
//
//   clang-22 -O2 @PLAN/compile.rsp -c x.c        (every object)
//   clang-22 @PLAN/link.rsp *.o -o app            (the program's link)
//
// The plan's files are named by absolute path: clang reads the paths in a
// response file relative to each command's working directory, which build
// systems change from one command to the next. Arguments are written one a
// line and quoted for clang's (GNU) response-file rules where they need it.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_PLANNER_BUILDFLAGS_H
#define KEEL_PLANNER_BUILDFLAGS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <vector>

namespace keel {

struct BuildFlagOptions {
  std::string PlanDir; ///< absolute: the paths in the flags start with it
  /// The plan has a block layout (bbsections.txt): the objects are
  /// rebuilt with its basic-block sections.
  bool Blocks = false;
  /// With Blocks: the block layout has warm parts (a second cluster per
  /// function, BlockLayoutOptions::WarmShare): compile with
  /// -funique-basic-block-section-names, so that the warm part's section
  /// (".text.hot.f.f.__part.1") is not a second ".text.hot.f", which the
  /// linker script's rule for the hot part would match too.
  bool WarmParts = false;
  /// With Blocks: -falign-loops=N (1: no loop alignment, whose padding the
  /// new block order would put on hot fall-through paths); 0: the
  /// compiler's own.
  uint64_t AlignLoops = 0;
  /// -Wl,--defsym=__keel_data_pad=N: the hot data starts N bytes into its
  /// page; 0: no --defsym (the scripts' default, 0).
  uint64_t DataPad = 0;
};

struct BuildFlags {
  std::vector<std::string> Compile; ///< compile.rsp
  std::vector<std::string> Link;    ///< link.rsp
};

/// The compile and link flags of a plan in \p O.PlanDir. Compile:
/// -ffunction-sections -fdata-sections, with Blocks also
/// -fbasic-block-address-map (the rebuilt program can be profiled and
/// planned again) -fbasic-block-sections=list=PLAN/bbsections.txt,
/// -funique-basic-block-section-names with WarmParts, and -falign-loops=N.
/// Link: -fuse-ld=lld, the order file and layout.ld, with Blocks
/// -z keep-text-section-prefix, -z separate-code, and the data pad.
/// A plan directory whose path holds a comma gets -Xlinker pairs instead
/// of -Wl, (which splits at commas).
BuildFlags planBuildFlags(const BuildFlagOptions &O);

/// \p Arg as clang's response-file reader (llvm::cl::TokenizeGNUCommandLine)
/// reads it back: unchanged when it is made of letters, digits and
/// "_-+=,.:/%", else in single quotes, a quote or backslash inside it
/// escaped by a backslash (the reader unescapes inside quotes too). The
/// reader drops an empty argument, so none can be written.
std::string quoteResponseFileArg(llvm::StringRef Arg);

/// \p Args, one a line, each quoted by quoteResponseFileArg.
void writeResponseFile(llvm::ArrayRef<std::string> Args,
                       llvm::raw_ostream &OS);

} // namespace keel

#endif
