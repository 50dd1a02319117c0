//===- keel/FalseShare/HitmRecord.h - record HITM samples -------*- C++ -*-===//
//
// The work of `layout-falseshare record`: run a program under precise
// memory sampling (keelRecord), or parse a saved ring of perf records
// instead (Replay), turn the samples into a keelfs report (hitmReport,
// PerfHitm.h) and write it.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_FALSESHARE_HITMRECORD_H
#define KEEL_FALSESHARE_HITMRECORD_H

#include "keel/FalseShare/PerfHitm.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace keel::fs {

/// What `layout-falseshare record` is asked to do.
struct HitmRecordOptions {
  std::string Source = "perf"; ///< only perf
  std::string Event = "MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=30";
  uint64_t Period = 1000;
  bool AllLines = false; ///< HitmOptions::AllLines
  bool Peer = false;     ///< HitmOptions::PeerIsHitm
  std::string Output = "perf-fs.out";
  /// Parse perf records from this file instead of running the program
  /// (Program still names the binary).
  std::string Replay;
  std::string Program;
  std::vector<std::string> Args;
};

/// What recording found; the report is already written to Output.
struct HitmRecordResult {
  HitmStats Stats;
  uint64_t Lost = 0;   ///< records and samples the kernel lost
  int ExitCode = 0;    ///< the program's exit status (0 for a replay)
  int Signal = 0;      ///< the signal that killed it, 0 if it exited
};

/// Checks the options (InputError), finds the program, records (or
/// replays), writes the report to O.Output. A missing PMU is an
/// UnavailableError before anything runs.
llvm::Expected<HitmRecordResult> recordHitm(const HitmRecordOptions &O);

} // namespace keel::fs

#endif
