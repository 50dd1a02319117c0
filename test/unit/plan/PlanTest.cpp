#include "keel/Plan/Plan.h"

#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace keel;
using namespace llvm;

TEST(Plan, RoundTrip) {
  Plan P;
  P.Binary = "./app";
  P.BuildID = "abcd";
  P.Functions.push_back({"loop", "", Temperature::Hot, 0, 100, 0});
  P.Functions.push_back({"helper", "util.c", Temperature::Hot, 1, 50, 32});
  P.Functions.push_back({"init", "", Temperature::Cold, 0, 0, 0});
  P.Globals.push_back({"table", "", DataKind::ROData, 0, 10, false});
  P.FalseSharing.push_back({"counters", "", 64, "two writers"});
  std::string Text;
  raw_string_ostream OS(Text);
  writePlan(P, OS);
  auto Q = parsePlan(Text, "p.yaml");
  ASSERT_TRUE(bool(Q)) << toString(Q.takeError());
  ASSERT_EQ(Q->Functions.size(), 3u);
  EXPECT_EQ(Q->Functions[1].File, "util.c");
  EXPECT_EQ(Q->Functions[1].Align, 32u);
  EXPECT_EQ(Q->Functions[2].Class, Temperature::Cold);
  EXPECT_EQ(Q->Globals[0].Kind, DataKind::ROData);
  EXPECT_EQ(Q->FalseSharing[0].Name, "counters");
  std::string Again;
  raw_string_ostream OS2(Again);
  writePlan(*Q, OS2);
  EXPECT_EQ(Text, Again);
}

TEST(Plan, ErrorsNameFileLine) {
  auto Q = parsePlan("keel-plan: 1\nfunctions:\n  - { name: f, class: tepid }\n",
                     "bad.yaml");
  ASSERT_FALSE(bool(Q));
  std::string Msg = toString(Q.takeError());
  EXPECT_NE(Msg.find("bad.yaml:3:"), std::string::npos) << Msg;
}

TEST(Plan, WrongVersion) {
  auto Q = parsePlan("keel-plan: 7\n", "v.yaml");
  ASSERT_FALSE(bool(Q));
  EXPECT_NE(toString(Q.takeError()).find("version 7"), std::string::npos);
}

TEST(Plan, UnknownKey) {
  auto Q = parsePlan("keel-plan: 1\nfunctoins: []\n", "k.yaml");
  ASSERT_FALSE(bool(Q));
  EXPECT_NE(toString(Q.takeError()).find("k.yaml:2:"), std::string::npos);
}

TEST(Plan, CodePadIsOptional) {
  // Plans written before code-pad existed read as pad 0 and write no key.
  auto Old = parsePlan("keel-plan: 1\nhot-text-align: 4096\n", "old.yaml");
  ASSERT_TRUE(bool(Old)) << toString(Old.takeError());
  EXPECT_EQ(Old->CodePad, 0u);
  std::string Text;
  raw_string_ostream OS(Text);
  writePlan(*Old, OS);
  EXPECT_EQ(Text.find("code-pad"), std::string::npos) << Text;

  Plan P;
  P.CodePad = 64;
  std::string Tuned;
  raw_string_ostream OS2(Tuned);
  writePlan(P, OS2);
  EXPECT_NE(Tuned.find("code-pad:"), std::string::npos) << Tuned;
  auto Q = parsePlan(Tuned, "t.yaml");
  ASSERT_TRUE(bool(Q)) << toString(Q.takeError());
  EXPECT_EQ(Q->CodePad, 64u);
}

TEST(Plan, SpacersIsOptional) {
  // Plans written before spacers existed read as 0 (none) and write no key.
  auto Old = parsePlan("keel-plan: 1\ncode-pad: 64\n", "old.yaml");
  ASSERT_TRUE(bool(Old)) << toString(Old.takeError());
  EXPECT_EQ(Old->Spacers, 0u);
  std::string Text;
  raw_string_ostream OS(Text);
  writePlan(*Old, OS);
  EXPECT_EQ(Text.find("spacers"), std::string::npos) << Text;

  Plan P;
  P.Spacers = 4096;
  std::string With;
  raw_string_ostream OS2(With);
  writePlan(P, OS2);
  EXPECT_NE(With.find("spacers:"), std::string::npos) << With;
  auto Q = parsePlan(With, "s.yaml");
  ASSERT_TRUE(bool(Q)) << toString(Q.takeError());
  EXPECT_EQ(Q->Spacers, 4096u);

  // Not a power of two >= 64: an error naming the file.
  for (const char *Bad : {"keel-plan: 1\nspacers: 1000\n",
                          "keel-plan: 1\nspacers: 32\n"}) {
    auto E = parsePlan(Bad, "b.yaml");
    ASSERT_FALSE(bool(E)) << Bad;
    EXPECT_NE(toString(E.takeError()).find("b.yaml"), std::string::npos);
  }
}
