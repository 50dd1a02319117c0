//===- MeasureTest.cpp - the guard's sweep command --------------------------===//
#include "keel/Optimize/Measure.h"

#include "gtest/gtest.h"

using namespace keel::optimize;

namespace {

using Words = std::vector<std::string>;

// The guard's command is the one docs/optimize.md's step table shows: the
// env axis over GuardVariants offsets by GuardStep, the sim backend with its
// cost model, the program and the workload last. --guard-only runs the same.
TEST(MeasureTest, GuardSweepIsTheDocumentedCommand) {
  OptimizeOptions O;
  O.Workload = {"-9", "data"};
  EXPECT_EQ(guardSweepArgv(O, "layout-sweep", "g.json", "bin/app"),
            Words({"layout-sweep", "--backend=sim", "--cost=skylake", "--axis=env",
                   "--from=0", "--to=3072", "--step=1024", "-j2", "--json=g.json",
                   "bin/app", "-9", "data"}));
}

// perf takes no --cost; one variant sweeps offset 0 alone.
TEST(MeasureTest, PerfBackendAndOneVariant) {
  OptimizeOptions O;
  O.Backend = keel::sweep::BackendKind::Perf;
  O.GuardVariants = 1;
  O.Jobs = 1;
  EXPECT_EQ(guardSweepArgv(O, "s", "j", "a"),
            Words({"s", "--backend=perf", "--axis=env", "--from=0", "--to=0",
                   "--step=1024", "-j1", "--json=j", "a"}));
}

} // namespace
