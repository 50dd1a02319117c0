//===- keel/Record/Recorder.h - run a program under LBR sampling -*- C++ -*-===//
//
// record() forks, keeps the child waiting on a pipe until the event groups
// are open on it (one group per CPU when following children, since the
// kernel refuses to mmap inherited per-task events), then lets it exec; the
// groups are enabled by that exec (enable_on_exec). The ring buffers are
// drained until the child exits. While it runs, the recorder ignores SIGINT
// (Ctrl-C stops the program, and what was recorded is still returned).
//
// When the machine cannot do it, the error is an UnavailableError (tools
// exit 3) that says exactly what is missing: no PMU (typical in VMs), no
// branch stacks, or perf_event_paranoid too strict (with the sysctl that
// fixes it).
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_RECORD_RECORDER_H
#define KEEL_RECORD_RECORDER_H

#include "keel/Record/EventGroup.h"
#include "keel/Record/Recording.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace keel {

struct RecordResult {
  PerfRecording Rec;
  int ExitCode = 0;     ///< the program's exit status (128+N for signal N)
  int Signal = 0;       ///< the signal that killed it, 0 if it exited
};

/// Run \p Argv (Argv[0] is looked up on PATH) under the events of \p Opts.
llvm::Expected<RecordResult> record(llvm::ArrayRef<std::string> Argv,
                                    const RecordOptions &Opts);

/// What the recorder knows when perf_event_open fails, for the message.
struct OpenFailure {
  int Errno = 0;
  std::string Event;          ///< the event that failed to open
  uint64_t BranchFilter = 0;  ///< 0: no branch stack was requested
  bool Kernel = false;        ///< kernel-mode counting or kernel branches
  int Paranoid = -1;          ///< /proc/sys/kernel/perf_event_paranoid, -1 unknown
  /// The same event opened without the branch stack (only tried when the
  /// first attempt failed with a branch stack).
  bool WorksWithoutBranchStack = false;
  /// The same event opened without inherit (only tried on EINVAL with
  /// inherit: kernels before 6.12 cannot read groups of inherited events).
  bool WorksWithoutInherit = false;
  /// The event was precise (memory-access sampling) and opens when not
  /// (only tried on EINVAL/EOPNOTSUPP): the PMU has no PEBS for it.
  bool WorksWithoutPrecise = false;
};

/// The error for a failed perf_event_open: UnavailableError for a missing
/// PMU, missing branch stacks or a too strict perf_event_paranoid; a plain
/// error otherwise.
llvm::Error openFailureError(const OpenFailure &F);

} // namespace keel

#endif
