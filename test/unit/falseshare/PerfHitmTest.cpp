// HITM memory samples (perf c2c style) from byte fixtures in the kernel's
// record layout -> keelRecord's parser -> keel::fs::hitmReport -> the
// libkeelfs text report -> parseRawReport / classifyLine.
#include "../record/RecordWriter.h"
#include "../record/TestErrors.h"

#include "keel/FalseShare/PerfHitm.h"
#include "keel/Record/RingBuffer.h"

#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace keel;
using namespace keel::fs;
using keel::test::append;
using keel::test::errText;
using keel::test::RecordWriter;
using llvm::Expected;

namespace {

constexpr uint64_t LeaderId = 7;

// What buildEventGroup asks for with MemorySamples (EventGroupTest checks
// the attributes): a group read of the leader alone.
RecordLayout memLayout() {
  RecordLayout L;
  L.SampleType = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                 PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
                 PERF_SAMPLE_READ | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC;
  L.ReadFormat = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
  L.EventName = "MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=30";
  return L;
}

uint64_t src(unsigned Op, unsigned Lvl, unsigned Snoop, bool Remote = false) {
  return uint64_t(Op) << PERF_MEM_OP_SHIFT |
         uint64_t(Lvl) << PERF_MEM_LVL_SHIFT |
         uint64_t(Snoop) << PERF_MEM_SNOOP_SHIFT |
         uint64_t(Remote) << PERF_MEM_REMOTE_SHIFT;
}

const uint64_t LocalHitm =
    src(PERF_MEM_OP_LOAD, PERF_MEM_LVL_HIT | PERF_MEM_LVL_L3,
        PERF_MEM_SNOOP_HITM);
const uint64_t L1Hit =
    src(PERF_MEM_OP_LOAD, PERF_MEM_LVL_HIT | PERF_MEM_LVL_L1,
        PERF_MEM_SNOOP_NONE);
const uint64_t StoreL1 =
    src(PERF_MEM_OP_STORE, PERF_MEM_LVL_HIT | PERF_MEM_LVL_L1,
        PERF_MEM_SNOOP_NA);

/// One PERF_RECORD_SAMPLE in memLayout()'s field order.
std::vector<uint8_t> memSample(uint32_t Pid, uint32_t Tid, uint64_t Time,
                               uint64_t IP, uint64_t Addr, uint64_t DataSrc,
                               uint64_t Weight = 120, uint64_t Period = 1000) {
  RecordWriter W;
  W.u64(IP).u32(Pid).u32(Tid).u64(Time).u64(Addr).u32(1).u32(0).u64(Period);
  W.u64(1).u64(Time * 3).u64(LeaderId); // read: nr, value, id
  W.u64(Weight).u64(DataSrc);
  return W.record(PERF_RECORD_SAMPLE);
}

PerfRecording parse(const std::vector<uint8_t> &Bytes) {
  RecordParser P(memLayout());
  EXPECT_EQ(errText(P.parse(Bytes)), "");
  return P.take();
}

/// Seed 004's two threads: thread 101 writes bytes 0-3 of line 0x5000
/// (stores, and HITM loads at byte 0), thread 102 bytes 4-7; both also read
/// line 0x6000 (only L1 hits: no contention).
std::vector<uint8_t> seedFixture() {
  std::vector<uint8_t> B;
  uint64_t T = 1;
  for (int I = 0; I < 3; ++I) {
    append(B, memSample(100, 101, T++, 0x401000, 0x5000, LocalHitm));
    append(B, memSample(100, 102, T++, 0x401000, 0x5004, LocalHitm));
    append(B, memSample(100, 101, T++, 0x401004, 0x5000, StoreL1));
    append(B, memSample(100, 102, T++, 0x401004, 0x5004, StoreL1));
    append(B, memSample(100, 101, T++, 0x401008, 0x6010, L1Hit));
    append(B, memSample(100, 102, T++, 0x401008, 0x6018, L1Hit));
  }
  // Another process's sample is not the program's.
  append(B, memSample(200, 201, T++, 0x401000, 0x5008, LocalHitm));
  return B;
}

RawReport roundTrip(const RawReport &R) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  writeRawReport(R, OS);
  Expected<RawReport> Back = parseRawReport(Text, "hitm.out");
  EXPECT_EQ(errText(Back.takeError()), "") << Text;
  return Back ? std::move(*Back) : RawReport();
}

} // namespace

TEST(PerfHitm, ParserKeepsAddressDataSourceAndWeight) {
  PerfRecording Rec = parse(memSample(100, 101, 5, 0x401000, 0x5004,
                                      LocalHitm, /*Weight=*/345, 997));
  ASSERT_EQ(Rec.Samples.size(), 1u);
  const RecordedSample &S = Rec.Samples[0];
  EXPECT_EQ(S.Sample.IP, 0x401000u);
  EXPECT_EQ(S.Sample.Tid, 101u);
  EXPECT_EQ(S.Addr, 0x5004u);
  EXPECT_EQ(S.DataSrc, LocalHitm);
  EXPECT_EQ(S.Weight, 345u);
  EXPECT_EQ(S.Period, 997u);
}

