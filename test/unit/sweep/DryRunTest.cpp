//===- DryRunTest.cpp - layout-sweep --dry-run's display of commands ------===//
#include "keel/Sweep/DryRun.h"

#include "gtest/gtest.h"

using namespace keel;
using namespace keel::sweep;

TEST(DryRun, DisplayQuotesOnlyWhatAShellWouldSplit) {
  EXPECT_EQ(displayCommand({"clang-22", "-Wl,--defsym=__keel_data_pad=2048",
                            "-o", "/tmp/w/b00001/app"}),
            "clang-22 -Wl,--defsym=__keel_data_pad=2048 -o /tmp/w/b00001/app");
  EXPECT_EQ(displayCommand({"env", "-i", "A=", "my prog", "it's", "$HOME", ""}),
            "env -i A= 'my prog' 'it'\\''s' '$HOME' ''");
}
