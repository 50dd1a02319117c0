//===- keel/Optimize/Optimize.h - the recommended build in one call -*- C++ -*-===//
//
// runOptimize is `layout-optimize` (docs/optimize.md) as a library call. Its
// steps, each named in its progress line and in its errors:
//   build    run the user's build command with CC=keel-cc (the compile and
//            link commands go to DIR/commands.jsonl, with the profiling
//            flags); no command: use the log as it is (CMake's keel_layout)
//   find     the program's link and the compiles of its objects (Replay.h)
//   profile  the workload under `layout-record --source=valgrind`; a
//            workload that fails, or a profile with no samples in the
//            program, stops here
//   plan     `layout-order` with its defaults (the recommended plan, with
//            DIR/plan/compile.rsp and link.rsp)
//   rebuild  the program's compiles again with @compile.rsp, its link with
//            @link.rsp, into DIR (the build tree is not touched)
//   pack     (--pack-linked-sizes, on by default) the plan made again with
//            the linked sizes of its packed functions, the link alone again
//   pack     with --pack-linked-sizes: the linked sizes of the plan's packed
//            hot functions (LinkedSizes.h) -> `layout-order --section-sizes`
//            into the same plan directory (only the spacers change) -> the
//            link once more
//   guard    default and candidate measured by `layout-sweep` on the
//            workload over several environment offsets; the candidate is
//            kept only if its mean total cost is lower (keel/Sweep/Guard.h);
//            else the plan is made again with --block-order=keep, rebuilt
//            and measured; if that fails too the default build is kept
//   tune     (--tune-code-pad, on by default) the kept plan's hot region
//            moved through the 64 line offsets of its page on the workload,
//            the cheapest baked in (layout-order --code-pad), the link again
//   report   a short code sweep of the default and the kept build, the
//            before/after table (stdout), DIR/report.json, DIR/stamp
// A second run whose program and profile are unchanged (the stamp of their
// hashes and the options) does nothing and prints the last table again.
// On an error, what this run wrote in DIR is removed (the command log
// stays), so no half-written plan or binary is left.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_OPTIMIZE_OPTIMIZE_H
#define KEEL_OPTIMIZE_OPTIMIZE_H

#include "keel/Optimize/Options.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace keel {
namespace optimize {

/// Run the flow; progress on \p Err, the table on \p Out. Returns the exit
/// status (ExitOK) or an error naming the step that failed.
llvm::Expected<int> runOptimize(const OptimizeOptions &O, llvm::raw_ostream &Out,
                                llvm::raw_ostream &Err);

} // namespace optimize
} // namespace keel

#endif