TEST(PerfHitm, WeightStructKeepsTheLatency) {
  RecordLayout L = memLayout();
  L.SampleType = (L.SampleType & ~uint64_t(PERF_SAMPLE_WEIGHT)) |
                 PERF_SAMPLE_WEIGHT_STRUCT;
  RecordParser P(L);
  // var1 (latency) 345, var2 (instruction latency) 9 in the same u64.
  uint64_t W = 345 | uint64_t(9) << 32;
  ASSERT_EQ(errText(P.parse(memSample(1, 1, 1, 2, 0x40, L1Hit, W))), "");
  PerfRecording Rec = P.take();
  ASSERT_EQ(Rec.Samples.size(), 1u);
  EXPECT_EQ(Rec.Samples[0].Weight, 345u);
  EXPECT_EQ(Rec.Samples[0].DataSrc, L1Hit);
}

TEST(PerfHitm, TruncatedMemoryFieldsAreErrors) {
  std::vector<uint8_t> B = memSample(1, 1, 1, 2, 0x40, L1Hit);
  // Drop the data source and shrink the header to match.
  B.resize(B.size() - 8);
  B[6] = uint8_t(B.size());
  B[7] = uint8_t(B.size() >> 8);
  RecordParser P(memLayout());
  EXPECT_EQ(errText(P.parse(B)),
            "truncated SAMPLE data_src record in the perf ring buffer");
}

TEST(PerfHitm, DecodesTheDataSourceAsPerfDoes) {
  EXPECT_TRUE(DataSource(LocalHitm).hitm());
  EXPECT_TRUE(DataSource(LocalHitm).isLoad());
  EXPECT_FALSE(DataSource(LocalHitm).remoteHitm());
  EXPECT_EQ(DataSource(LocalHitm).describe(), "L3 hit, snoop HITM");
  EXPECT_EQ(DataSource(L1Hit).describe(), "L1 hit, snoop None");
  EXPECT_FALSE(DataSource(L1Hit).hitm());
  uint64_t Remote = src(PERF_MEM_OP_LOAD,
                        PERF_MEM_LVL_HIT | PERF_MEM_LVL_REM_CCE1,
                        PERF_MEM_SNOOP_HITM);
  EXPECT_TRUE(DataSource(Remote).remoteHitm());
  EXPECT_EQ(DataSource(Remote).describe(),
            "Remote Cache (1 hop) hit, snoop HITM");
  // mem_remote with an L3 level (newer kernels) is remote too.
  EXPECT_TRUE(DataSource(src(PERF_MEM_OP_LOAD,
                             PERF_MEM_LVL_HIT | PERF_MEM_LVL_L3,
                             PERF_MEM_SNOOP_HITM, /*Remote=*/true))
                  .remoteHitm());
  EXPECT_TRUE(DataSource(StoreL1).isStore());
  EXPECT_FALSE(DataSource(StoreL1).hitm());
  uint64_t Peer = uint64_t(PERF_MEM_SNOOPX_PEER) << PERF_MEM_SNOOPX_SHIFT |
                  uint64_t(PERF_MEM_OP_LOAD);
  EXPECT_TRUE(DataSource(Peer).peer());
  EXPECT_FALSE(DataSource(Peer).hitm());
  EXPECT_EQ(DataSource(0).describe(), "N/A");
}

TEST(PerfHitm, EventsThatCountOnlyHitm) {
  EXPECT_TRUE(eventCountsOnlyHitm("MEM_LOAD_L3_HIT_RETIRED.XSNP_HITM"));
  EXPECT_TRUE(eventCountsOnlyHitm("mem_load_l3_hit_retired:xsnp_fwd"));
  EXPECT_FALSE(eventCountsOnlyHitm("MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=30"));
  EXPECT_FALSE(eventCountsOnlyHitm("MEM_LOAD_L3_HIT_RETIRED.XSNP_MISS"));
}

