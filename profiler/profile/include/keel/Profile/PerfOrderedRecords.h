//===- keel/Profile/PerfOrderedRecords.h - perf.data records in time order ===//
//
// `perf record` copies each CPU's ring buffer to the file in turn, so the
// records of one stretch of time come CPU by CPU: a sample taken on CPU 1
// can sit before the MMAP2 written on CPU 3 a moment earlier, which maps the
// code it hit. perf reads them back in time order (its ordered-events
// queue, tools/perf/util/ordered-events.c, fed by session.c):
//  - a record with a time (a sample with PERF_SAMPLE_TIME, another kernel
//    record with sample_id_all) is queued, a copy of its bytes kept;
//    records without one (time 0 or ~0) and perf's own records (type 64
//    and up) are handed out at once;
//  - at each PERF_RECORD_FINISHED_ROUND, the queued records up to the
//    largest time queued by the end of the round before are handed out, in
//    time order (records of equal time in the order they came): perf record
//    writes that record after it has copied every buffer once, so nothing
//    older than the round before can still come;
//  - at the end of the file, all of them;
//  - when the queue holds more than its limit, the older half of its time
//    span (perf's OE_FLUSH__HALF, used when its allocation limit is hit),
//    so memory stays bounded whatever the file.
// This class is that queue, over opaque record bytes; the perf.data reader
// (keel/Profile/PerfData.h) decides which records have which time.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_PROFILE_PERFORDEREDRECORDS_H
#define KEEL_PROFILE_PERFORDEREDRECORDS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace keel {
namespace perfdata {

class OrderedRecords {
public:
  /// Where a record came from, for errors: its byte offset in the file
  /// and, for a record out of the zstd stream, its position there (~0
  /// otherwise) and the compressed record's type.
  struct Origin {
    uint64_t Offset = 0;
    uint64_t StreamPos = ~uint64_t(0);
    uint32_t StreamType = 0;
  };
  /// A queued record: its time, origin and a copy of its bytes.
  struct Entry {
    uint64_t Time = 0;
    Origin From;
    size_t Begin = 0, Size = 0; ///< in the queue's byte store
  };
  using DeliverFn =
      llvm::function_ref<llvm::Error(const Entry &, llvm::ArrayRef<uint8_t>)>;

  /// 32 MiB of record bytes. perf's own queue grows without a limit unless
  /// told one (report.queue-size); a round holds what the ring buffers held
  /// at one read, so a real round fits and only a file without rounds (or
  /// with huge ones) meets the limit.
  static constexpr uint64_t DefaultLimit = 32 << 20;

  explicit OrderedRecords(uint64_t LimitBytes = DefaultLimit)
      : Limit(LimitBytes) {}

  /// Forget everything (a new read of the file).
  void clear();
  /// The byte limit above which push() hands out the older half first.
  void setLimit(uint64_t LimitBytes) { Limit = LimitBytes; }

  /// Queue a copy of \p Record at \p Time (neither 0 nor ~0: those are
  /// handed out at once by the caller, as perf does). When the bytes
  /// queued would pass the limit, the older half is delivered first.
  llvm::Error push(uint64_t Time, llvm::ArrayRef<uint8_t> Record,
                   const Origin &From, DeliverFn Deliver);
  /// PERF_RECORD_FINISHED_ROUND: deliver the records up to the largest
  /// time queued when the previous round ended (none at the first round).
  llvm::Error finishRound(DeliverFn Deliver);
  /// The end of the file: deliver everything.
  llvm::Error flushAll(DeliverFn Deliver);

  size_t size() const { return Queue.size(); }
  uint64_t bytes() const { return Bytes.size(); }
  /// Records that came with a time older than the last one delivered:
  /// perf's nr_unordered_events (they are delivered late, as perf does).
  uint64_t outOfOrder() const { return Unordered; }
  /// How many times the queue reached its limit and delivered half.
  uint64_t halfFlushes() const { return Halves; }

private:
  /// Deliver, in time order, the records at or before \p Limit.
  llvm::Error flushUpTo(uint64_t TimeLimit, DeliverFn Deliver);
  /// Sort the records pushed since the last sort into the sorted ones.
  void sort();
  /// Move the bytes of the records still queued to the front of the store.
  void compact();

  std::vector<Entry> Queue; ///< [0, Sorted) in time order, then as pushed
  size_t Sorted = 0;
  std::vector<uint8_t> Bytes;
  std::vector<size_t> ByPlace; ///< compact()'s order, kept for its memory
  uint64_t Limit;
  uint64_t MaxTime = 0;   ///< the largest time queued since it was empty
  uint64_t LastTime = 0;  ///< the time of the last record pushed
  uint64_t NextFlush = 0; ///< what the next round delivers up to (0: none)
  uint64_t LastFlush = 0; ///< the time of the last record delivered
  uint64_t Unordered = 0, Halves = 0;
};

} // namespace perfdata
} // namespace keel

#endif
