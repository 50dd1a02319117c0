//===- PerfOrderedRecords.cpp - perf.data records in time order -----------===//
//
// perf keeps its queue as a list sorted on insertion; here the records are
// appended as they come and sorted when a flush needs them: a stable sort
// of the new ones (already in order for most files, which is_sorted finds
// in one pass) merged into the ones still queued, so records of equal time
// keep the order they came in, as perf's insertion keeps it. Their bytes
// sit in one store, compacted after every flush (only the records still
// queued are copied, usually one round's worth).
//
//===----------------------------------------------------------------------===//
#include "keel/Profile/PerfOrderedRecords.h"

#include <algorithm>

using namespace llvm;

namespace keel {
namespace perfdata {

namespace {
bool earlier(const OrderedRecords::Entry &A, const OrderedRecords::Entry &B) {
  return A.Time < B.Time;
}
} // namespace

void OrderedRecords::clear() {
  Queue.clear();
  Sorted = 0;
  Bytes.clear();
  Spare.clear();
  MaxTime = LastTime = NextFlush = LastFlush = 0;
  Unordered = Halves = 0;
}

void OrderedRecords::sort() {
  if (Sorted == Queue.size())
    return;
  auto Mid = Queue.begin() + Sorted;
  if (!std::is_sorted(Mid, Queue.end(), earlier))
    std::stable_sort(Mid, Queue.end(), earlier);
  if (Sorted && earlier(*Mid, *(Mid - 1)))
    std::inplace_merge(Queue.begin(), Mid, Queue.end(), earlier);
  Sorted = Queue.size();
}

Error OrderedRecords::push(uint64_t Time, ArrayRef<uint8_t> Record,
                           const Origin &From, DeliverFn Deliver) {
  if (!Queue.empty() && Bytes.size() + Record.size() > Limit) {
    // perf's OE_FLUSH__HALF: up to the middle of the time from the oldest
    // record queued to the last one pushed; at least the oldest goes.
    sort();
    uint64_t First = Queue.front().Time;
    uint64_t Last = std::max(LastTime, First);
    ++Halves;
    if (Error E = flushUpTo(First + (Last - First) / 2, Deliver))
      return E;
  }
  if (Time < LastFlush)
    ++Unordered;
  MaxTime = Queue.empty() ? Time : std::max(MaxTime, Time);
  LastTime = Time;
  Entry E;
  E.Time = Time;
  E.From = From;
  E.Begin = Bytes.size();
  E.Size = Record.size();
  Bytes.insert(Bytes.end(), Record.begin(), Record.end());
  Queue.push_back(E);
  return Error::success();
}

Error OrderedRecords::finishRound(DeliverFn Deliver) {
  // As perf: an empty queue leaves the next limit where it was; the first
  // round only sets it.
  if (Queue.empty())
    return Error::success();
  if (NextFlush)
    if (Error E = flushUpTo(NextFlush, Deliver))
      return E;
  NextFlush = MaxTime;
  return Error::success();
}

Error OrderedRecords::flushAll(DeliverFn Deliver) {
  if (Queue.empty())
    return Error::success();
  return flushUpTo(~uint64_t(0), Deliver);
}

Error OrderedRecords::flushUpTo(uint64_t TimeLimit, DeliverFn Deliver) {
  sort();
  size_t K = 0;
  for (; K < Queue.size() && Queue[K].Time <= TimeLimit; ++K) {
    const Entry &E = Queue[K];
    if (Error Err = Deliver(E, ArrayRef<uint8_t>(Bytes.data() + E.Begin,
                                                 E.Size)))
      return Err;
    LastFlush = E.Time;
  }
  if (!K)
    return Error::success();
  Spare.clear();
  for (size_t I = K; I < Queue.size(); ++I) {
    Entry &E = Queue[I];
    size_t At = Spare.size();
    Spare.insert(Spare.end(), Bytes.begin() + E.Begin,
                 Bytes.begin() + E.Begin + E.Size);
    E.Begin = At;
  }
  Queue.erase(Queue.begin(), Queue.begin() + K);
  Sorted = Queue.size();
  Bytes.swap(Spare);
  // perf's "last" moves to the newest record when the one it was went.
  if (LastTime <= TimeLimit && !Queue.empty())
    LastTime = Queue.back().Time;
  return Error::success();
}

} // namespace perfdata
} // namespace keel
