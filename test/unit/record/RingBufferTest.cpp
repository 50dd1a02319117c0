//===- RingBufferTest.cpp - perf records from byte fixtures ---------------===//
#include "RecordWriter.h"

#include "keel/Record/RingBuffer.h"

#include "TestErrors.h"
#include "gtest/gtest.h"

using namespace keel;
using keel::test::errText;
using keel::test::RecordWriter;

namespace {

constexpr uint64_t LeaderId = 10, InstrId = 11;

RecordLayout layout(uint64_t BranchBits = PERF_SAMPLE_BRANCH_ANY |
                                          PERF_SAMPLE_BRANCH_USER) {
  RecordLayout L;
  L.SampleType = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ |
                 PERF_SAMPLE_BRANCH_STACK;
  L.ReadFormat = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
  L.BranchSampleType = BranchBits;
  L.Roles = {{LeaderId, CounterRole::Cycles}, {InstrId, CounterRole::Instructions}};
  L.EventName = "cycles";
  return L;
}

struct Branch {
  uint64_t From, To, Flags;
};

/// A PERF_RECORD_SAMPLE in layout()'s format.
std::vector<uint8_t> sample(uint32_t Tid, uint64_t Time, uint64_t IP,
                            uint64_t Cycles, uint64_t Instructions,
                            std::vector<Branch> Stack, bool HwIdx = false,
                            uint64_t Leader = LeaderId) {
  RecordWriter W;
  W.u64(IP).u32(100).u32(Tid).u64(Time).u32(1).u32(0).u64(100003);
  W.u64(2).u64(Cycles).u64(Leader).u64(Instructions).u64(Leader + 1);
  W.u64(Stack.size());
  if (HwIdx)
    W.u64(5);
  for (const Branch &B : Stack)
    W.u64(B.From).u64(B.To).u64(B.Flags);
  return W.record(PERF_RECORD_SAMPLE);
}

/// The sample_id trailer for layout(): pid,tid time cpu,res.
RecordWriter &sampleId(RecordWriter &W, uint32_t Pid, uint64_t Time) {
  return W.u32(Pid).u32(Pid).u64(Time).u32(0).u32(0);
}

PerfRecording parse(const std::vector<uint8_t> &Bytes, RecordLayout L = layout()) {
  RecordParser P(std::move(L));
  EXPECT_EQ(errText(P.parse(Bytes)), "");
  return P.take();
}

TEST(RingBuffer, SampleWithBranchStackAndGroupRead) {
  // The counts of Yamamoto et al.'s example: CPI 3,513,946 / 5,614,190 ~ 0.63.
  auto Bytes = sample(
      101, 5000, 0x401136, 3513946, 5614190,
      {{0x401130, 0x401100, RecordWriter::flags(false, true, 17, PERF_BR_CALL)},
       {0x4010f0, 0x401120,
        RecordWriter::flags(true, false, 3, PERF_BR_COND, /*InTx=*/true,
                            /*Abort=*/true)}});
  PerfRecording R = parse(Bytes);
  ASSERT_EQ(R.Samples.size(), 1u);
  const RecordedSample &S = R.Samples[0];
  EXPECT_EQ(S.Sample.IP, 0x401136u);
  EXPECT_EQ(S.Sample.Pid, 100u);
  EXPECT_EQ(S.Sample.Tid, 101u);
  EXPECT_EQ(S.Sample.Time, 5000u);
  EXPECT_EQ(S.Sample.Event, "cycles");
  EXPECT_EQ(S.CPU, 1u);
  EXPECT_EQ(S.Period, 100003u);
  EXPECT_EQ(S.Sample.Cycles, 3513946u);
  EXPECT_EQ(S.Sample.Instructions, 5614190u);
  EXPECT_NEAR(double(S.Sample.Cycles) / double(S.Sample.Instructions), 0.63,
              0.005);
  ASSERT_EQ(S.Sample.Stack.size(), 2u);
  const LBREntry &E0 = S.Sample.Stack[0], &E1 = S.Sample.Stack[1];
  EXPECT_EQ(E0.From, 0x401130u);
  EXPECT_EQ(E0.To, 0x401100u);
  EXPECT_FALSE(E0.Mispred);
  EXPECT_TRUE(E0.Predicted);
  EXPECT_FALSE(E0.InTx);
  EXPECT_EQ(E0.Cycles, 17u);
  EXPECT_EQ(E0.Type, "CALL");
  EXPECT_TRUE(E1.Mispred);
  EXPECT_FALSE(E1.Predicted);
  EXPECT_TRUE(E1.InTx);
  EXPECT_TRUE(E1.Abort);
  EXPECT_EQ(E1.Cycles, 3u);
  EXPECT_EQ(E1.Type, "COND");
}

TEST(RingBuffer, MaximalCycleFieldAndHardwareIndex) {
  auto Bytes = sample(101, 1, 0x10, 1, 1,
                      {{0x20, 0x30, RecordWriter::flags(false, false, 0xffff,
                                                        PERF_BR_RET)}},
                      /*HwIdx=*/true);
  PerfRecording R = parse(Bytes, layout(PERF_SAMPLE_BRANCH_ANY |
                                    PERF_SAMPLE_BRANCH_HW_INDEX));
  ASSERT_EQ(R.Samples.size(), 1u);
  ASSERT_EQ(R.Samples[0].Sample.Stack.size(), 1u);
  EXPECT_EQ(R.Samples[0].Sample.Stack[0].From, 0x20u);
  EXPECT_EQ(R.Samples[0].Sample.Stack[0].Cycles, 0xffffu);
  EXPECT_EQ(R.Samples[0].Sample.Stack[0].Type, "RET");
  EXPECT_EQ(R.Samples[0].Sample.Stack[0].Predicted, false);
}

TEST(RingBuffer, CPIDeltasPerThreadAndGroup) {
  std::vector<uint8_t> Bytes;
  // Thread 101: totals 1000/2000, then 1600/2400 -> deltas 600/400.
  // Thread 102 in between must not disturb 101's deltas; the group on
  // another CPU (leader id 20) keeps its own totals.
  test::append(Bytes, sample(101, 10, 0x1, 1000, 2000, {}));
  test::append(Bytes, sample(102, 11, 0x2, 50, 70, {}));
  test::append(Bytes, sample(101, 12, 0x3, 1600, 2400, {}));
  test::append(Bytes, sample(101, 13, 0x4, 300, 900, {}, false, 20));
  test::append(Bytes, sample(102, 14, 0x5, 80, 100, {}));
  RecordLayout L = layout();
  L.Roles[20] = CounterRole::Cycles;
  L.Roles[21] = CounterRole::Instructions;
  PerfRecording R = parse(Bytes, L);
  ASSERT_EQ(R.Samples.size(), 5u);
  auto Deltas = [&](size_t I) {
    return std::make_pair(R.Samples[I].Sample.Cycles,
                          R.Samples[I].Sample.Instructions);
  };
  EXPECT_EQ(Deltas(0), std::make_pair(uint64_t(1000), uint64_t(2000)));
  EXPECT_EQ(Deltas(1), std::make_pair(uint64_t(50), uint64_t(70)));
  EXPECT_EQ(Deltas(2), std::make_pair(uint64_t(600), uint64_t(400)));
  EXPECT_EQ(Deltas(3), std::make_pair(uint64_t(300), uint64_t(900)));
  EXPECT_EQ(Deltas(4), std::make_pair(uint64_t(30), uint64_t(30)));
}

TEST(RingBuffer, SamplesComeOutInTimeOrder) {
  std::vector<uint8_t> Bytes;
  test::append(Bytes, sample(101, 30, 0x3, 1, 1, {}));
  test::append(Bytes, sample(102, 10, 0x1, 1, 1, {}));
  PerfRecording R = parse(Bytes);
  ASSERT_EQ(R.Samples.size(), 2u);
  EXPECT_EQ(R.Samples[0].Sample.IP, 0x1u);
  EXPECT_EQ(R.Samples[1].Sample.IP, 0x3u);
}

TEST(RingBuffer, Mmap2CommForkExit) {
  std::vector<uint8_t> Bytes;
  RecordWriter W;
  // MMAP2 of a PIE's text: pid,tid addr len pgoff maj min ino ino_gen
  // prot flags filename sample_id.
  W.u32(100).u32(100).u64(0x555555554000).u64(0x2000).u64(0x1000);
  W.u32(8).u32(1).u64(1234).u64(0).u32(5).u32(2).str("/tmp/a.out");
  sampleId(W, 100, 7);
  test::append(Bytes, W.record(PERF_RECORD_MMAP2));
  // MMAP2 carrying a build id instead of the inode.
  W.u32(100).u32(100).u64(0x7f0000000000).u64(0x1000).u64(0);
  W.u64(0).u64(0).u64(0); // 24 bytes of union, patched below
  W.u32(5).u32(2).str("/lib/libc.so.6");
  sampleId(W, 100, 8);
  std::vector<uint8_t> WithId = W.record(PERF_RECORD_MMAP2,
                                         PERF_RECORD_MISC_MMAP_BUILD_ID);
  size_t Union = sizeof(perf_event_header) + 32;
  WithId[Union] = 4; // build_id_size
  WithId[Union + 4] = 0xde, WithId[Union + 5] = 0xad, WithId[Union + 6] = 0xbe,
                 WithId[Union + 7] = 0xef;
  test::append(Bytes, WithId);
  W.u32(100).u32(100).str("a.out");
  sampleId(W, 100, 9);
  test::append(Bytes, W.record(PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC));
  // FORK: pid ppid tid ptid time.
  W.u32(200).u32(100).u32(200).u32(100).u64(20);
  sampleId(W, 200, 20);
  test::append(Bytes, W.record(PERF_RECORD_FORK));
  W.u32(200).u32(100).u32(200).u32(100).u64(30);
  sampleId(W, 200, 30);
  test::append(Bytes, W.record(PERF_RECORD_EXIT));

  PerfRecording R = parse(Bytes);
  ASSERT_EQ(R.Mappings.size(), 2u);
  const Mapping &M = R.Mappings[0];
  EXPECT_EQ(M.Pid, 100u);
  EXPECT_EQ(M.Start, 0x555555554000u);
  EXPECT_EQ(M.Length, 0x2000u);
  EXPECT_EQ(M.PgOff, 0x1000u);
  EXPECT_EQ(M.Prot, 5u);
  EXPECT_EQ(M.Path, "/tmp/a.out");
  EXPECT_EQ(M.Time, 7u);
  EXPECT_EQ(M.BuildID, "");
  EXPECT_EQ(R.Mappings[1].BuildID, "deadbeef");
  EXPECT_EQ(R.Mappings[1].Path, "/lib/libc.so.6");
  ASSERT_EQ(R.Tasks.size(), 3u);
  EXPECT_EQ(R.Tasks[0].Kind, TaskEvent::Comm);
  EXPECT_EQ(R.Tasks[0].Name, "a.out");
  EXPECT_TRUE(R.Tasks[0].Exec);
  EXPECT_EQ(R.Tasks[0].Time, 9u);
  EXPECT_EQ(R.Tasks[1].Kind, TaskEvent::Fork);
  EXPECT_EQ(R.Tasks[1].PPid, 100u);
  EXPECT_EQ(R.Tasks[2].Kind, TaskEvent::Exit);
  EXPECT_EQ(R.Tasks[2].Time, 30u);

  // Addresses map back to files; the forked child sees its parent's maps.
  EXPECT_EQ(R.mappingAt(100, 0x555555555234, 50), &R.Mappings[0]);
  EXPECT_EQ(R.mappingAt(200, 0x555555555234, 50), &R.Mappings[0]);
  EXPECT_EQ(R.mappingAt(100, 0x555555556000, 50), nullptr);
  EXPECT_EQ(R.mappingAt(300, 0x555555555234, 50), nullptr);
  EXPECT_EQ(R.mappingAt(100, 0x555555555234, 5), nullptr); // before mmap
}

TEST(RingBuffer, LostAndThrottleAreCounted) {
  std::vector<uint8_t> Bytes;
  RecordWriter W;
  for (uint64_t Lost : {3, 4}) {
    W.u64(LeaderId).u64(Lost);
    sampleId(W, 100, 1);
    test::append(Bytes, W.record(PERF_RECORD_LOST));
  }
  W.u64(9);
  sampleId(W, 100, 1);
  test::append(Bytes, W.record(PERF_RECORD_LOST_SAMPLES));
  for (uint32_t T : {PERF_RECORD_THROTTLE, PERF_RECORD_UNTHROTTLE,
                     PERF_RECORD_THROTTLE}) {
    W.u64(5).u64(LeaderId).u64(0);
    sampleId(W, 100, 5);
    test::append(Bytes, W.record(T));
  }
  W.u64(0);
  sampleId(W, 100, 5);
  test::append(Bytes, W.record(PERF_RECORD_SWITCH + 100)); // unknown type
  PerfRecording R = parse(Bytes);
  EXPECT_EQ(R.Stats.LostRecords, 2u);
  EXPECT_EQ(R.Stats.LostEvents, 7u);
  EXPECT_EQ(R.Stats.LostSamples, 9u);
  EXPECT_EQ(R.Stats.Throttles, 2u);
  EXPECT_EQ(R.Stats.Unthrottles, 1u);
  EXPECT_EQ(R.Stats.Unknown, 1u);
  EXPECT_TRUE(R.Samples.empty());
}

TEST(RingBuffer, RecordWrappedAroundTheEnd) {
  // A 256-byte ring; the reader has consumed 3 full laps plus 200 bytes. A
  // LOST record (40 bytes) sits at 200..240, then a sample of 8+40+40+8+48
  // = 144 bytes starts at 240 and continues at offset 0.
  std::vector<uint8_t> Ring(256, 0xee), Stream;
  RecordWriter W;
  W.u64(LeaderId).u64(1);
  sampleId(W, 100, 1);
  test::append(Stream, W.record(PERF_RECORD_LOST));
  test::append(Stream,
               sample(101, 77, 0x401136, 900, 1000,
                      {{0x401130, 0x401100,
                        RecordWriter::flags(false, true, 12, PERF_BR_CALL)},
                       {0x4010f0, 0x401120,
                        RecordWriter::flags(true, false, 5, PERF_BR_RET)}}));
  const uint64_t Tail = 3 * 256 + 200, Head = Tail + Stream.size();
  ASSERT_GT((Tail & 255) + Stream.size(), 256u); // really wraps
  for (size_t I = 0; I < Stream.size(); ++I)
    Ring[(Tail + I) & 255] = Stream[I];

  RecordParser P(layout());
  ASSERT_EQ(errText(P.parseRing(Ring, Tail, Head)), "");
  ASSERT_EQ(errText(P.parseRing(Ring, Head, Head)), "");
  PerfRecording R = P.take();
  EXPECT_EQ(R.Stats.LostRecords, 1u);
  ASSERT_EQ(R.Samples.size(), 1u);
  const RawSample &S = R.Samples[0].Sample;
  EXPECT_EQ(S.IP, 0x401136u);
  EXPECT_EQ(S.Time, 77u);
  EXPECT_EQ(S.Cycles, 900u);
  EXPECT_EQ(S.Instructions, 1000u);
  ASSERT_EQ(S.Stack.size(), 2u);
  EXPECT_EQ(S.Stack[1].From, 0x4010f0u);
  EXPECT_EQ(S.Stack[1].To, 0x401120u);
  EXPECT_TRUE(S.Stack[1].Mispred);
  EXPECT_EQ(S.Stack[1].Cycles, 5u);
}

TEST(RingBuffer, DrainMappedRingPublishesTheTail) {
  // A metadata page and one data page, laid out as the kernel maps them;
  // the reader is one lap and 4000 bytes in, so the second sample wraps.
  constexpr size_t Page = 4096;
  alignas(8) static uint8_t Map[2 * Page];
  std::memset(Map, 0, sizeof(Map));
  auto *Meta = reinterpret_cast<perf_event_mmap_page *>(Map);
  Meta->data_offset = Page;
  Meta->data_size = Page;
  std::vector<uint8_t> Stream;
  test::append(Stream, sample(101, 1, 0x10, 100, 200, {}));
  test::append(Stream, sample(101, 2, 0x20, 150, 300,
                              {{0x1, 0x2, RecordWriter::flags(0, 1, 7, 0)}}));
  const uint64_t Tail = Page + 4000;
  for (size_t I = 0; I < Stream.size(); ++I)
    Map[Page + ((Tail + I) & (Page - 1))] = Stream[I];
  Meta->data_tail = Tail;
  Meta->data_head = Tail + Stream.size();

  RecordParser P(layout());
  ASSERT_EQ(errText(drainMappedRing(Map, sizeof(Map), Page, P)), "");
  EXPECT_EQ(Meta->data_tail, Meta->data_head);
  // Nothing new: nothing parsed twice.
  ASSERT_EQ(errText(drainMappedRing(Map, sizeof(Map), Page, P)), "");
  PerfRecording R = P.take();
  ASSERT_EQ(R.Samples.size(), 2u);
  EXPECT_EQ(R.Samples[1].Sample.Cycles, 50u);
  EXPECT_EQ(R.Samples[1].Sample.Instructions, 100u);
  ASSERT_EQ(R.Samples[1].Sample.Stack.size(), 1u);
  EXPECT_EQ(R.Samples[1].Sample.Stack[0].Cycles, 7u);

  // A layout that does not fit the mapping is refused.
  Meta->data_size = 2 * Page;
  EXPECT_NE(errText(drainMappedRing(Map, sizeof(Map), Page, P)), "");
}

TEST(RingBuffer, MalformedRecordsAreErrors) {
  auto Bytes = sample(101, 1, 0x1, 1, 1, {{0x1, 0x2, 0}});
  // Claim 5 branch entries where there is room for one.
  std::vector<uint8_t> Bad = Bytes;
  size_t NrOffset = sizeof(perf_event_header) + 40 + 40;
  Bad[NrOffset] = 5;
  RecordParser P(layout());
  EXPECT_EQ(errText(P.parse(Bad)), 
                                      "truncated SAMPLE branch stack record "
                                      "in the perf ring buffer");
  // A record longer than the bytes that are there.
  std::vector<uint8_t> Short(Bytes.begin(), Bytes.end() - 8);
  EXPECT_NE(errText(P.parse(Short)), "");
  // Ring positions the kernel cannot produce.
  std::vector<uint8_t> Ring(256);
  EXPECT_NE(errText(P.parseRing(Ring, 100, 400)), "");
  EXPECT_NE(errText(P.parseRing(std::vector<uint8_t>(100), 0, 8)), "");
  // Fuzzer regression (test/fuzz/corpus/ring-buffer/regress-header-wraps):
  // a misaligned tail whose header runs past the end of the data area, and
  // fewer bytes than a header, are errors, not reads past the ring.
  std::vector<uint8_t> Small(8, 0xff);
  EXPECT_NE(errText(P.parseRing(Small, 4, 12)), "");
  EXPECT_NE(errText(P.parseRing(Small, 0, 4)), "");
  std::vector<uint8_t> Wrap(16, 0);
  Wrap[14] = 9; // type PERF_RECORD_SAMPLE, misc 0, size 16 across the wrap
  Wrap[4] = 16;
  EXPECT_NE(errText(P.parseRing(Wrap, 14, 30)), "");
  // Fuzzer regression (regress-mmap2-build-id): an MMAP2 with a build id
  // that ends inside the 24-byte build-id union was read past the record.
  RecordLayout NoId = layout();
  NoId.SampleIdAll = false;
  RecordWriter W;
  W.u32(100).u32(100).u64(0x7f0000000000).u64(0x1000).u64(0).u64(0x14);
  RecordParser Q(NoId);
  EXPECT_EQ(errText(Q.parse(W.record(PERF_RECORD_MMAP2,
                                     PERF_RECORD_MISC_MMAP_BUILD_ID))),
            "truncated MMAP2 record in the perf ring buffer");
}

} // namespace
