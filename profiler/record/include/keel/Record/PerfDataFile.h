//===- keel/Record/PerfDataFile.h - PerfRecording <-> perf.data --*- C++ -*-===//
//
// A recording (keel/Record/Recording.h) written as Linux perf's own
// perf.data, so `perf script`, `perf report` and perf2bolt open Keel's
// recordings, and read back from any perf.data (perf record -b, -j any,u,
// or Keel's own) with the per-sample counter deltas of a group read.
// Format notes: docs/formats/perf-data.md.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_RECORD_PERFDATAFILE_H
#define KEEL_RECORD_PERFDATAFILE_H

#include "keel/Record/Recording.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace keel {

namespace perfdata {
class File;
}

struct PerfDataWriteOptions {
  /// Pipe mode (what `perf record -o -` writes): attrs as HEADER_ATTR
  /// records, build ids as HEADER_BUILD_ID records, no feature sections.
  bool Pipe = false;
  /// Store the LBR's hw_idx (PERF_SAMPLE_BRANCH_HW_INDEX) with every
  /// branch stack, as perf 5.7+ records on Intel.
  bool HwIndex = false;
  /// Read the cycles and instructions counters with every sample when the
  /// samples carry them (PERF_SAMPLE_READ group). Note that perf script
  /// then prints every sample once per group member whose count moved.
  bool GroupRead = true;
  /// ZSTD level (MinCompressLevel..MaxCompressLevel) to compress the
  /// records with, as `perf record -z` does (PERF_RECORD_COMPRESSED records
  /// and HEADER_COMPRESSED); 0 writes them plain. File mode only.
  int Compress = 0;
  /// Lay the records out as perf record's per-CPU ring buffers leave
  /// them: in rounds of this many nanoseconds of time, each ended by a
  /// FINISHED_ROUND record, with a round's samples CPU by CPU (each CPU's
  /// in time order) before its side-band records (COMM, FORK, EXIT,
  /// MMAP2). A process's first samples then come before its MMAP2 in file
  /// order, as on a busy multi-CPU machine, and only a reader that orders
  /// by time (as perf does) resolves them. 0: the records in time order.
  uint64_t RoundNs = 0;
};

/// The ZSTD levels perf.data records are compressed with: those of `perf
/// record -z`/`--compression-level=n`, whose help says "default: 1 -
/// fastest compression, 22 - smallest trace" (tools/perf/builtin-record.c;
/// cmd_record lowers a larger level to 22). Level 0 means plain records
/// here (perf takes -z0 as its default level 1).
inline constexpr unsigned MinCompressLevel = 1, MaxCompressLevel = 22;

/// Check the ZSTD level an option gives: 0 (plain) or MinCompressLevel to
/// MaxCompressLevel; otherwise an InputError naming \p Option. Tools call it
/// on their option before doing any work; writePerfData checks the same.
llvm::Error checkCompressLevel(llvm::StringRef Option, int64_t Level);

/// Write \p R as perf.data: one sampling event (the recording's event,
/// with its period or frequency and branch filter) and, when the samples
/// carry counter deltas, counting members for cycles and instructions read
/// with every sample (PERF_SAMPLE_READ, PERF_FORMAT_GROUP | ID), their
/// running totals per thread; COMM, FORK/EXIT and MMAP2 records (with the
/// build id, when known, in the record and in HEADER_BUILD_ID); event names
/// in HEADER_EVENT_DESC. Records are in time order (or in rounds:
/// RoundNs). Deterministic.
llvm::Error writePerfData(const PerfRecording &R, llvm::raw_ostream &OS,
                          const PerfDataWriteOptions &Opts = {});

/// Read a perf.data into a recording: samples (time order), mappings,
/// task events, lost counts, the recording info from the attrs (event
/// name, period/frequency, branch filter), and per-sample cycles and
/// instructions from a group read whose members are cycles/instructions
/// events (by type and config, or by name).
llvm::Expected<PerfRecording> readPerfDataRecording(perfdata::File &F);
llvm::Expected<PerfRecording> readPerfDataRecording(llvm::StringRef Path);

/// What `perf script -F ip,brstack -G` prints for \p F (perf 6.1's
/// format, including its delivery of samples with a read: one line per
/// value, of an id some event has, whose count moved since that id's last
/// read), so perf's own output can be diffed against Keel's reading.
llvm::Error exportPerfScriptIpBrstack(perfdata::File &F, llvm::raw_ostream &OS);

} // namespace keel

#endif
