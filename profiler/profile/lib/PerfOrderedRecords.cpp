//===- PerfOrderedRecords.cpp - perf.data records in time order -----------===//
//
// perf keeps its queue as a list sorted on insertion; here the records are
// appended as they come and sorted when a flush needs them: a stable sort
// of the new ones (already in order for most files, which is_sorted finds
// in one pass) merged into the ones still queued, so records of equal time
// keep the order they came in, as perf's insertion keeps it. Their bytes
// sit in one store, allocated once and compacted in place after every flush
// (only the records still queued move, usually one round's worth).
//
//===----------------------------------------------------------------------===//
#include "keel/Profile/PerfOrderedRecords.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cstring>

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

void OrderedRecords::compact() {
  // The records still queued move to the front of the store in the order
  // their bytes are in, so that none is overwritten before it has moved
  // (a record only ever moves towards the front).
  ByPlace.resize(Queue.size());
  for (size_t I = 0; I < Queue.size(); ++I)
    ByPlace[I] = I;
  llvm::sort(ByPlace, [&](size_t A, size_t B) {
    return Queue[A].Begin < Queue[B].Begin;
  });
  size_t At = 0;
  for (size_t I : ByPlace) {
    Entry &E = Queue[I];
    if (E.Begin != At)
      std::memmove(Bytes.data() + At, Bytes.data() + E.Begin, E.Size);
    E.Begin = At;
    At += E.Size;
  }
  Bytes.resize(At);
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
  // Past 1 MiB, one allocation of the whole store: growing it by doubling
  // would leave the freed smaller copies in the heap, counted in the
  // resident set.
  const uint64_t Whole = std::min<uint64_t>(Limit, DefaultLimit);
  if (Bytes.size() + Record.size() > Bytes.capacity() &&
      Bytes.size() + Record.size() > (1 << 20) && Bytes.capacity() < Whole)
    Bytes.reserve(Whole);
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
  Queue.erase(Queue.begin(), Queue.begin() + K);
  Sorted = Queue.size();
  compact();
  // perf's "last" moves to the newest record when the one it was went.
  if (LastTime <= TimeLimit && !Queue.empty())
    LastTime = Queue.back().Time;
  return Error::success();
}

} // namespace perfdata
} // namespace keel
