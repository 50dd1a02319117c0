//===- ResultTest.cpp - JSON round trip of sweep results -------------------===//
#include "keel/SweepReport/Result.h"

#include "gtest/gtest.h"

#include <cstdlib>

using namespace keel::sweep;
using namespace llvm;

namespace {

Measurement sample(int64_t Off, bool Failed) {
  Measurement M;
  M.V.Offset = Off;
  M.Failed = Failed;
  if (Failed) {
    M.FailReason = "killed by signal 11";
  } else {
    M.Cost = 1234.5 + Off;
    M.Instructions = 1000;
    M.Counters = {{"Ir", 1000}, {"I1mr", 12}};
  }
  return M;
}

TEST(EngineResult, MeasurementRoundTrip) {
  for (bool Failed : {false, true}) {
    Measurement M = sample(64, Failed);
    std::string Text;
    raw_string_ostream(Text) << json::Value(toJSON(M));
    Expected<Measurement> Back = json::parse<Measurement>(Text);
    ASSERT_TRUE(bool(Back)) << toString(Back.takeError());
    EXPECT_EQ(Back->V, M.V);
    EXPECT_EQ(Back->Failed, Failed);
    EXPECT_EQ(Back->FailReason, M.FailReason);
    EXPECT_EQ(Back->Cost, M.Cost);
    EXPECT_EQ(Back->Instructions, M.Instructions);
    EXPECT_EQ(Back->Counters, M.Counters);
  }
}

TEST(EngineResult, SweepResultRoundTripKeepsCompareSeries) {
  SweepResult R;
  R.Binary = "./interp";
  R.Backend = "sim";
  R.Axis = "code";
  R.Ms = {sample(0, false), sample(64, true)};
  Series C;
  C.Name = "compare";
  C.Binary = "./interp.planned";
  C.Ms = {sample(0, false)};
  C.Ms[0].V.Series = "compare";
  R.Compare = C;
  std::string Text;
  raw_string_ostream(Text) << json::Value(toJSON(R));
  Expected<SweepResult> Back = json::parse<SweepResult>(Text);
  ASSERT_TRUE(bool(Back)) << toString(Back.takeError());
  ASSERT_EQ(Back->Ms.size(), 2u);
  EXPECT_TRUE(Back->Ms[1].Failed);
  ASSERT_TRUE(Back->Compare.has_value());
  EXPECT_EQ(Back->Compare->Binary, "./interp.planned");
  EXPECT_EQ(Back->Compare->Ms[0].V.Series, "compare");
}

TEST(EngineResult, RejectsNegativeInstructionCount) {
  Expected<Measurement> M = json::parse<Measurement>(
      R"({"variant":{"series":"base","axis":"code","offset":0},"failed":false,)"
      R"("cost":1,"instructions":-5})");
  EXPECT_FALSE(bool(M));
  consumeError(M.takeError());
}

TEST(EngineResult, ProvenanceRoundTrip) {
  SweepResult R;
  R.Binary = "./app";
  R.Backend = "sim";
  R.Ms = {sample(0, false)};
  R.Prov.Tool = "layout-sweep";
  R.Prov.ToolVersion = "0.1.0";
  R.Prov.Date = "2026-12-02T01:50:00Z";
  R.Prov.Command = {"layout-sweep", "--axis=data", "./app"};
  R.Prov.Relink = {"base: clang -o {out} a.o"};
  R.Prov.BinarySHA256 = std::string(64, 'a');
  json::Value J = toJSON(R);
  const json::Object *P = J.getAsObject()->getObject("provenance");
  ASSERT_TRUE(P);
  EXPECT_EQ(P->getString("backend"), "sim");
  EXPECT_FALSE(P->get("compare_sha256"));
  std::string Text;
  raw_string_ostream(Text) << J;
  Expected<SweepResult> Back = json::parse<SweepResult>(Text);
  ASSERT_TRUE(bool(Back)) << toString(Back.takeError());
  EXPECT_EQ(Back->Prov.Command, R.Prov.Command);
  EXPECT_EQ(Back->Prov.Relink, R.Prov.Relink);
  EXPECT_EQ(Back->Prov.Date, R.Prov.Date);
  EXPECT_EQ(Back->Prov.BinarySHA256, R.Prov.BinarySHA256);
  // A result written before provenance existed reads back without one.
  J.getAsObject()->erase("provenance");
  Text.clear();
  raw_string_ostream(Text) << J;
  Expected<SweepResult> Old = json::parse<SweepResult>(Text);
  ASSERT_TRUE(bool(Old)) << toString(Old.takeError());
  EXPECT_TRUE(Old->Prov.empty());
}

TEST(EngineResult, ProvenanceDateFollowsSourceDateEpoch) {
  const char *Saved = getenv("SOURCE_DATE_EPOCH");
  std::string Keep = Saved ? Saved : "";
  setenv("SOURCE_DATE_EPOCH", "1700000000", 1);
  Expected<std::string> D = provenanceDate();
  ASSERT_TRUE(bool(D)) << toString(D.takeError());
  EXPECT_EQ(*D, "2023-11-14T22:13:20Z");
  setenv("SOURCE_DATE_EPOCH", "yesterday", 1);
  Expected<std::string> Bad = provenanceDate();
  ASSERT_FALSE(bool(Bad));
  EXPECT_NE(toString(Bad.takeError()).find("SOURCE_DATE_EPOCH"),
            std::string::npos);
  unsetenv("SOURCE_DATE_EPOCH");
  Expected<std::string> Now = provenanceDate();
  ASSERT_TRUE(bool(Now)) << toString(Now.takeError());
  EXPECT_EQ(Now->size(), 20u); // YYYY-MM-DDTHH:MM:SSZ
  if (Saved)
    setenv("SOURCE_DATE_EPOCH", Keep.c_str(), 1);
}

TEST(EngineResult, VariantKeyAndOrder) {
  Variant A, B;
  A.Offset = 64;
  B.Offset = 128;
  EXPECT_EQ(A.key(), "base/code/64");
  EXPECT_TRUE(A < B);
  B.Series = "aaa";
  EXPECT_TRUE(B < A);
}

} // namespace
