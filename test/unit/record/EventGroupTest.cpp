//===- EventGroupTest.cpp - perf_event_attr bits for every option ---------===//
#include "keel/Record/EventGroup.h"

#include "TestErrors.h"
#include "gtest/gtest.h"

#include <cstdlib>

using namespace keel;
using keel::test::errText;

// libpfm4 encodings depend on the PMU model: force Skylake before libpfm4
// initialises (on first use), so every machine sees the same numbers.
static const int ForcePMU = setenv("LIBPFM_FORCE_PMU", "skl", 1);

namespace {

EventGroup build(const RecordOptions &O) {
  llvm::Expected<EventGroup> G = buildEventGroup(O);
  EXPECT_EQ(errText(G), "");
  return G ? std::move(*G) : EventGroup();
}

std::string errorOf(const RecordOptions &O) {
  llvm::Expected<EventGroup> G = buildEventGroup(O);
  if (G)
    return "";
  return llvm::toString(G.takeError());
}

constexpr uint64_t SampleBits = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
                                PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
                                PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ;

TEST(EventGroup, DefaultsSampleCyclesWithEveryTakenBranch) {
  (void)ForcePMU;
  EventGroup G = build(RecordOptions());
  // cycles leads and is also the cycles counter; instructions is a member.
  ASSERT_EQ(G.Members.size(), 2u);
  const perf_event_attr &L = G.Members[0].Attr;
  EXPECT_EQ(L.size, sizeof(perf_event_attr));
  EXPECT_EQ(L.type, uint32_t(PERF_TYPE_HARDWARE));
  EXPECT_EQ(L.config, uint64_t(PERF_COUNT_HW_CPU_CYCLES));
  EXPECT_EQ(L.sample_type, SampleBits | PERF_SAMPLE_BRANCH_STACK);
  EXPECT_EQ(L.read_format, uint64_t(PERF_FORMAT_GROUP | PERF_FORMAT_ID));
  EXPECT_EQ(L.branch_sample_type,
            uint64_t(PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER |
                     PERF_SAMPLE_BRANCH_TYPE_SAVE));
  EXPECT_EQ(L.freq, 1u);
  EXPECT_EQ(L.sample_freq, 10000u); // the seeds' 100 us interval
  EXPECT_EQ(L.disabled, 1u);
  EXPECT_EQ(L.enable_on_exec, 1u);
  EXPECT_EQ(L.inherit, 1u);
  EXPECT_EQ(L.exclude_kernel, 1u);
  EXPECT_EQ(L.exclude_hv, 1u);
  EXPECT_EQ(L.exclude_user, 0u);
  EXPECT_EQ(L.mmap, 1u);
  EXPECT_EQ(L.mmap2, 1u);
  EXPECT_EQ(L.mmap_data, 0u);
  EXPECT_EQ(L.comm, 1u);
  EXPECT_EQ(L.comm_exec, 1u);
  EXPECT_EQ(L.task, 1u);
  EXPECT_EQ(L.sample_id_all, 1u);
  EXPECT_EQ(L.watermark, 1u);
  EXPECT_EQ(L.wakeup_watermark, 128u * 4096 / 4);
  EXPECT_EQ(G.Members[0].Roles,
            (std::vector<CounterRole>{CounterRole::Sample, CounterRole::Cycles}));

  const perf_event_attr &M = G.Members[1].Attr;
  EXPECT_EQ(M.type, uint32_t(PERF_TYPE_HARDWARE));
  EXPECT_EQ(M.config, uint64_t(PERF_COUNT_HW_INSTRUCTIONS));
  EXPECT_EQ(M.sample_type, 0u);
  EXPECT_EQ(M.sample_period, 0u);
  EXPECT_EQ(M.read_format, L.read_format);
  EXPECT_EQ(M.disabled, 0u); // follows the leader
  EXPECT_EQ(M.enable_on_exec, 0u);
  EXPECT_EQ(M.inherit, 1u);
  EXPECT_EQ(M.exclude_kernel, 1u);
  EXPECT_EQ(M.mmap2, 0u);
  EXPECT_EQ(M.branch_sample_type, 0u);
  EXPECT_EQ(G.Members[1].Roles,
            (std::vector<CounterRole>{CounterRole::Instructions}));
}

TEST(EventGroup, UserCallRetPresetIsUserCallAndReturn) {
  llvm::Expected<uint64_t> F = parseBranchFilter("user-callret", /*Kernel=*/false);
  ASSERT_EQ(errText(F), "");
  EXPECT_EQ(*F, uint64_t(PERF_SAMPLE_BRANCH_ANY_CALL |
                         PERF_SAMPLE_BRANCH_ANY_RETURN |
                         PERF_SAMPLE_BRANCH_USER));
  EXPECT_EQ(branchFilterName(*F), "call,return,user");
  RecordOptions O;
  O.LBR = "user-callret";
  EXPECT_EQ(build(O).Members[0].Attr.branch_sample_type,
            *F | PERF_SAMPLE_BRANCH_TYPE_SAVE);
}

TEST(EventGroup, EachFilterWordSetsItsBit) {
  struct Case {
    const char *Spec;
    uint64_t Bits;
  } Cases[] = {
      {"any", PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER},
      {"call", PERF_SAMPLE_BRANCH_ANY_CALL | PERF_SAMPLE_BRANCH_USER},
      {"return", PERF_SAMPLE_BRANCH_ANY_RETURN | PERF_SAMPLE_BRANCH_USER},
      {"ind_call", PERF_SAMPLE_BRANCH_IND_CALL | PERF_SAMPLE_BRANCH_USER},
      {"call,kernel", PERF_SAMPLE_BRANCH_ANY_CALL | PERF_SAMPLE_BRANCH_KERNEL},
      {"any,user,kernel", PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER |
                              PERF_SAMPLE_BRANCH_KERNEL},
  };
  for (const Case &C : Cases) {
    llvm::Expected<uint64_t> F = parseBranchFilter(C.Spec, false);
    ASSERT_EQ(errText(F), "") << C.Spec;
    EXPECT_EQ(*F, C.Bits) << C.Spec;
  }
  // Without a privilege word, --kernel adds kernel branches.
  llvm::Expected<uint64_t> K = parseBranchFilter("any", /*Kernel=*/true);
  ASSERT_EQ(errText(K), "");
  EXPECT_EQ(*K, uint64_t(PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER |
                         PERF_SAMPLE_BRANCH_KERNEL));
}

TEST(EventGroup, BadFiltersAreErrors) {
  EXPECT_EQ(errText(parseBranchFilter("jumps", false)), 
                           "unknown --lbr word 'jumps' (expected any, call, "
                           "return, ind_call, user, kernel, user-callret or none)");
  EXPECT_NE(errText(parseBranchFilter("user", false)), "");
  EXPECT_NE(errText(parseBranchFilter("", false)), "");
}

TEST(EventGroup, KernelBranchesCountKernelMode) {
  RecordOptions O;
  O.LBR = "call,kernel";
  EventGroup G = build(O);
  for (const GroupMember &M : G.Members)
    EXPECT_EQ(M.Attr.exclude_kernel, 0u);
  EXPECT_EQ(G.Members[0].Attr.branch_sample_type,
            uint64_t(PERF_SAMPLE_BRANCH_ANY_CALL | PERF_SAMPLE_BRANCH_KERNEL |
                     PERF_SAMPLE_BRANCH_TYPE_SAVE));
}

TEST(EventGroup, NoLBRDropsTheBranchStack) {
  RecordOptions O;
  O.LBR = "none";
  // Keep the group alive: L referred into a destroyed temporary (ASan).
  EventGroup G = build(O);
  const perf_event_attr &L = G.Members[0].Attr;
  EXPECT_EQ(L.sample_type, SampleBits);
  EXPECT_EQ(L.branch_sample_type, 0u);
}

TEST(EventGroup, PeriodInsteadOfFrequency) {
  RecordOptions O;
  O.Freq = 0;
  O.Period = 100003;
  // Keep the group alive: L referred into a destroyed temporary (ASan).
  EventGroup G = build(O);
  const perf_event_attr &L = G.Members[0].Attr;
  EXPECT_EQ(L.freq, 0u);
  EXPECT_EQ(L.sample_period, 100003u);
  O.Freq = 1000;
  EXPECT_EQ(errorOf(O), "give exactly one of --period and --freq");
  O.Freq = O.Period = 0;
  EXPECT_EQ(errorOf(O), "give exactly one of --period and --freq");
}

TEST(EventGroup, InheritDataMmapsAndRingSize) {
  RecordOptions O;
  O.Inherit = false;
  O.DataMmaps = true;
  O.MmapPages = 64;
  EventGroup G = build(O);
  for (const GroupMember &M : G.Members)
    EXPECT_EQ(M.Attr.inherit, 0u);
  EXPECT_EQ(G.Members[0].Attr.mmap_data, 1u);
  EXPECT_EQ(G.Members[0].Attr.wakeup_watermark, 64u * 4096 / 4);
  O.MmapPages = 48;
  EXPECT_EQ(errorOf(O), "--mmap-pages must be a power of two, not 48");
}

TEST(EventGroup, SeedCountersByLibpfmName) {
  // Seed 000: sample on retired instructions, count the cycles and
  // instructions PMCs by their Intel names.
  RecordOptions O;
  O.Event = "BR_INST_RETIRED.NEAR_TAKEN";
  O.CyclesEvent = "CPU_CLK_UNHALTED.THREAD_P";
  O.InstructionsEvent = "INST_RETIRED.ANY_P";
  EventGroup G = build(O);
  ASSERT_EQ(G.Members.size(), 3u);
  EXPECT_EQ(G.Members[0].Attr.type, uint32_t(PERF_TYPE_RAW));
  EXPECT_EQ(G.Members[0].Attr.config, 0x20c4u);
  EXPECT_EQ(G.Members[1].Attr.type, uint32_t(PERF_TYPE_RAW));
  EXPECT_EQ(G.Members[1].Attr.config, 0x3cu);
  EXPECT_EQ(G.Members[1].Roles, std::vector<CounterRole>{CounterRole::Cycles});
  EXPECT_EQ(G.Members[2].Attr.config, 0xc0u);
  EXPECT_EQ(G.Members[2].Event.FullName.rfind("skl::INST_RETIRED:ANY_P", 0), 0u);
  EXPECT_FALSE(G.Members[0].Event.IsAMDBRS);
  // A leader that is the instructions counter is not opened twice.
  O.Event = "INST_RETIRED:ANY_P";
  G = build(O);
  ASSERT_EQ(G.Members.size(), 2u);
  EXPECT_EQ(G.Members[0].Roles, (std::vector<CounterRole>{
                                    CounterRole::Sample,
                                    CounterRole::Instructions}));
}

TEST(EventGroup, UnknownEventIsAnError) {
  RecordOptions O;
  O.Event = "NO_SUCH_EVENT.AT_ALL";
  std::string Msg = errorOf(O);
  EXPECT_NE(Msg.find("unknown event 'NO_SUCH_EVENT.AT_ALL'"), std::string::npos)
      << Msg;
}

TEST(EventGroup, MemorySamplesArePreciseWithAddressAndDataSource) {
  // layout-falseshare record: perf c2c's load-latency event, one counter.
  RecordOptions O;
  O.Event = "MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=30";
  O.LBR = "none";
  O.Freq = 0;
  O.Period = 1000;
  O.DataMmaps = true;
  O.MemorySamples = true;
  EventGroup G = build(O);
  ASSERT_EQ(G.Members.size(), 1u); // no cycles / instructions members
  const perf_event_attr &L = G.Members[0].Attr;
  EXPECT_EQ(L.type, uint32_t(PERF_TYPE_RAW));
  EXPECT_EQ(L.config & 0xffff, 0x1cdu); // event 0xcd, umask 0x01
  EXPECT_EQ(L.config1, 30u);            // the latency threshold
  EXPECT_EQ(L.precise_ip, 2u);
  EXPECT_EQ(L.sample_type, SampleBits | PERF_SAMPLE_ADDR |
                               PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT);
  EXPECT_EQ(L.branch_sample_type, 0u);
  EXPECT_EQ(L.sample_period, 1000u);
  EXPECT_EQ(L.mmap_data, 1u);
  // An event that counts only HITM loads (Skylake's name).
  O.Event = "MEM_LOAD_L3_HIT_RETIRED.XSNP_HITM";
  G = build(O);
  ASSERT_EQ(G.Members.size(), 1u);
  EXPECT_EQ(G.Members[0].Attr.config & 0xffff, 0x4d2u);
  EXPECT_EQ(G.Members[0].Attr.precise_ip, 2u);
  // No branch stacks with memory samples.
  O.LBR = "any";
  EXPECT_EQ(errorOf(O), "memory-access sampling records no branch stack; use "
                        "--lbr=none, not --lbr=any");
}

TEST(EventGroup, NoCPICountersWhenAskedNot) {
  RecordOptions O;
  O.CyclesEvent = O.InstructionsEvent = "";
  EventGroup G = build(O);
  ASSERT_EQ(G.Members.size(), 1u);
  EXPECT_EQ(G.Members[0].Roles, std::vector<CounterRole>{CounterRole::Sample});
}

} // namespace
