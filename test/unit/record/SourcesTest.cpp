//===- SourcesTest.cpp - layout-record's perf source, without a PMU -------===//
//
// recordWithPerf with --replay reads a recording instead of running the
// program, so its option checks, sample outputs and summary run anywhere.
// The binary is this test program (its addresses are not in the samples,
// so the address profile is empty).
//
//===----------------------------------------------------------------------===//
#include "keel/Record/Sources.h"

#include "keel/Profile/Binary.h"
#include "keel/Record/SampleFile.h"

#include "TestErrors.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace keel;
using keel::test::errText;

namespace {

PerfRecording twoSamples() {
  PerfRecording R;
  RecordedSample A;
  A.Sample.IP = 0x1000;
  A.Sample.Pid = A.Sample.Tid = 7;
  A.Sample.Cycles = 300;
  A.Sample.Instructions = 100;
  A.Sample.Stack = {{0x1010, 0x1020}, {0x1030, 0x1040}};
  RecordedSample B;
  B.Sample.IP = 0x2000;
  B.Sample.Pid = B.Sample.Tid = 7;
  B.Sample.Cycles = 100;
  B.Sample.Instructions = 100;
  R.Samples = {A, B};
  R.Info.Command = {"prog"};
  R.Info.Event = "cycles";
  R.Info.Freq = 10000;
  R.Info.LBR = "any";
  return R;
}

struct TempDir {
  SmallString<128> Path;
  TempDir() {
    EXPECT_FALSE(sys::fs::createUniqueDirectory("keel-sources-test", Path));
  }
  ~TempDir() { sys::fs::remove_directories(Path); }
  std::string file(StringRef Name) const {
    SmallString<128> P(Path);
    sys::path::append(P, Name);
    return P.str().str();
  }
};

std::unique_ptr<Binary> thisProgram() {
  std::string Self = sys::fs::getMainExecutable(nullptr, nullptr);
  auto B = Binary::open(Self);
  EXPECT_TRUE(bool(B)) << errText(B);
  return B ? std::move(*B) : nullptr;
}

} // namespace

TEST(PerfSource, SummaryCountsStacksRecordsAndCPI) {
  EXPECT_EQ(summarizePerfRecording(twoSamples()),
            "perf: 2 samples (1 with branch stacks, 2 branch records), "
            "CPI 2.00");
  PerfRecording R = twoSamples();
  R.Stats.LostRecords = 1;
  R.Stats.LostEvents = 2;
  R.Stats.LostSamples = 1;
  R.Stats.Throttles = 4;
  for (RecordedSample &S : R.Samples)
    S.Sample.Instructions = 0;
  EXPECT_EQ(summarizePerfRecording(R),
            "perf: 2 samples (1 with branch stacks, 2 branch records), 3 "
            "events lost in 1 LOST records, throttled 4 times");
}

TEST(PerfSource, ExportOptionsAreCheckedFirst) {
  auto Bin = thisProgram();
  ASSERT_TRUE(Bin);
  QualityReport Q;
  RecordRequest Req;
  Req.Command = {"prog"};
  Req.Perf.Export = "text";
  Req.Perf.Samples = "out.txt";
  EXPECT_EQ(errText(recordWithPerf(Req, *Bin, Q)),
            "unknown --export=text (expected perf-script or perf.data)");
  Req.Perf.Export = "perf-script";
  Req.Perf.Samples.clear();
  EXPECT_EQ(errText(recordWithPerf(Req, *Bin, Q)),
            "--export=perf-script needs --samples=FILE");
}

TEST(PerfSource, ReplayWritesTheSamplesAndSummarizes) {
  auto Bin = thisProgram();
  ASSERT_TRUE(Bin);
  TempDir Dir;
  std::string In = Dir.file("in.samples"), Out = Dir.file("out.samples");
  {
    std::error_code EC;
    raw_fd_ostream OS(In, EC);
    ASSERT_FALSE(EC);
    writeSampleFile(twoSamples(), OS);
  }
  QualityReport Q;
  RecordRequest Req;
  Req.Command = {"prog"};
  Req.Perf.Replay = In;
  Req.Perf.Samples = Out;
  auto Rec = recordWithPerf(Req, *Bin, Q);
  ASSERT_TRUE(bool(Rec)) << errText(Rec);
  EXPECT_EQ(Rec->Summary, summarizePerfRecording(twoSamples()));
  EXPECT_EQ(Rec->ExitCode, 0);
  EXPECT_FALSE(Rec->Crashed);
  EXPECT_TRUE(Rec->Profile.Branches.empty());
  EXPECT_TRUE(bool(Rec->WritePerfData));
  // --samples without --export: the keel-samples file, as it was read.
  auto A = MemoryBuffer::getFile(In), B = MemoryBuffer::getFile(Out);
  ASSERT_TRUE(A && B);
  EXPECT_EQ((*A)->getBuffer(), (*B)->getBuffer());
}
