//===- Sources.h - the profiling sources layout-record can run ---*- C++ -*-===//
//
// A source runs the user's command under some collector and returns the
// profile as link-time addresses of the program's binary, plus what the
// program's exit looked like. layout-record's main picks one by --source
// and does the rest (symbolize, write, summary, exit status) the same way
// for all of them. To add a source: one file implementing a RecordFn, one
// row in the table in layout-record.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef LAYOUT_RECORD_SOURCES_H
#define LAYOUT_RECORD_SOURCES_H

#include "keel/Profile/BranchProfile.h"
#include "keel/Support/Diagnostics.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <string>
#include <vector>

namespace keel {
class Binary;

struct RecordRequest {
  std::vector<std::string> Command; ///< the program and its arguments
  std::string KeepRaw; ///< keep the collector's raw output here ("" = no)
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

/// perf_event LBR sampling with per-sample CPI (PerfSource.cpp, keelRecord;
/// docs/recording.md). Its options are in PerfCategory.
llvm::Expected<Recording> recordWithPerf(const RecordRequest &Req,
                                         const Binary &Bin,
                                         QualityReport &Quality);
extern llvm::cl::OptionCategory PerfCategory;

} // namespace keel

#endif
