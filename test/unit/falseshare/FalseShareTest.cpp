// Classification of cache lines (false / true / mixed sharing), write runs
// and latent pairs of keel::fs.
#include "keel/FalseShare/Report.h"

#include "gtest/gtest.h"

using namespace keel::fs;

static ThreadAccess T(uint32_t Tid, uint64_t R, uint64_t W, uint64_t N = 1000) {
  ThreadAccess A;
  A.Tid = Tid;
  A.RMask = R;
  A.WMask = W;
  A.Reads = R ? N : 0;
  A.Writes = W ? N : 0;
  return A;
}

TEST(FalseShare, DisjointWritersAreFalseSharing) {
  LineRecord L{0x1000, {T(1, 0xf, 0xf), T(2, 0xf0, 0xf0)}};
  LineVerdict V = classifyLine(L, 100);
  EXPECT_EQ(V.Kind, Sharing::False);
  ASSERT_EQ(V.FalsePairs.size(), 1u);
  EXPECT_TRUE(V.TruePairs.empty());
}

TEST(FalseShare, SameBytesAreTrueSharing) {
  LineRecord L{0x1000, {T(1, 0, 0xff), T(2, 0, 0xff)}};
  EXPECT_EQ(classifyLine(L, 100).Kind, Sharing::True);
  // A reader of bytes another thread writes is true sharing too.
  LineRecord R{0x1000, {T(1, 0x1, 0), T(2, 0, 0x1)}};
  EXPECT_EQ(classifyLine(R, 100).Kind, Sharing::True);
}

TEST(FalseShare, ReadersOnlyOrOneWriterAtDisjointBytesIsNothing) {
  LineRecord L{0x1000, {T(1, 0xff, 0), T(2, 0xff, 0)}};
  EXPECT_EQ(classifyLine(L, 100).Kind, Sharing::None);
  LineRecord W{0x1000, {T(1, 0, 0x1), T(2, 0x10, 0)}};
  EXPECT_EQ(classifyLine(W, 100).Kind, Sharing::None);
}

TEST(FalseShare, RareThreadsAreIgnoredAndMixedIsBoth) {
  // Thread 3 sums everything once: below the threshold it does not count.
  LineRecord L{0x1000,
               {T(1, 0, 0xf), T(2, 0, 0xf0), T(3, ~0ull, 0, /*N=*/4)}};
  EXPECT_EQ(classifyLine(L, 100).Kind, Sharing::False);
  LineRecord M{0x1000, {T(1, 0, 0xf), T(2, 0, 0xf0), T(3, 0, 0xf)}};
  LineVerdict V = classifyLine(M, 100);
  EXPECT_EQ(V.Kind, Sharing::Mixed);
  EXPECT_EQ(V.FalsePairs.size(), 2u); // 1-2, 2-3
  EXPECT_EQ(V.TruePairs.size(), 1u);  // 1-3
}

TEST(FalseShare, LatentPairsAreCloserThanALineInDifferentLines) {
  RawReport R;
  // Thread 1 writes the last 4 bytes of line 0x1000, thread 2 the first 4
  // of line 0x1040: different lines, 4 bytes apart -> latent.
  R.Lines.push_back({0x1000, {T(1, 0, 0xfull << 60)}});
  R.Lines.push_back({0x1040, {T(2, 0, 0xf)}});
  // Thread 3 writes 0x10c0: 124 bytes away -> never on one line with 2.
  R.Lines.push_back({0x10c0, {T(3, 0, 0x1)}});
  std::vector<WriteRun> Runs = writeRuns(R, 100);
  ASSERT_EQ(Runs.size(), 3u);
  std::vector<LatentPair> P = latentPairs(Runs, 64);
  ASSERT_EQ(P.size(), 1u);
  EXPECT_EQ(P[0].A.Tid, 1u);
  EXPECT_EQ(P[0].B.Tid, 2u);
  EXPECT_EQ(P[0].B.Start - P[0].A.End, 0u);
}

TEST(FalseShare, RunsMergeAcrossLinesAndMasksPrint) {
  RawReport R;
  R.Lines.push_back({0x1000, {T(1, 0, 0x3ull << 62)}});
  R.Lines.push_back({0x1040, {T(1, 0, 0x3)}});
  std::vector<WriteRun> Runs = writeRuns(R, 100);
  ASSERT_EQ(Runs.size(), 1u);
  EXPECT_EQ(Runs[0].Start, 0x103eu);
  EXPECT_EQ(Runs[0].End, 0x1042u);
  EXPECT_EQ(maskRanges(0xf0f), "0-3,8-11");
  EXPECT_EQ(maskRanges(0), "-");
  EXPECT_EQ(maskRanges(1ull << 63), "63");
}

TEST(FalseShare, ParseScalesBySamplingAndRejectsDuplicates) {
  auto R = parseRawReport("keel-fs 1\nsample 4\naccess 0x40 1 0x1 0x2 3 5\n"
                          "site 2 7 1 f a\\x20b.c\nend\n",
                          "r");
  ASSERT_TRUE(!!R) << llvm::toString(R.takeError());
  ASSERT_EQ(R->Lines.size(), 1u);
  EXPECT_EQ(R->Lines[0].Threads[0].Reads, 12u);
  EXPECT_EQ(R->Lines[0].Threads[0].Writes, 20u);
  EXPECT_EQ(R->Lines[0].Threads[0].Sites[0].File, "a b.c");
  EXPECT_EQ(R->Lines[0].Threads[0].Sites[0].Count, 8u);
  auto D = parseRawReport(
      "keel-fs 1\naccess 0x40 1 0x1 0x2 3 5\naccess 0x40 1 0x1 0x2 3 5\nend\n",
      "r");
  ASSERT_FALSE(!!D);
  EXPECT_NE(llvm::toString(D.takeError()).find("r:3:"), std::string::npos);
}
