//===- AMDEventTest.cpp - AMD Zen3 branch sampling (BRS) attributes -------===//
#include "keel/Record/EventGroup.h"

#include "TestErrors.h"
#include "gtest/gtest.h"

#include <cstdlib>

using namespace keel;
using keel::test::errText;

// A separate binary: libpfm4 takes one forced PMU per process.
static const int ForcePMU = setenv("LIBPFM_FORCE_PMU", "amd64_fam19h_zen3", 1);

namespace {

RecordOptions brs() {
  RecordOptions O;
  O.Event = "RETIRED_TAKEN_BRANCH_INSTRUCTIONS";
  O.Freq = 0;
  O.Period = 100003;
  return O;
}

TEST(AMDBRS, RetiredTakenBranchesWithAFixedPeriod) {
  (void)ForcePMU;
  llvm::Expected<EventGroup> G = buildEventGroup(brs());
  ASSERT_EQ(errText(G), "");
  const GroupMember &L = G->Members[0];
  EXPECT_TRUE(L.Event.IsAMDBRS);
  EXPECT_EQ(L.Attr.type, uint32_t(PERF_TYPE_RAW));
  EXPECT_EQ(L.Attr.config, 0xc4u);
  EXPECT_EQ(L.Attr.sample_period, 100003u);
  EXPECT_EQ(L.Attr.freq, 0u);
  // BRS neither filters nor classifies branches: no TYPE_SAVE.
  EXPECT_EQ(L.Attr.branch_sample_type,
            uint64_t(PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER));
  EXPECT_NE(L.Attr.sample_type & PERF_SAMPLE_BRANCH_STACK, 0u);
}

TEST(AMDBRS, RefusesWhatTheKernelRefuses) {
  RecordOptions O = brs();
  O.Period = 0;
  O.Freq = 4000;
  EXPECT_EQ(errText(buildEventGroup(O)), "AMD branch sampling "
                              "(RETIRED_TAKEN_BRANCH_INSTRUCTIONS) needs a "
                              "fixed --period; the kernel refuses --freq "
                              "with BRS");
  O = brs();
  O.LBR = "user-callret";
  EXPECT_EQ(errText(buildEventGroup(O)), 
                           "AMD branch sampling records every taken branch; "
                           "use --lbr=any, not --lbr=user-callret");
  O = brs();
  O.Period = 16;
  EXPECT_NE(errText(buildEventGroup(O)), "");
}

} // namespace
