//===- keel/LBR/LBRGenRun.h - layout-lbrgen's trace and outputs -*- C++ -*-===//
//
// What layout-lbrgen does around the emulation of keel/LBR/LBRGen.h:
// get the exact instruction trace (a saved valgrind lackey log, or a run
// of the program under lackey in a private directory), spread the samples
// over several processes on request, and write the samples (keel-samples,
// perf.data, perf script text) and the truth. docs/lbr-analyses.md.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_LBR_LBRGENRUN_H
#define KEEL_LBR_LBRGENRUN_H

#include "keel/LBR/LBRGen.h"
#include "keel/Record/PerfDataFile.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace keel {

struct LBRGenRunOptions {
  std::string TracePath;            ///< a saved lackey log ("" = trace Command)
  std::vector<std::string> Command; ///< the program and its arguments
  std::string KeepTrace;            ///< also save the lackey log here
  /// keel-samples output, or perf.data when the name ends in perf.data
  /// ("-": stdout, "": none).
  std::string Samples;
  std::string PerfData, PerfScript, Truth; ///< more outputs ("" = none)
  PerfDataWriteOptions PerfDataOpts;
};

/// The samples and the truth from the lackey log: Opts.TracePath, or that
/// of a run of Opts.Command under valgrind (kept in Opts.KeepTrace) in a
/// private directory that goes on every way out, a failed trace too.
llvm::Expected<LBRGenResult> generateFromTrace(const LBRGenRunOptions &Opts,
                                               const Binary &Bin,
                                               const LBRGenOptions &O,
                                               QualityReport &Quality);

/// Sample I goes to process 1 + I % N, whose copy of the binary is mapped
/// K * 256 MiB higher (addresses inside it move with it), beside a mapping
/// of another library. The profile of the binary is the same; only the
/// runtime addresses differ. N <= 1 changes nothing.
void spreadOverProcesses(PerfRecording &R, unsigned N);

/// Write Opts.Samples, Opts.PerfData, Opts.PerfScript and Opts.Truth.
llvm::Error writeLBRGenOutputs(const LBRGenResult &R, const LBRGenOptions &O,
                               const LBRGenRunOptions &Opts);

} // namespace keel

#endif
