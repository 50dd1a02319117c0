//===- keel/Record/RingBuffer.h - perf ring-buffer record parser -*- C++ -*-===//
//
// A pure parser over the bytes of a perf_event ring buffer, so it is
// testable without counters. The layout of every record follows the kernel
// ABI in <linux/perf_event.h>; which optional fields a PERF_RECORD_SAMPLE
// holds is decided by the leader's sample_type / read_format /
// branch_sample_type (RecordLayout), and non-sample records end with the
// sample_id trailer when sample_id_all is set.
//
// Group reads become per-sample deltas: the kernel reports running totals,
// so the cycles and instructions of a sample are the totals minus those of
// the previous sample of the same thread and group (Yamamoto et al. clear
// the counters at every sample; subtracting gives the same numbers).
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_RECORD_RINGBUFFER_H
#define KEEL_RECORD_RINGBUFFER_H

#include "keel/Record/EventGroup.h"
#include "keel/Record/Recording.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <string>

namespace keel {

/// What the parser must know about the event that wrote the records.
struct RecordLayout {
  uint64_t SampleType = 0;
  uint64_t ReadFormat = 0;
  uint64_t BranchSampleType = 0;
  bool SampleIdAll = true;
  /// Counter id (PERF_EVENT_IOC_ID) -> what it counts.
  std::map<uint64_t, CounterRole> Roles;
  std::string EventName; ///< copied into RawSample::Event

  /// The layout of \p G's leader; ids are added once the events are open.
  static RecordLayout fromGroup(const EventGroup &G);
};

/// Parses records and accumulates them into a PerfRecording.
class RecordParser {
public:
  explicit RecordParser(RecordLayout Layout) : Layout(std::move(Layout)) {}

  /// Parse the records in [Tail, Head) of a ring whose data area is \p Ring
  /// (size a power of two). Offsets are the kernel's free-running
  /// data_tail / data_head; a record that runs past the end of the data
  /// area continues at its start. A malformed record is an error naming its
  /// offset.
  llvm::Error parseRing(llvm::ArrayRef<uint8_t> Ring, uint64_t Tail,
                        uint64_t Head);
  /// Parse a linear run of whole records.
  llvm::Error parse(llvm::ArrayRef<uint8_t> Bytes);
  /// Parse one record (header included).
  llvm::Error parseRecord(llvm::ArrayRef<uint8_t> Record);

  /// Hand over the result: samples sorted by time (stable), deltas computed.
  PerfRecording take();

private:
  llvm::Error parseSample(llvm::ArrayRef<uint8_t> Body, uint16_t Misc);
  void addSample(RecordedSample S, llvm::ArrayRef<std::pair<uint64_t, uint64_t>>
                                       GroupValues);

  RecordLayout Layout;
  PerfRecording Out;
  /// (thread, group leader id) -> last cycles / instructions totals.
  std::map<std::pair<uint32_t, uint64_t>, std::pair<uint64_t, uint64_t>> Last;
};

/// Drain one mapped perf ring (\p Base: the metadata page followed by the
/// data pages, \p Length bytes in all): read data_head with acquire
/// semantics, parse [data_tail, data_head), then publish data_tail with
/// release semantics so the kernel may reuse the space.
llvm::Error drainMappedRing(void *Base, size_t Length, size_t PageSize,
                            RecordParser &Parser);

} // namespace keel

#endif
