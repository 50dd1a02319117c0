//===- keel/Sweep/DryRun.h - what a sweep would build and run ----*- C++ -*-===//
//
// layout-sweep --dry-run: each variant's exact relink (or llvm-bolt)
// command and the run that measures it, printed without building or running
// anything. Commands are argv vectors (that is how the sweep spawns them,
// never through a shell); they are shell-quoted here for display only. A
// run is shown as `env -i NAME=VALUE... PROGRAM ARGS`: the variant's whole
// environment, which replaces the caller's.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_SWEEP_DRYRUN_H
#define KEEL_SWEEP_DRYRUN_H

#include "keel/Support/Process.h" // displayCommand
#include "keel/Sweep/Engine.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace keel {
namespace sweep {

/// The name the dry run gives a sweep's private work directory.
inline constexpr const char *DryRunWorkDir = "WORK";

/// Every variant of the one-axis sweep \p O (its grid, its series): the
/// relink or llvm-bolt command, if any, and the run, two-space indented
/// under "offset N:". Errors: what Perturber::check finds (bad axis,
/// template, binary), as the sweep itself would report it.
llvm::Error writeAxisDryRun(llvm::raw_ostream &OS, const EngineOptions &O);

} // namespace sweep
} // namespace keel

#endif
