//===- keel/Record/Recording.h - what one perf recording holds ---*- C++ -*-===//
//
// The in-memory form of a recording: samples (keel::RawSample plus the CPU
// and period), the mapping table that maps runtime addresses of PIEs and
// shared libraries back to files, task events, and counts of what the
// kernel dropped or throttled. The ring-buffer parser fills it; the sample
// file (docs/formats/keel-samples.md) stores it.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_RECORD_RECORDING_H
#define KEEL_RECORD_RECORDING_H

#include "keel/Profile/BranchProfile.h"

#include <cstdint>
#include <string>
#include <vector>

namespace keel {

/// One executable (or, with DataMmaps, data) mapping (PERF_RECORD_MMAP2 or
/// MMAP).
struct Mapping {
  uint32_t Pid = 0, Tid = 0;
  uint64_t Start = 0, Length = 0, PgOff = 0;
  uint32_t Prot = 0;       ///< PROT_* bits (0 from old MMAP records)
  std::string BuildID;     ///< lower-case hex when the kernel sent it
  std::string Path;
  uint64_t Time = 0;
  bool contains(uint64_t Addr) const {
    return Addr >= Start && Addr - Start < Length;
  }
};

/// COMM, FORK and EXIT records.
struct TaskEvent {
  enum KindTy { Comm, Fork, Exit } Kind = Comm;
  uint32_t Pid = 0, Tid = 0, PPid = 0, PTid = 0;
  uint64_t Time = 0;
  std::string Name; ///< the command (Comm only)
  bool Exec = false; ///< Comm caused by exec
};

/// A sample as recorded: the shared RawSample model plus CPU and period.
struct RecordedSample {
  RawSample Sample;
  uint32_t CPU = 0;
  uint64_t Period = 0;
  /// Memory samples (RecordOptions::MemorySamples): the data address
  /// (PERF_SAMPLE_ADDR), where the data came from (PERF_SAMPLE_DATA_SRC,
  /// union perf_mem_data_src) and the access latency in cycles
  /// (PERF_SAMPLE_WEIGHT / WEIGHT_STRUCT var1). 0 when not recorded.
  uint64_t Addr = 0, DataSrc = 0, Weight = 0;
  /// PERF_SAMPLE_CALLCHAIN as the kernel writes it (perf record -g): newest
  /// first, PERF_CONTEXT_* markers included. Empty when not recorded.
  std::vector<uint64_t> CallChain;
};

/// What the kernel lost or throttled, summarised once (never per record).
struct RecordStats {
  uint64_t LostRecords = 0;  ///< PERF_RECORD_LOST records seen
  uint64_t LostEvents = 0;   ///< events those records say were dropped
  uint64_t LostSamples = 0;  ///< PERF_RECORD_LOST_SAMPLES counts
  uint64_t Throttles = 0, Unthrottles = 0;
  uint64_t Unknown = 0;      ///< records of types the parser skips
};

/// How the recording was made (the sample file's header).
struct RecordInfo {
  std::vector<std::string> Command;
  std::string Event;              ///< sampling event as given
  std::string CyclesEvent, InstructionsEvent; ///< "" when not counted
  uint64_t Period = 0, Freq = 0;  ///< exactly one non-zero
  std::string LBR;                ///< branch filter, e.g. "any,user"
};

struct PerfRecording {
  RecordInfo Info;
  std::vector<RecordedSample> Samples; ///< in time order
  std::vector<Mapping> Mappings;       ///< in arrival order
  std::vector<TaskEvent> Tasks;
  RecordStats Stats;

  /// The mapping of process \p Pid that holds \p Addr at time \p Time (the
  /// latest one mapped before it), or nullptr.
  const Mapping *mappingAt(uint32_t Pid, uint64_t Addr, uint64_t Time) const;
};

} // namespace keel

#endif
