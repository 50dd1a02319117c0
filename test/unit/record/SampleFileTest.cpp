//===- SampleFileTest.cpp - keel-samples round trip and perf script export ===//
#include "keel/Record/SampleFile.h"

#include "TestErrors.h"
#include "gtest/gtest.h"

using namespace keel;
using keel::test::errText;

namespace {

PerfRecording sampleRecording() {
  PerfRecording R;
  R.Info.Command = {"./a.out", "with space", "tab\there"};
  R.Info.Event = "cycles";
  R.Info.CyclesEvent = "cycles";
  R.Info.InstructionsEvent = "instructions";
  R.Info.Freq = 10000;
  R.Info.LBR = "any,user";
  R.Stats.LostRecords = 1;
  R.Stats.LostEvents = 12;
  R.Stats.Throttles = 2;
  R.Stats.Unthrottles = 2;
  Mapping M;
  M.Pid = M.Tid = 100;
  M.Time = 5;
  M.Start = 0x555555554000;
  M.Length = 0x2000;
  M.PgOff = 0x1000;
  M.Prot = 5;
  M.Path = "/tmp/dir with space/a.out";
  R.Mappings.push_back(M);
  M.BuildID = "deadbeef";
  M.Path = "/lib/libc.so.6";
  M.Start = 0x7f0000000000;
  R.Mappings.push_back(M);
  TaskEvent T;
  T.Pid = T.Tid = 100;
  T.Name = "a.out";
  T.Exec = true;
  T.Time = 6;
  R.Tasks.push_back(T);
  TaskEvent F;
  F.Kind = TaskEvent::Fork;
  F.Pid = F.Tid = 200;
  F.PPid = F.PTid = 100;
  F.Time = 9;
  R.Tasks.push_back(F);
  RecordedSample S;
  S.CPU = 1;
  S.Period = 100003;
  S.Sample.Pid = 100;
  S.Sample.Tid = 101;
  S.Sample.Time = 1234567890123;
  S.Sample.IP = 0x555555555136;
  S.Sample.Cycles = 3513946;
  S.Sample.Instructions = 5614190;
  S.Sample.Event = "cycles";
  LBREntry A;
  A.From = 0x555555555130;
  A.To = 0x555555555100;
  A.Predicted = true;
  A.Cycles = 17;
  A.Type = "CALL";
  LBREntry B;
  B.From = 0x5555555550f0;
  B.To = 0x555555555120;
  B.Mispred = B.InTx = B.Abort = true;
  B.Cycles = 3;
  S.Sample.Stack = {A, B};
  R.Samples.push_back(S);
  return R;
}

std::string render(const PerfRecording &R) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  writeSampleFile(R, OS);
  return Text;
}

TEST(SampleFile, WritesTheDocumentedLines) {
  std::string Text = render(sampleRecording());
  EXPECT_EQ(Text.rfind("# keel-samples v1\n", 0), 0u);
  EXPECT_NE(Text.find("command\t./a.out\twith space\ttab\\there\n"),
            std::string::npos);
  EXPECT_NE(Text.find("sampling\tfreq\t10000\n"), std::string::npos);
  EXPECT_NE(Text.find("mmap\t100\t100\t5\t0x555555554000\t0x2000\t0x1000\t5\t-"
                      "\t/tmp/dir with space/a.out\n"),
            std::string::npos);
  EXPECT_NE(Text.find("sample\t100\t101\t1234567890123\t1\t100003\t"
                      "0x555555555136\t3513946\t5614190\t"
                      "0x555555555130/0x555555555100/P/-/-/17/CALL\t"
                      "0x5555555550f0/0x555555555120/M/X/A/3/-\n"),
            std::string::npos)
      << Text;
}

TEST(SampleFile, RoundTrips) {
  PerfRecording R = sampleRecording();
  std::string Text = render(R);
  llvm::Expected<PerfRecording> Back = readSampleFile(Text, "x.keelprof");
  ASSERT_EQ(errText(Back), "");
  EXPECT_EQ(render(*Back), Text);
  EXPECT_EQ(Back->Info.Command, R.Info.Command);
  ASSERT_EQ(Back->Samples.size(), 1u);
  EXPECT_EQ(Back->Samples[0].Sample.Stack[1].Mispred, true);
  EXPECT_EQ(Back->Samples[0].Sample.Stack[0].Type, "CALL");
  EXPECT_EQ(Back->Samples[0].Sample.Event, "cycles");
  EXPECT_EQ(Back->Stats.LostEvents, 12u);
  EXPECT_EQ(Back->Mappings[1].BuildID, "deadbeef");
  EXPECT_EQ(Back->Tasks[1].Kind, TaskEvent::Fork);
}

TEST(SampleFile, BadInputNamesFileAndLine) {
  EXPECT_EQ(errText(readSampleFile("hello\n", "x.keelprof")), "x.keelprof:1: not a keel-samples file (the "
                              "first line must be '# keel-samples v1')");
  EXPECT_EQ(errText(readSampleFile("# keel-samples v2\n", "x.keelprof")), "x.keelprof:1: unsupported keel-samples "
                              "version 'v2' (this tool reads v1)");
  EXPECT_EQ(errText(readSampleFile("# keel-samples v1\nevent\tcycles\n"
                     "sample\t1\t1\t5\t0\t1\t0x10\t1\t1\t0x1/0x2/Q/-/-/0/-\n",
                     "x.keelprof")), 
          "x.keelprof:3: bad branch flags in '0x1/0x2/Q/-/-/0/-'");
  EXPECT_EQ(errText(readSampleFile("# keel-samples v1\nsample\t1\t1\n", "x.keelprof")), "x.keelprof:2: 'sample' needs 8 fields, found 2");
  EXPECT_EQ(errText(readSampleFile("# keel-samples v1\n\n# c\nsample\t1\t1\t5\t0\t1\t16\t1\t1\n",
                     "x.keelprof")), 
          "x.keelprof:4: expected a 0x-prefixed hex number, found '16'");
  EXPECT_EQ(errText(readSampleFile("# keel-samples v1\nbogus\n", "y")), "y:2: unknown record 'bogus'");
}

TEST(SampleFile, PerfScriptExport) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  exportPerfScript(sampleRecording(), OS);
  EXPECT_EQ(Text, "    100/100         0.000000005: PERF_RECORD_MMAP2 100/100: "
                  "[0x555555554000(0x2000) @ 0x1000 00:00 0 0]: r-xp "
                  "/tmp/dir with space/a.out\n"
                  "    100/100         0.000000005: PERF_RECORD_MMAP2 100/100: "
                  "[0x7f0000000000(0x2000) @ 0x1000 00:00 0 0]: r-xp "
                  "/lib/libc.so.6\n"
                  "    100/101      1234.567890123:     555555555136 "
                  "0x555555555130/0x555555555100/P/-/-/17 "
                  "0x5555555550f0/0x555555555120/M/X/A/3\n");
}

} // namespace
