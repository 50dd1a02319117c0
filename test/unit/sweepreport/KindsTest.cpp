//===- KindsTest.cpp - axis and backend names to kinds and back -----------===//
#include "keel/SweepReport/Kinds.h"

#include "gtest/gtest.h"

using namespace keel;
using namespace keel::sweep;

namespace {

/// The message of a failed parse ("" when it parsed).
template <typename T> std::string errorOf(llvm::Expected<T> E) {
  return E ? "" : llvm::toString(E.takeError());
}

TEST(KindsTest, AxisNamesRoundTrip) {
  for (AxisKind K : {AxisKind::Code, AxisKind::Data, AxisKind::Stack,
                     AxisKind::Env, AxisKind::Heap, AxisKind::FsSpacing}) {
    llvm::Expected<AxisKind> P = parseAxis(axisName(K));
    ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
    EXPECT_EQ(*P, K);
    EXPECT_EQ(lookupAxis(axisName(K)), K);
  }
  // The names the JSON, CSV and journal keep.
  EXPECT_EQ(axisName(AxisKind::Code), "code");
  EXPECT_EQ(axisName(AxisKind::FsSpacing), "fs-spacing");
}

TEST(KindsTest, UnknownAxisNamesTheChoices) {
  EXPECT_EQ(errorOf(parseAxis("nope")),
            "unknown --axis 'nope' (code, data, stack, env, heap, fs-spacing)");
  // The time backend's A/A copies are no --axis.
  EXPECT_EQ(lookupAxis("aa"), std::nullopt);
  EXPECT_EQ(lookupAxis("Code"), std::nullopt);
}

TEST(KindsTest, BackendNamesRoundTrip) {
  for (BackendKind K : {BackendKind::Sim, BackendKind::Cachegrind,
                        BackendKind::Time, BackendKind::Perf}) {
    llvm::Expected<BackendKind> P = parseBackendKind(name(K));
    ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
    EXPECT_EQ(*P, K);
    EXPECT_EQ(lookupBackendKind(name(K)), K);
  }
  EXPECT_EQ(errorOf(parseBackendKind("gem5")),
            "unknown --backend 'gem5' (sim, cachegrind, time, perf)");
  EXPECT_EQ(lookupBackendKind(""), std::nullopt);
}

} // namespace
