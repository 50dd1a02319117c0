//===- ProfileFormatTest.cpp - the text profile readers and writers -------===//
#include "keel/Profile/Formats.h"
#include "keel/Support/Diagnostics.h"
#include "keel/Support/OutputFile.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <algorithm>

using namespace keel;
using namespace llvm;

namespace {

std::string input(StringRef Name) {
  auto Text = readWholeFile((Twine(KEEL_TEST_INPUTS) + "/profile/" + Name).str());
  EXPECT_TRUE(bool(Text)) << toString(Text.takeError());
  return Text ? *Text : std::string();
}

std::vector<std::string> sortedLines(StringRef Text) {
  SmallVector<StringRef, 32> Lines;
  Text.split(Lines, '\n', -1, /*KeepEmpty=*/false);
  std::vector<std::string> Out(Lines.begin(), Lines.end());
  llvm::sort(Out);
  return Out;
}

/// The InputError line of a failed read, or 0 if it is some other error.
template <typename T> unsigned errorLine(Expected<T> R, std::string &Msg) {
  unsigned Line = 0;
  handleAllErrors(R.takeError(), [&](const InputError &E) {
    Line = E.line();
    Msg = E.detail();
  });
  return Line;
}

TEST(PerfScript, CyclesAreKeptPerEntry) {
  QualityReport Q;
  PerfScriptOptions Opts;
  Opts.KeepSamples = true;
  auto AP = readPerfScript(input("cycles.perf"), "cycles.perf", nullptr, Q,
                           Opts);
  ASSERT_TRUE(bool(AP)) << toString(AP.takeError());
  ASSERT_EQ(AP->NumSamples, 4u);
  ASSERT_EQ(AP->Samples.size(), 4u);

  const RawSample &S0 = AP->Samples[0];
  EXPECT_EQ(S0.IP, 0x201029u);
  ASSERT_EQ(S0.Stack.size(), 3u);
  EXPECT_EQ(S0.Stack[0].From, 0x201029u);
  EXPECT_EQ(S0.Stack[0].To, 0x201030u);
  EXPECT_EQ(S0.Stack[0].Cycles, 12u);
  EXPECT_EQ(S0.Stack[1].Cycles, 3u);
  EXPECT_EQ(S0.Stack[2].Cycles, 7u);
  EXPECT_TRUE(S0.Stack[2].Mispred);
  EXPECT_TRUE(S0.Stack[0].Predicted);

  const RawSample &S1 = AP->Samples[1];
  EXPECT_EQ(S1.Pid, 1234u);
  EXPECT_EQ(S1.IP, 0x201038u);
  ASSERT_EQ(S1.Stack.size(), 3u);
  EXPECT_EQ(S1.Stack[0].Cycles, 5u);
  EXPECT_EQ(S1.Stack[0].Type, "RET");
  EXPECT_EQ(S1.Stack[1].Type, "JMP");
  EXPECT_EQ(S1.Stack[2].Cycles, 4u);

  const RawSample &S2 = AP->Samples[2];
  EXPECT_EQ(S2.Pid, 1234u);
  EXPECT_EQ(S2.Tid, 1235u);
  EXPECT_EQ(S2.Event, "cycles:u");
  ASSERT_EQ(S2.Stack.size(), 2u);
  EXPECT_TRUE(S2.Stack[0].InTx);
  EXPECT_EQ(S2.Stack[0].Cycles, 9u);
  EXPECT_TRUE(S2.Stack[1].Abort);
  EXPECT_FALSE(S2.Stack[1].Predicted || S2.Stack[1].Mispred);
  EXPECT_EQ(S2.Stack[1].From, 0x201038u); // build-id prefix stripped

  const RawSample &S3 = AP->Samples[3];
  ASSERT_EQ(S3.Stack.size(), 2u); // bare pairs: no cycles
  EXPECT_EQ(S3.Stack[0].Cycles, 0u);
  EXPECT_EQ(S3.Stack[1].From, 0x7f0000001000u);
}

TEST(PerfScript, BranchesAndRangesBetweenEntries) {
  QualityReport Q;
  auto AP = readPerfScript(input("cycles.perf"), "cycles.perf", nullptr, Q);
  ASSERT_TRUE(bool(AP)) << toString(AP.takeError());
  EXPECT_TRUE(AP->Samples.empty()); // not kept unless asked
  EXPECT_EQ(AP->Branches.at({0x201029, 0x201030}).Count, 2u);
  EXPECT_EQ(AP->Branches.at({0x20101d, 0x201014}),
            (BranchCount{2, 1}));
  // [target of the older entry, source of the newer one].
  EXPECT_EQ(AP->FallThroughs.at({0x201023, 0x201029}), 2u);
  EXPECT_EQ(AP->FallThroughs.at({0x201014, 0x201016}), 1u);
  EXPECT_EQ(AP->FallThroughs.count({0x201029, 0x201030}), 0u);
  uint64_t Entries = 0;
  for (const auto &[K, C] : AP->Branches)
    Entries += C.Count;
  EXPECT_EQ(Entries, 10u);
}

TEST(PerfScript, ErrorsNameTheLine) {
  QualityReport Q;
  std::string Msg;
  EXPECT_EQ(errorLine(readPerfScript(" 1 0x10/0x20/P/-/-/0\n\n 1 0x1z/0x2\n",
                                     "f", nullptr, Q),
                      Msg),
            3u);
  EXPECT_NE(Msg.find("bad hex address '0x1z'"), std::string::npos) << Msg;
  EXPECT_EQ(errorLine(readPerfScript("0x10/0x20/P/-/-/x\n", "f", nullptr, Q),
                      Msg),
            1u);
  EXPECT_NE(Msg.find("bad cycle count 'x'"), std::string::npos) << Msg;
}

TEST(Fdata, RoundTripIsIdenticalAfterSorting) {
  for (StringRef Name : {"roundtrip.fdata", "nolbr.fdata"}) {
    std::string Text = input(Name);
    auto P = readFdata(Text, Name);
    ASSERT_TRUE(bool(P)) << toString(P.takeError());
    std::string Out;
    raw_string_ostream OS(Out);
    writeFdata(*P, OS);
    EXPECT_EQ(sortedLines(Out), sortedLines(Text)) << Name.str();
  }
}

TEST(Fdata, ModelRoundTrip) {
  BranchProfile P;
  P.BoltedCollection = true;
  Location Main{true, "main", 0x8}, Odd{true, "a name\\with escapes", 0x10},
      Ext{false, "[unknown]", 0};
  Location Local{true, "file.c/helper", 0x1a};
  Local.LocalKind = true;
  P.Branches[{Main, Odd}] = {100, 3};
  P.Branches[{Ext, Main}] = {7, 0};
  P.Branches[{Local, Local}] = {1, 1};
  P.MemAccesses[MemAccess{Main, Location{true, "table", 8}}] = 33;
  std::string Out;
  raw_string_ostream OS(Out);
  writeFdata(P, OS);
  EXPECT_NE(Out.find("a\\ name\\\\with\\ escapes"), std::string::npos) << Out;
  EXPECT_NE(Out.find("2 file.c/helper 1a 2 file.c/helper 1a 1 1"),
            std::string::npos)
      << Out;
  auto Back = readFdata(Out, "mem");
  ASSERT_TRUE(bool(Back)) << toString(Back.takeError());
  EXPECT_TRUE(Back->BoltedCollection);
  EXPECT_EQ(Back->Branches, P.Branches);
  ASSERT_EQ(Back->MemAccesses.size(), 1u);
  EXPECT_EQ(Back->MemAccesses.begin()->second, 33u);
  EXPECT_EQ(Back->MemAccesses.begin()->first.Data.Name, "table");
  // Kind 2 survives the trip.
  EXPECT_TRUE(Back->Branches.find({Local, Local})->first.first.LocalKind);
}

TEST(Fdata, FallThroughRangesAreNotWritten) {
  // fdata cannot express ranges; symbolizeForFdata turns them into edges.
  BranchProfile P;
  P.FallThroughs[{Location{true, "f", 0}, Location{true, "f", 8}}] = 5;
  std::string Out;
  raw_string_ostream OS(Out);
  writeFdata(P, OS);
  EXPECT_EQ(Out, "");
}

TEST(Fdata, ErrorsNameTheLine) {
  std::string Msg;
  EXPECT_EQ(errorLine(readFdata("1 f 0 1 f 8 0 1\n1 f 0 1 f\n", "x"), Msg),
            2u);
  EXPECT_NE(Msg.find("truncated branch record"), std::string::npos) << Msg;
  EXPECT_EQ(errorLine(readFdata("9 f 0 1 f 8 0 1\n", "x"), Msg), 1u);
  EXPECT_NE(Msg.find("unknown record kind '9'"), std::string::npos) << Msg;
  EXPECT_EQ(errorLine(readFdata("1 f 0 1 f 8 0 -1\n", "x"), Msg), 1u);
  EXPECT_EQ(errorLine(readFdata("1 f 0 1 f 8 0 1\nno_lbr\n", "x"), Msg), 2u);
  EXPECT_EQ(errorLine(readFdata("no_lbr\n1 f 0 1 f 8 0 1\n", "x"), Msg), 2u);
}

TEST(PreAggregated, ReadAndWrite) {
  QualityReport Q;
  auto AP = readPreAggregated("E cycles\n"
                              "B X:0 10 1 0\n"
                              "T 20 30 38 4\n"
                              "R 0 40 48 2\n"
                              "f 50 58 3\n"
                              "S 60 9\n"
                              "B abcdef:20 30 1 1\n",
                              "in.pa", nullptr, Q);
  ASSERT_TRUE(bool(AP)) << toString(AP.takeError());
  EXPECT_EQ(AP->BuildID, "abcdef");
  EXPECT_EQ(AP->Branches.at({0, 0x10}), (BranchCount{1, 0}));
  EXPECT_EQ(AP->Branches.at({0x20, 0x30}), (BranchCount{5, 1}));
  EXPECT_EQ(AP->Branches.count({0, 0x40}), 0u); // external return
  EXPECT_EQ(AP->FallThroughs.at({0x30, 0x38}), 4u);
  EXPECT_EQ(AP->FallThroughs.at({0x40, 0x48}), 2u);
  EXPECT_EQ(AP->FallThroughs.at({0x50, 0x58}), 3u);
  EXPECT_EQ(AP->IPSamples.at(0x60), 9u);
  std::string Out;
  raw_string_ostream OS(Out);
  writePreAggregated(*AP, OS);
  EXPECT_EQ(Out, "B X:0 10 1 0\nB 20 30 5 1\nF 30 38 4\nF 40 48 2\n"
                 "F 50 58 3\nS 60 9\n");
  auto Again = readPreAggregated(Out, "out.pa", nullptr, Q);
  ASSERT_TRUE(bool(Again)) << toString(Again.takeError());
  EXPECT_EQ(Again->Branches, AP->Branches);
  EXPECT_EQ(Again->FallThroughs, AP->FallThroughs);
  EXPECT_EQ(Again->IPSamples, AP->IPSamples);
}

TEST(PreAggregated, ErrorsNameTheLine) {
  QualityReport Q;
  std::string Msg;
  EXPECT_EQ(errorLine(readPreAggregated("B 1 2 3 4\nB 1 2 3\n", "x", nullptr,
                                        Q),
                      Msg),
            2u);
  EXPECT_NE(Msg.find("truncated 'B' record"), std::string::npos) << Msg;
  EXPECT_EQ(errorLine(readPreAggregated("\nK 1 2 3\n", "x", nullptr, Q), Msg),
            2u);
  EXPECT_EQ(errorLine(readPreAggregated("F 1 2 3 4\n", "x", nullptr, Q), Msg),
            1u);
  EXPECT_EQ(
      errorLine(readPreAggregated("B aa:1 2 3 4\nB bb:1 2 3 4\n", "x",
                                  nullptr, Q),
                Msg),
      2u);
  EXPECT_NE(Msg.find("build-id bb differs from build-id aa of line 1"),
            std::string::npos)
      << Msg;
}

} // namespace
