//===- keel/Record/Sources.h - layout-record's profiling sources -*- C++ -*-===//
//
// A source runs the user's command under some collector and returns the
// profile as link-time addresses of the program's binary, plus what the
// program's exit looked like. layout-record's main picks one by --source
// and does the rest (symbolize, write, summary, exit status) the same way
// for all of them. To add a source: one file implementing a RecordFn, one
// row in the table in layout-record.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_RECORD_SOURCES_H
#define KEEL_RECORD_SOURCES_H

#include "keel/Profile/BranchProfile.h"
#include "keel/Record/Recording.h"
#include "keel/Support/Diagnostics.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace keel {
class Binary;

/// The options of --source=perf (layout-record's PerfCategory; the
/// defaults are those of its command line).
struct PerfSourceOptions {
  std::string Event = "cycles"; ///< sampling event
  std::string LBR = "any";      ///< branch-stack filter
  uint64_t Period = 0;          ///< sample every N events (0: use Freq)
  uint64_t Freq = 0;            ///< samples per second (0: 10000 unless Period)
  std::string CyclesEvent = "cycles";
  std::string InstructionsEvent = "instructions";
  bool Kernel = false;
  bool NoInherit = false;
  bool DataMmaps = false;
  unsigned MmapPages = 128;
  std::string Samples; ///< also write the samples here ("" = no)
  std::string Export;  ///< "", "perf-script" or "perf.data"
  unsigned Compress = 0; ///< perf.data ZSTD level, 0 = plain
  uint64_t RoundNs = 0;  ///< perf.data in per-CPU rounds (PerfDataWriteOptions)
  std::string Replay;  ///< read this recording instead of running
};

struct RecordRequest {
  std::vector<std::string> Command; ///< the program and its arguments
  std::string KeepRaw; ///< keep the collector's raw output here ("" = no)
  PerfSourceOptions Perf; ///< --source=perf only
};

struct Recording {
  AddressProfile Profile;
  int ExitCode = 0;     ///< the program's exit status
  bool Crashed = false; ///< the program (or collector) died from a signal
  std::string CrashMessage;
  std::string Summary;  ///< one line about what was collected
  /// Sources that keep raw samples can write them as perf.data (for
  /// --format=perf.data); empty otherwise.
  std::function<llvm::Error(llvm::raw_ostream &)> WritePerfData;
};

using RecordFn = llvm::Expected<Recording> (*)(const RecordRequest &,
                                               const Binary &,
                                               QualityReport &);

/// valgrind --tool=callgrind: exact, PMU-free (ValgrindSource.cpp).
llvm::Expected<Recording> recordWithValgrind(const RecordRequest &Req,
                                             const Binary &Bin,
                                             QualityReport &Quality);

/// perf_event LBR sampling with per-sample CPI (PerfSource.cpp;
/// docs/recording.md), with the options in Req.Perf.
llvm::Expected<Recording> recordWithPerf(const RecordRequest &Req,
                                         const Binary &Bin,
                                         QualityReport &Quality);

/// "perf: 812 samples (812 with branch stacks, 12,993 records), CPI 0.63":
/// the summary line of a perf recording.
std::string summarizePerfRecording(const PerfRecording &Rec);

} // namespace keel

#endif
