//===- LBRCommands.h - the LBR time analyses of layout-profile ------------===//
//
//   layout-profile blocks   --binary=B [--cpi=X] [--per-sample] [--truth=T]
//                           [--json=F] [--csv=F] SAMPLES
//   layout-profile timeline --binary=B [--truth=T] [--json=F] [--csv=F]
//                           [--svg=F [--method=M]] [--html=F] SAMPLES
//
// SAMPLES is a keel-samples file (layout-record, layout-lbrgen) or perf
// script brstack text. See docs/lbr-analyses.md.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_TOOLS_LAYOUTPROFILE_LBRCOMMANDS_H
#define KEEL_TOOLS_LAYOUTPROFILE_LBRCOMMANDS_H

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"

namespace keel {

llvm::cl::OptionCategory &lbrCategory();
/// Whether `blocks` or `timeline` was given.
bool lbrSubcommandActive();
llvm::Error runLBRSubcommand();

} // namespace keel

#endif