TEST(PerfHitm, SeedFixtureIsFalseSharingInTheKeelfsReport) {
  PerfRecording Rec = parse(seedFixture());
  HitmStats Stats;
  Expected<RawReport> R =
      hitmReport(Rec, nullptr, "/bin/fs-array", HitmOptions(), Stats);
  ASSERT_EQ(errText(R.takeError()), "");
  EXPECT_EQ(Stats.Samples, 19u);
  EXPECT_EQ(Stats.OtherProcess, 1u);
  EXPECT_EQ(Stats.Memory, 18u);
  EXPECT_EQ(Stats.Loads, 12u);
  EXPECT_EQ(Stats.Stores, 6u);
  EXPECT_EQ(Stats.Hitm, 6u);
  EXPECT_EQ(Stats.Lines, 2u);
  EXPECT_EQ(Stats.HitmLines, 1u);

  RawReport Back = roundTrip(*R);
  EXPECT_EQ(Back.Exe, "/bin/fs-array");
  EXPECT_EQ(Back.Threads, 2u);
  // Only the contended line: 0x6000 had no HITM.
  ASSERT_EQ(Back.Lines.size(), 1u);
  const LineRecord &L = Back.Lines[0];
  EXPECT_EQ(L.Addr, 0x5000u);
  ASSERT_EQ(L.Threads.size(), 2u);
  // No binary: one byte per access. Threads numbered by first sample.
  EXPECT_EQ(L.Threads[0].Tid, 1u);
  EXPECT_EQ(L.Threads[0].RMask, 0x1u);
  EXPECT_EQ(L.Threads[0].WMask, 0x1u);
  EXPECT_EQ(L.Threads[0].Reads, 3000u); // 3 samples x period 1000
  EXPECT_EQ(L.Threads[0].Writes, 3000u);
  EXPECT_EQ(L.Threads[1].RMask, 0x10u);
  EXPECT_EQ(L.Threads[1].WMask, 0x10u);
  // Sites without a binary are the sampled IPs, most frequent first.
  ASSERT_EQ(L.Threads[1].Sites.size(), 2u);
  EXPECT_EQ(L.Threads[1].Sites[0].Function, "0x401000");
  EXPECT_EQ(L.Threads[1].Sites[0].Count, 3000u);

  LineVerdict V = classifyLine(L, 100);
  EXPECT_EQ(V.Kind, Sharing::False);
}

TEST(PerfHitm, AllLinesKeepsUncontendedSharedLines) {
  PerfRecording Rec = parse(seedFixture());
  HitmOptions O;
  O.AllLines = true;
  HitmStats Stats;
  Expected<RawReport> R = hitmReport(Rec, nullptr, "p", O, Stats);
  ASSERT_EQ(errText(R.takeError()), "");
  ASSERT_EQ(R->Lines.size(), 2u);
  EXPECT_EQ(R->Lines[1].Addr, 0x6000u);
  // Two readers: nothing to report.
  EXPECT_EQ(classifyLine(R->Lines[1], 100).Kind, Sharing::None);
}

TEST(PerfHitm, SameBytesAreTrueSharing) {
  std::vector<uint8_t> B;
  for (uint64_t T = 1; T <= 4; T += 2) {
    append(B, memSample(100, 101, T, 0x401000, 0x7008, LocalHitm));
    append(B, memSample(100, 102, T + 1, 0x401000, 0x7008, LocalHitm));
  }
  append(B, memSample(100, 101, 9, 0x401004, 0x7008, StoreL1));
  append(B, memSample(100, 102, 10, 0x401004, 0x7008, StoreL1));
  HitmStats Stats;
  Expected<RawReport> R =
      hitmReport(parse(B), nullptr, "p", HitmOptions(), Stats);
  ASSERT_EQ(errText(R.takeError()), "");
  RawReport Back = roundTrip(*R);
  ASSERT_EQ(Back.Lines.size(), 1u);
  EXPECT_EQ(classifyLine(Back.Lines[0], 100).Kind, Sharing::True);
}

TEST(PerfHitm, HitmEventsNeedNoDataSource) {
  // XSNP_HITM samples: the kernel fills mem_op only.
  std::vector<uint8_t> B;
  uint64_t LoadOnly = PERF_MEM_OP_LOAD;
  append(B, memSample(100, 101, 1, 0x401000, 0x5000, LoadOnly));
  append(B, memSample(100, 102, 2, 0x401000, 0x5020, LoadOnly));
  HitmStats Plain, Hitm;
  Expected<RawReport> R1 = hitmReport(parse(B), nullptr, "p", HitmOptions(), Plain);
  ASSERT_EQ(errText(R1.takeError()), "");
  EXPECT_EQ(Plain.Hitm, 0u);
  EXPECT_TRUE(R1->Lines.empty());
  HitmOptions O;
  O.EventIsHitm = true;
  Expected<RawReport> R2 = hitmReport(parse(B), nullptr, "p", O, Hitm);
  ASSERT_EQ(errText(R2.takeError()), "");
  EXPECT_EQ(Hitm.Hitm, 2u);
  ASSERT_EQ(R2->Lines.size(), 1u);
  EXPECT_EQ(R2->Lines[0].Threads.size(), 2u);
}

TEST(PerfHitm, SamplesWithoutAnAddressAreCounted) {
  std::vector<uint8_t> B = memSample(100, 101, 1, 0x401000, 0, LocalHitm);
  HitmStats Stats;
  Expected<RawReport> R =
      hitmReport(parse(B), nullptr, "p", HitmOptions(), Stats);
  ASSERT_EQ(errText(R.takeError()), "");
  EXPECT_EQ(Stats.NoAddress, 1u);
  EXPECT_EQ(Stats.Memory, 0u);
  EXPECT_TRUE(R->Lines.empty());
}
