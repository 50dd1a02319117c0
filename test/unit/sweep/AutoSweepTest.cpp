//===- AutoSweepTest.cpp - runAutoSweep and runAxisSweep, no valgrind -----===//
//
// The refusals (before any sweep: nothing printed, nothing measured), the
// geometry paths and the best variant, and one small sweep of each kind on
// the time backend (copies of /bin/true; only the env axis moves them).
// Never asserts on a time: only on what is swept, printed and written.
//
//===----------------------------------------------------------------------===//
#include "keel/Sweep/AutoSweep.h"
#include "keel/Sweep/AxisSweep.h"
#include "SweepTestDir.h"

#include "keel/Support/Diagnostics.h"
#include "keel/Support/OutputFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace keel;
using namespace keel::sweep;

namespace {

bool contains(const std::string &S, llvm::StringRef Part) {
  return llvm::StringRef(S).contains(Part);
}

struct SweepRun : SweepTestDir {
  std::string Out, Err;
  llvm::raw_string_ostream OutOS{Out}, ErrOS{Err};

  SweepRun() : SweepTestDir("keel-autosweep-test") {}

  /// Write \p Text to Dir/<Name>, executable.
  std::string script(const std::string &Name, llvm::StringRef Text) {
    std::string P = Dir + "/" + Name;
    std::error_code EC;
    {
      llvm::raw_fd_ostream OS(P, EC);
      EXPECT_FALSE(EC);
      OS << Text;
    }
    llvm::sys::fs::setPermissions(P, llvm::sys::fs::owner_all);
    return P;
  }
  /// A short timed sweep of \p Binary: two offsets, few rounds, shims that
  /// do not exist (stack and heap are not swept).
  EngineOptions timeOptions(const std::string &Binary) {
    EngineOptions O;
    O.Binary = Binary;
    O.Backend = BackendKind::Time;
    O.G = Grid{0, 64, 64};
    O.Perturb.Axis = AxisKind::Env;
    O.Perturb.HeapShim = Dir + "/no-heapshift.so";
    O.Perturb.StackShim = Dir + "/no-stackshift.so";
    O.Time.Rounds = 3;
    O.Time.Warmup = 0;
    O.Time.AACopies = 1;
    O.Time.Cpu = -2;
    return O;
  }
  /// The error's message and status; fails the test on success.
  template <typename T>
  std::pair<std::string, int> refusal(llvm::Expected<T> R) {
    EXPECT_FALSE(bool(R));
    if (R)
      return {"", 0};
    llvm::Error E = R.takeError();
    std::string Msg;
    int Status = 0;
    llvm::handleAllErrors(std::move(E), [&](const llvm::ErrorInfoBase &EI) {
      Msg = EI.message();
      Status = EI.isA<UnavailableError>() ? ExitUnavailable : ExitBadInput;
    });
    return {Msg, Status};
  }
};

TEST(GeometryPath, OneGeometryOrStdoutIsUnchanged) {
  CacheGeometry G;
  G.I1 = {16384, 4, 64};
  EXPECT_EQ(geometryPath("r.json", G, false), "r.json");
  EXPECT_EQ(geometryPath("-", G, true), "-");
  EXPECT_EQ(geometryPath("", G, true), "");
  EXPECT_EQ(geometryPath("out/r.json", G, true), "out/r.i1-16384-4-64.json");
  EXPECT_EQ(geometryPath("r.journal", G, true, /*AtEnd=*/true),
            "r.journal.i1-16384-4-64");
}

TEST(BestVariant, CheapestThenSmallestOffsetAndNeverFailed) {
  SweepResult R;
  auto M = [](int64_t Offset, double Cost, bool Failed) {
    Measurement X;
    X.V = Variant{"base", "code", Offset};
    X.Cost = Cost;
    X.Failed = Failed;
    return X;
  };
  EXPECT_EQ(bestVariant(R), nullptr);
  R.Ms = {M(0, 10, false), M(64, 5, true), M(128, 7, false), M(192, 7, false)};
  ASSERT_NE(bestVariant(R), nullptr);
  EXPECT_EQ(bestVariant(R)->V.Offset, 128);
  R.Ms = {M(0, 10, true)};
  EXPECT_EQ(bestVariant(R), nullptr);
}

TEST_F(SweepRun, AutoRefusesBeforeSweeping) {
  AutoSweepOptions AO;
  AO.Reports.JSON = Dir + "/no-such-dir/r.json";
  EngineOptions O = timeOptions(trueCopy("prog"));
  EXPECT_EQ(refusal(runAutoSweep(O, GateOptions(), AO, ErrOS)).second,
            ExitBadInput);

  AO = AutoSweepOptions();
  AO.Baseline = Dir + "/missing-baseline.json";
  EXPECT_EQ(refusal(runAutoSweep(O, GateOptions(), AO, ErrOS)).second,
            ExitBadInput);

  AO = AutoSweepOptions();
  O.Binary = Dir + "/missing";
  auto [Msg, Status] = refusal(runAutoSweep(O, GateOptions(), AO, ErrOS));
  EXPECT_TRUE(contains(Msg, "no such file")) << Msg;
  EXPECT_EQ(Status, ExitBadInput);

  // Executable, so checkSweepable takes it; not ELF, so no axis is planned.
  O.Binary = script("prog.sh", "#!/bin/sh\nexit 0\n");
  std::tie(Msg, Status) = refusal(runAutoSweep(O, GateOptions(), AO, ErrOS));
  EXPECT_TRUE(contains(Msg, "not an ELF executable")) << Msg;
  EXPECT_EQ(Err, "") << "nothing is announced before a refusal";
}

TEST_F(SweepRun, AutoSweepsWhatMovesAndReturnsWhatToPrint) {
  EngineOptions O = timeOptions(trueCopy("prog"));
  O.JournalPath = Dir + "/r.json.journal";
  AutoSweepOptions AO;
  AO.Reports.JSON = Dir + "/r.json";
  AO.RemoveJournals = true;
  llvm::Expected<AutoSweepResult> R =
      runAutoSweep(O, GateOptions(), AO, ErrOS);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  ASSERT_EQ(R->Axes.size(), 5u);
  EXPECT_EQ(R->Axes[0].Axis, AxisKind::Stack);
  EXPECT_FALSE(R->Axes[0].Swept);
  EXPECT_EQ(R->Axes[1].Axis, AxisKind::Env);
  EXPECT_TRUE(R->Axes[1].Swept);
  ASSERT_EQ(R->Outcomes.size(), 1u);
  EXPECT_EQ(R->Outcomes[0].A, &R->Axes[1]);
  EXPECT_EQ(R->Outcomes[0].R.Ms.size(), 2u);
  EXPECT_EQ(R->ExitStatus, ExitOK);
  EXPECT_FALSE(R->GateFailure);
  // The table is returned, not printed; progress went to the stream.
  EXPECT_TRUE(contains(R->Text, "env")) << R->Text;
  EXPECT_EQ(Out, "");
  EXPECT_TRUE(contains(Err, "layout-sweep: sweeping env of " + O.Binary +
                                ": 2 variants (2 per axis, offsets 0..64 by "
                                "64), backend time, 1 at a time; not swept: "
                                "stack, heap, code, data"))
      << Err;
  EXPECT_TRUE(contains(Err, "layout-sweep: env: 2 variants measured in")) << Err;
  // The combined JSON was written; the default journal is gone.
  llvm::Expected<std::string> Text = readWholeFile(AO.Reports.JSON);
  ASSERT_TRUE(bool(Text)) << llvm::toString(Text.takeError());
  llvm::Expected<llvm::json::Value> J = llvm::json::parse(*Text);
  ASSERT_TRUE(bool(J)) << llvm::toString(J.takeError());
  EXPECT_EQ(J->getAsObject()->getString("mode"), "auto");
  EXPECT_FALSE(llvm::sys::fs::exists(O.JournalPath + ".env"));
}

TEST_F(SweepRun, AutoWritesEachReportAndNamesItsTool) {
  EngineOptions O = timeOptions(trueCopy("prog"));
  AutoSweepOptions AO;
  AO.Reports = {"", Dir + "/r.csv", Dir + "/r.svg", Dir + "/r.html"};
  AO.Tool = "sweeper";
  llvm::Expected<AutoSweepResult> R =
      runAutoSweep(O, GateOptions(), AO, ErrOS);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_FALSE(R->Text.empty());
  EXPECT_TRUE(contains(Err, "sweeper: sweeping env of")) << Err;
  for (const std::string &P : {AO.Reports.CSV, AO.Reports.SVG, AO.Reports.HTML})
    EXPECT_TRUE(llvm::sys::fs::exists(P)) << P;
}

TEST_F(SweepRun, AxisRefusesBeforeSweeping) {
  EngineOptions O = timeOptions(trueCopy("prog"));
  AxisSweepOptions AO;
  GateOptions GO;
  GO.MaxMispredictRise = 1;
  auto [Msg, Status] = refusal(runAxisSweep(O, GO, AO, OutOS, ErrOS));
  EXPECT_TRUE(contains(Msg, "--backend=time counts no branch mispredicts"))
      << Msg;
  EXPECT_EQ(Status, ExitBadInput);

  O.MoreGeometries.push_back(O.Geometry);
  AO.BestPadOut = Dir + "/pad.json";
  std::tie(Msg, Status) =
      refusal(runAxisSweep(O, GateOptions(), AO, OutOS, ErrOS));
  EXPECT_TRUE(contains(Msg, "take one geometry")) << Msg;

  AO.BestPadOut.clear();
  std::tie(Msg, Status) =
      refusal(runAxisSweep(O, GateOptions(), AO, OutOS, ErrOS));
  EXPECT_TRUE(contains(Msg, "several --I1 need --backend=sim")) << Msg;

  O.MoreGeometries.clear();
  AO.Reports.SVG = Dir + "/no-such-dir/r.svg";
  EXPECT_EQ(refusal(runAxisSweep(O, GateOptions(), AO, OutOS, ErrOS)).second,
            ExitBadInput);
  EXPECT_EQ(Out, "");
  EXPECT_EQ(Err, "");
}

TEST_F(SweepRun, AxisWritesTheTableAndTheBestPad) {
  EngineOptions O = timeOptions(trueCopy("prog"));
  AxisSweepOptions AO;
  AO.Reports.JSON = Dir + "/r.json";
  AO.BestPadOut = Dir + "/pad.json";
  llvm::Expected<int> Status = runAxisSweep(O, GateOptions(), AO, OutOS, ErrOS);
  ASSERT_TRUE(bool(Status)) << llvm::toString(Status.takeError());
  EXPECT_EQ(*Status, ExitOK);
  EXPECT_TRUE(contains(Out, "env")) << Out;
  EXPECT_TRUE(contains(Err, "layout-sweep: best env pad ")) << Err;
  EXPECT_TRUE(contains(Err, "-> " + AO.BestPadOut)) << Err;
  llvm::Expected<std::string> Pad = readWholeFile(AO.BestPadOut);
  ASSERT_TRUE(bool(Pad)) << llvm::toString(Pad.takeError());
  llvm::Expected<llvm::json::Value> J = llvm::json::parse(*Pad);
  ASSERT_TRUE(bool(J)) << llvm::toString(J.takeError());
  EXPECT_EQ(J->getAsObject()->getString("axis"), "env");
  EXPECT_TRUE(llvm::sys::fs::exists(AO.Reports.JSON));
}

} // namespace
