//===- LBRGenRunTest.cpp - layout-lbrgen's processes and outputs ----------===//
#include "keel/LBR/LBRGenRun.h"
#include "keel/LBR/LBRReports.h"

#include "keel/Record/SampleFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace keel;

namespace {

/// Three samples in /bin/prog (mapped at 0x400000), pid 1.
PerfRecording threeSamples() {
  PerfRecording R;
  Mapping M;
  M.Pid = M.Tid = 1;
  M.Start = 0x400000;
  M.Length = 0x1000;
  M.Prot = 5;
  M.Path = "/bin/prog";
  R.Mappings = {M};
  for (uint64_t I = 0; I < 3; ++I) {
    RecordedSample S;
    S.Sample.IP = 0x400100 + I;
    S.Sample.Pid = S.Sample.Tid = 1;
    S.Sample.Stack = {{0x400010, 0x400020}, {0x400030, 0x7f0000000000}};
    R.Samples.push_back(S);
  }
  R.Info.Command = {"/bin/prog"};
  R.Info.Event = "instructions";
  R.Info.Period = 10000;
  R.Info.LBR = "any";
  return R;
}

struct TempDir {
  SmallString<128> Path;
  TempDir() {
    EXPECT_FALSE(sys::fs::createUniqueDirectory("keel-lbrgen-test", Path));
  }
  ~TempDir() { sys::fs::remove_directories(Path); }
  std::string file(StringRef Name) const {
    SmallString<128> P(Path);
    sys::path::append(P, Name);
    return P.str().str();
  }
};

std::string contents(StringRef Path) {
  auto B = MemoryBuffer::getFile(Path);
  return B ? (*B)->getBuffer().str() : "<missing>";
}

} // namespace

TEST(LBRGenRun, OneProcessChangesNothing) {
  PerfRecording R = threeSamples();
  spreadOverProcesses(R, 1);
  EXPECT_EQ(R.Mappings.size(), 1u);
  EXPECT_TRUE(R.Tasks.empty());
  EXPECT_EQ(R.Samples[1].Sample.IP, 0x400101u);
}

TEST(LBRGenRun, ProcessesMoveTheBinaryOnly) {
  PerfRecording R = threeSamples();
  spreadOverProcesses(R, 2);
  ASSERT_EQ(R.Mappings.size(), 4u); // the binary and another library each
  EXPECT_EQ(R.Mappings[2].Start, 0x10400000u);
  EXPECT_EQ(R.Mappings[2].Pid, 2u);
  EXPECT_EQ(R.Mappings[3].Path, "/usr/lib/keel-lbrgen/libother.so");
  ASSERT_EQ(R.Tasks.size(), 2u);
  EXPECT_EQ(R.Tasks[1].Name, "prog.1");
  EXPECT_EQ(R.Samples[0].Sample.Pid, 1u);
  EXPECT_EQ(R.Samples[1].Sample.Pid, 2u);
  EXPECT_EQ(R.Samples[2].Sample.Pid, 1u);
  const RawSample &S = R.Samples[1].Sample;
  EXPECT_EQ(S.IP, 0x10400101u);
  EXPECT_EQ(S.Stack[0].From, 0x10400010u);
  EXPECT_EQ(S.Stack[1].To, 0x7f0000000000u); // outside the binary: kept
  EXPECT_EQ(R.Samples[2].Sample.IP, 0x400102u);
}

TEST(LBRGenRun, WritesEachOutputAsked) {
  TempDir Dir;
  LBRGenResult R;
  R.Recording = threeSamples();
  R.Truth.Instructions = 30000;
  LBRGenRunOptions Opts;
  Opts.Samples = Dir.file("out.samples");
  Opts.PerfScript = Dir.file("out.script");
  Opts.Truth = Dir.file("truth.json");
  ASSERT_FALSE(bool(writeLBRGenOutputs(R, LBRGenOptions(), Opts)));

  std::string Samples;
  raw_string_ostream OS(Samples);
  writeSampleFile(R.Recording, OS);
  EXPECT_EQ(contents(Opts.Samples), Samples);
  EXPECT_NE(contents(Opts.PerfScript).find("0x400010/0x400020"),
            std::string::npos);
  auto Truth = json::parse(contents(Opts.Truth));
  ASSERT_TRUE(bool(Truth)) << toString(Truth.takeError());
  EXPECT_TRUE(Truth->getAsObject());
  // Nothing but the three outputs asked for.
  std::error_code EC;
  unsigned Files = 0;
  for (sys::fs::directory_iterator I(Dir.Path, EC), End; I != End && !EC;
       I.increment(EC))
    ++Files;
  EXPECT_EQ(Files, 3u);

  // -o naming a perf.data writes Linux perf's file.
  Opts = LBRGenRunOptions();
  Opts.Samples = Dir.file("out.perf.data");
  ASSERT_FALSE(bool(writeLBRGenOutputs(R, LBRGenOptions(), Opts)));
  EXPECT_EQ(contents(Opts.Samples).substr(0, 8), "PERFILE2");
}

TEST(LBRReports, StdoutTakenByAnyOutput) {
  LBRReportOutputs O;
  EXPECT_FALSE(O.stdoutTaken());
  O.Json = "t.json";
  EXPECT_FALSE(O.stdoutTaken());
  O.Html = "-";
  EXPECT_TRUE(O.stdoutTaken());
}
