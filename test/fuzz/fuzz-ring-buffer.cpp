// libFuzzer target: the perf ring-buffer record parser. The first 8 bytes
// choose the record layout (sample_type, read_format, branch_sample_type
// bits among those the recorder uses) and the ring offsets; the rest is the
// ring's data area, parsed both linearly and as a wrapped ring.
#include "FuzzCommon.h"
#include "keel/Record/RingBuffer.h"
#include <linux/perf_event.h>
#include <vector>
using namespace keel;

static RecordLayout layoutFrom(const uint8_t *Sel) {
  static const uint64_t SampleBits[] = {
      PERF_SAMPLE_IP,     PERF_SAMPLE_TID,        PERF_SAMPLE_TIME,
      PERF_SAMPLE_ADDR,   PERF_SAMPLE_ID,         PERF_SAMPLE_STREAM_ID,
      PERF_SAMPLE_CPU,    PERF_SAMPLE_PERIOD,     PERF_SAMPLE_READ,
      PERF_SAMPLE_CALLCHAIN, PERF_SAMPLE_RAW,     PERF_SAMPLE_BRANCH_STACK,
      PERF_SAMPLE_IDENTIFIER};
  RecordLayout L;
  uint32_t Bits = Sel[0] | (Sel[1] << 8);
  for (unsigned I = 0; I < sizeof(SampleBits) / sizeof(SampleBits[0]); ++I)
    if (Bits & (1u << I))
      L.SampleType |= SampleBits[I];
  static const uint64_t ReadBits[] = {
      PERF_FORMAT_GROUP, PERF_FORMAT_ID, PERF_FORMAT_TOTAL_TIME_ENABLED,
      PERF_FORMAT_TOTAL_TIME_RUNNING, PERF_FORMAT_LOST};
  for (unsigned I = 0; I < 5; ++I)
    if (Sel[2] & (1u << I))
      L.ReadFormat |= ReadBits[I];
  L.BranchSampleType = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER;
  if (Sel[2] & 0x20)
    L.BranchSampleType |= PERF_SAMPLE_BRANCH_HW_INDEX;
  L.SampleIdAll = Sel[2] & 0x40;
  L.Roles = {{1, CounterRole::Cycles}, {2, CounterRole::Instructions},
             {3, CounterRole::Sample}};
  L.EventName = "fuzz";
  return L;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  if (Size < 8)
    return 0;
  RecordLayout L = layoutFrom(Data);
  uint32_t Tail = Data[3] | (Data[4] << 8);
  uint32_t Len = Data[5] | (Data[6] << 8);
  Data += 8, Size -= 8;
  {
    RecordParser P(L);
    keel_fuzz::consume(P.parse(llvm::ArrayRef<uint8_t>(Data, Size)));
    (void)P.take();
  }
  // The ring: the data padded to a power of two.
  size_t RingSize = 8;
  while (RingSize < Size)
    RingSize *= 2;
  std::vector<uint8_t> Ring(Data, Data + Size);
  Ring.resize(RingSize);
  RecordParser P(L);
  uint64_t T = Tail % RingSize + RingSize * 3;
  keel_fuzz::consume(P.parseRing(Ring, T, T + Len % (RingSize + 1)));
  (void)P.take();
  return 0;
}
