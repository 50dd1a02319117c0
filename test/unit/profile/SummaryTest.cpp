//===- SummaryTest.cpp - layout-profile show's summary --------------------===//
#include "keel/Profile/Summary.h"

#include "keel/Profile/Formats.h"

#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace keel;

namespace {

/// main calls foo (5) and bar (3); foo branches back into main (5).
LoadedProfile fdataProfile() {
  LoadedProfile LP;
  LP.Format = ProfileFormat::Fdata;
  LP.Symbolic = true;
  auto P = readFdata("1 main 10 1 foo 0 0 5\n"
                     "1 main 20 1 bar 0 0 3\n"
                     "1 foo 4 1 main 14 0 5\n",
                     "t.fdata");
  EXPECT_TRUE(bool(P));
  if (P)
    LP.Sym = std::move(*P);
  return LP;
}

std::string errText(Error E) { return E ? toString(std::move(E)) : ""; }

} // namespace

TEST(ProfileSummary, FdataWithoutBinaryRanksBySamples) {
  LoadedProfile LP = fdataProfile();
  ShowOptions O;
  O.Top = 2;
  O.InputName = "t.fdata";
  QualityReport Q;
  auto S = summarizeProfile(LP, nullptr, O, Q);
  ASSERT_TRUE(bool(S)) << errText(S.takeError());
  EXPECT_EQ(S->By, "samples");
  ASSERT_EQ(S->Funcs.size(), 2u);
  EXPECT_EQ(S->Funcs[0].Name, "main");
  EXPECT_EQ(S->Funcs[0].Samples, 8u);
  EXPECT_EQ(S->Funcs[1].Name, "foo");
  EXPECT_EQ(S->Funcs[1].Calls, 5u);
  ASSERT_EQ(S->Edges.size(), 2u);
  EXPECT_EQ(S->Edges[0].Caller, "main");
  EXPECT_EQ(S->Edges[0].Callee, "foo");
  EXPECT_EQ(S->Edges[0].Count, 5u);
  EXPECT_EQ(S->Edges[1].Callee, "bar");
  EXPECT_FALSE(S->Region);

  std::string Text;
  raw_string_ostream OS(Text);
  printProfileSummary(*S, LP, O, OS);
  EXPECT_EQ(Text.substr(0, Text.find('\n')),
            "hottest functions by samples (fdata profile t.fdata):");
  EXPECT_NE(Text.find("main -> foo\n"), std::string::npos);

  std::string Json;
  raw_string_ostream JS(Json);
  printProfileSummaryJSON(*S, LP, O, JS);
  EXPECT_NE(Json.find("\"by\": \"samples\""), std::string::npos);
  EXPECT_NE(Json.find("\"callee\": \"bar\""), std::string::npos);
  EXPECT_EQ(Json.find("hot_region"), std::string::npos);
}

TEST(ProfileSummary, ByInstructionsIsKept) {
  LoadedProfile LP = fdataProfile();
  ShowOptions O;
  O.By = "instructions";
  QualityReport Q;
  auto S = summarizeProfile(LP, nullptr, O, Q);
  ASSERT_TRUE(bool(S)) << errText(S.takeError());
  EXPECT_EQ(S->By, "instructions");
  // No instructions known: ties go by name.
  ASSERT_EQ(S->Funcs.size(), 3u);
  EXPECT_EQ(S->Funcs[0].Name, "bar");
}

TEST(ProfileSummary, AddressProfileNeedsTheBinary) {
  LoadedProfile LP;
  LP.Format = ProfileFormat::PreAggregated;
  ShowOptions O;
  O.InputName = "t.pa";
  QualityReport Q;
  EXPECT_EQ(errText(summarizeProfile(LP, nullptr, O, Q).takeError()),
            "t.pa: a pa profile holds addresses: give the binary with "
            "--binary");
}
