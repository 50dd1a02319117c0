//===- EngineTest.cpp - sweep engine pieces: grid, sim, templates, journal -===//
#include "keel/Support/Diagnostics.h"
#include "keel/Support/OutputFile.h"
#include "keel/Sweep/Engine.h"
#include "keel/Sweep/Executor.h"
#include "keel/Sweep/Grid.h"
#include "keel/Sweep/Journal.h"
#include "keel/Sweep/PerfRun.h"
#include "keel/Sweep/Perturb.h"
#include "keel/Sweep/SimBackend.h"
#include "keel/Sweep/SimRun.h"

#include "keel/Support/Process.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ThreadPool.h"
#include "gtest/gtest.h"

#include <fstream>

using namespace keel;
using namespace keel::sweep;
using namespace llvm;

namespace {

std::string errText(Error E) { return toString(std::move(E)); }

TEST(EngineGrid, PresetsReproduceTheSpacerReportGrids) {
  Expected<Grid> P3 = gridPreset("16k-by-64");
  ASSERT_TRUE(bool(P3));
  std::vector<int64_t> O = P3->offsets();
  EXPECT_EQ(O.size(), 257u); // 0..16384 by 64
  EXPECT_EQ(O.back(), 16384);
  Expected<Grid> P4 = gridPreset("256k-by-1k");
  ASSERT_TRUE(bool(P4));
  EXPECT_EQ(P4->offsets().size(), 257u); // 0..256K by 1K
  EXPECT_EQ(P4->offsets()[1], 1024);
  EXPECT_EQ(Grid().offsets().size(), 65u); // default 0..4096 by 64
  Expected<Grid> Bad = gridPreset("power5");
  ASSERT_FALSE(bool(Bad));
  EXPECT_NE(errText(Bad.takeError()).find("16k-by-64"), std::string::npos);
}

TEST(EngineGrid, RejectsBadGrids) {
  EXPECT_TRUE(bool(validateGrid(Grid{0, 100, 0})));
  EXPECT_TRUE(bool(validateGrid(Grid{-64, 100, 64})));
  EXPECT_TRUE(bool(validateGrid(Grid{200, 100, 64})));
  EXPECT_TRUE(bool(validateGrid(Grid{0, 1 << 30, 1})));
  EXPECT_FALSE(bool(validateGrid(Grid{0, 0, 64}))); // one point is fine
}

TEST(EngineSim, ParsesCachegrindSummary) {
  const char *Text = "desc: I1 cache: 4096 B, 64 B, 2-way associative\n"
                     "cmd: ./a.out\n"
                     "events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm Bi Bim\n"
                     "fl=a.c\nfn=main\n0 5 1\n"
                     "summary: 1000 20 3 400 10 2 100 4 1 50 5 10 7\n";
  Expected<std::map<std::string, double>> C = parseCachegrindText(Text, "cg.out");
  ASSERT_TRUE(bool(C)) << errText(C.takeError());
  EXPECT_EQ((*C)["Ir"], 1000);
  EXPECT_EQ((*C)["Bim"], 7);
  // Default model: Ir + 10 I1mr + 10 D1mr + 100 (ILmr + DLmr) + 15 (Bcm + Bim).
  EXPECT_DOUBLE_EQ(costOf(*C, defaultWeights()),
                   1000 + 10 * 20 + 10 * 10 + 100 * (3 + 2) + 15 * (5 + 7));
}

TEST(EngineSim, CachegrindFunctionInstructions) {
  // Ir per function, summed over lines and files; versioned names merge;
  // Ir found by the events line, not assumed first.
  StringRef Text = "desc: I1 cache: 4096 B\n"
                   "events: I1mr Ir\n"
                   "fl=a.c\nfn=main\n3 1 10\n4 0 5\n"
                   "fn=helper\n9 0 7\n"
                   "fl=???\nfn=memcpy@@GLIBC_2.14\n0 2 30\n"
                   "fl=b.c\nfn=main\n12 0 1\n"
                   "summary: 3 53\n";
  std::map<std::string, uint64_t> F = cachegrindFunctionIr(Text);
  EXPECT_EQ(F.size(), 3u);
  EXPECT_EQ(F["main"], 16u);
  EXPECT_EQ(F["helper"], 7u);
  EXPECT_EQ(F["memcpy"], 30u);
  EXPECT_TRUE(cachegrindFunctionIr("events: I1mr\nfn=x\n1 2\n").empty());
}

TEST(EngineSim, CachegrindErrorsNameFileAndLine) {
  Expected<std::map<std::string, double>> Short =
      parseCachegrindText("events: Ir I1mr\nsummary: 5\n", "cg.out");
  ASSERT_FALSE(bool(Short));
  EXPECT_NE(errText(Short.takeError()).find("cg.out:2:"), std::string::npos);
  Expected<std::map<std::string, double>> None =
      parseCachegrindText("events: Ir\n", "cg.out");
  ASSERT_FALSE(bool(None));
  EXPECT_NE(errText(None.takeError()).find("no 'summary:'"), std::string::npos);
  Expected<std::map<std::string, double>> Order =
      parseCachegrindText("summary: 5\nevents: Ir\n", "x");
  EXPECT_FALSE(bool(Order));
  consumeError(Order.takeError());
}

TEST(EngineSim, WeightsOverrideAndValidate) {
  Expected<CostWeights> W = parseWeights("I1mr=20,Bim=0,D1mw=5");
  ASSERT_TRUE(bool(W));
  EXPECT_EQ((*W)["I1mr"], 20);
  EXPECT_EQ(W->count("Bim"), 0u); // 0 removes the event
  EXPECT_EQ((*W)["D1mw"], 5);
  EXPECT_EQ((*W)["Ir"], 1);
  Expected<CostWeights> Bad = parseWeights("Cycles=3");
  ASSERT_FALSE(bool(Bad));
  EXPECT_NE(errText(Bad.takeError()).find("unknown event 'Cycles'"), std::string::npos);
  Expected<CostWeights> Neg = parseWeights("Ir=-1");
  EXPECT_FALSE(bool(Neg));
  consumeError(Neg.takeError());
}

TEST(EngineSim, GeometryPresetsAndOverrides) {
  Expected<CacheGeometry> Small = geometryPreset("small");
  ASSERT_TRUE(bool(Small));
  EXPECT_EQ(geometryText(*Small), "I1=4096,2,64 D1=32768,8,64 LL=262144,8,64");
  for (StringRef Name : geometryPresetNames()) {
    Expected<CacheGeometry> G = geometryPreset(Name);
    ASSERT_TRUE(bool(G)) << Name.str();
    // Every preset must be one cachegrind accepts.
    for (const CacheLevel &L : {G->I1, G->D1, G->LL}) {
      std::string Spec = formatv("{0},{1},{2}", L.Size, L.Assoc, L.Line).str();
      Expected<CacheLevel> Back = parseCacheLevel("I1", Spec);
      EXPECT_TRUE(bool(Back)) << Name.str() << " " << Spec;
      consumeError(Back.takeError());
    }
  }
  Expected<CacheLevel> NotPow2 = parseCacheLevel("I1", "3000,2,64");
  ASSERT_FALSE(bool(NotPow2));
  EXPECT_NE(errText(NotPow2.takeError()).find("power of two"), std::string::npos);
  EXPECT_TRUE(bool(parseCacheLevel("LL", "6291456,12,64"))); // 8192 sets
  Expected<CacheLevel> Junk = parseCacheLevel("D1", "big");
  EXPECT_FALSE(bool(Junk));
  consumeError(Junk.takeError());
  std::vector<std::string> Args = cachegrindArgs(*Small, "/d/cg.out", "/d/log");
  EXPECT_NE(std::find(Args.begin(), Args.end(), "--I1=4096,2,64"), Args.end());
  EXPECT_NE(std::find(Args.begin(), Args.end(), "--branch-sim=yes"), Args.end());
  EXPECT_NE(std::find(Args.begin(), Args.end(), "--cachegrind-out-file=/d/cg.out"),
            Args.end());
}

TEST(EngineTemplates, RelinkTemplateNeedsPadAndOut) {
  EXPECT_FALSE(bool(checkRelinkTemplate("relink", "make relink PAD={pad} OUT={out}")));
  EXPECT_FALSE(bool(checkRelinkTemplate("relink", "cc a.o {padobj} b.o -o {out}")));
  std::string NoPad = errText(checkRelinkTemplate("relink", "make OUT={out}"));
  EXPECT_NE(NoPad.find("no {pad}"), std::string::npos);
  std::string NoOut = errText(checkRelinkTemplate("relink", "make PAD={pad}"));
  EXPECT_NE(NoOut.find("no {out}"), std::string::npos);
  EXPECT_TRUE(bool(checkRelinkTemplate("relink", "make 'PAD={pad}")));
}

TEST(EngineTemplates, PlaceholdersArePerWordAndLiteral) {
  EXPECT_EQ(substitutePlaceholders("-Wl,--defsym=__keel_code_pad={pad}",
                                   {{"pad", "128"}}),
            "-Wl,--defsym=__keel_code_pad=128");
  // A value is not rescanned, unknown names stay, $ means nothing.
  EXPECT_EQ(substitutePlaceholders("{out}{pad}{x}$HOME", {{"out", "{pad}"}, {"pad", "1"}}),
            "{pad}1{x}$HOME");
}

TEST(EngineTemplates, ExecutorWrapsWithEnvironment) {
  EXPECT_TRUE(bool(checkExecutorTemplate("srun -n1")));
  EXPECT_FALSE(bool(checkExecutorTemplate("srun -n1 {cmd}")));
  Expected<std::vector<std::string>> W =
      wrapForExecutor("ssh node1 cd {dir} && {cmd}", {"./prog", "arg"},
                      {"PATH=/bin", "LC_ALL=C"}, "/tmp/v1");
  ASSERT_TRUE(bool(W));
  std::vector<std::string> Want = {"ssh", "node1", "cd",   "/tmp/v1",  "&&",
                                   "env", "-i",    "PATH=/bin", "LC_ALL=C",
                                   "./prog", "arg"};
  EXPECT_EQ(*W, Want);
  Expected<std::vector<std::string>> Plain =
      wrapForExecutor("", {"./prog"}, {"PATH=/bin"}, "/tmp/v1");
  ASSERT_TRUE(bool(Plain));
  EXPECT_EQ(*Plain, std::vector<std::string>{"./prog"});
}

Measurement meas(int64_t Off, double Ir) {
  Measurement M;
  M.V.Offset = Off;
  M.Counters = {{"Ir", Ir}};
  M.Cost = Ir;
  M.Instructions = static_cast<uint64_t>(Ir);
  return M;
}

struct JournalFixture : ::testing::Test {
  std::string Dir, Path;
  void SetUp() override {
    Expected<std::string> D = makePrivateTempDir("journal-test");
    ASSERT_TRUE(bool(D));
    Dir = *D;
    Path = Dir + "/j.journal";
  }
  void TearDown() override { sys::fs::remove_directories(Dir); }
};

TEST_F(JournalFixture, ResumeKeepsFinishedAndDropsTornLine) {
  std::vector<Measurement> Done;
  {
    Expected<std::unique_ptr<Journal>> J = Journal::open(Path, "fp", false, false, Done);
    ASSERT_TRUE(bool(J)) << errText(J.takeError());
    ASSERT_FALSE(bool((*J)->append(meas(0, 100))));
    ASSERT_FALSE(bool((*J)->append(meas(64, 110))));
  }
  { // a kill in the middle of a write
    std::ofstream F(Path, std::ios::app);
    F << R"({"variant":{"series":"base","axis":"code","off)";
  }
  {
    Expected<std::unique_ptr<Journal>> J = Journal::open(Path, "fp", true, false, Done);
    ASSERT_TRUE(bool(J)) << errText(J.takeError());
    ASSERT_EQ(Done.size(), 2u);
    EXPECT_EQ(Done[1].V.Offset, 64);
    EXPECT_EQ(Done[1].Cost, 110);
    ASSERT_FALSE(bool((*J)->append(meas(128, 90))));
  }
  Expected<std::string> Text = readWholeFile(Path);
  ASSERT_TRUE(bool(Text));
  Expected<JournalContents> C = parseJournal(*Text, Path);
  ASSERT_TRUE(bool(C)) << errText(C.takeError());
  EXPECT_FALSE(C->DroppedPartialLine);
  ASSERT_EQ(C->Ms.size(), 3u);
  EXPECT_EQ(C->Ms[2].V.Offset, 128);
}

TEST_F(JournalFixture, RefusesOtherSweepsAndSilentOverwrite) {
  std::vector<Measurement> Done;
  {
    Expected<std::unique_ptr<Journal>> J = Journal::open(Path, "fp", false, false, Done);
    ASSERT_TRUE(bool(J));
  }
  Expected<std::unique_ptr<Journal>> Again = Journal::open(Path, "fp", false, false, Done);
  ASSERT_FALSE(bool(Again));
  EXPECT_NE(errText(Again.takeError()).find("--resume"), std::string::npos);
  Expected<std::unique_ptr<Journal>> Other = Journal::open(Path, "other", true, false, Done);
  ASSERT_FALSE(bool(Other));
  EXPECT_NE(errText(Other.takeError()).find("different sweep"), std::string::npos);
}

TEST(EngineJournal, BadLineIsInputErrorWithLine) {
  Expected<JournalContents> C = parseJournal(
      "{\"keel_sweep_journal\":1,\"fingerprint\":\"f\"}\nnot json\n", "j");
  ASSERT_FALSE(bool(C));
  EXPECT_NE(errText(C.takeError()).find("j:2:"), std::string::npos);
  Expected<JournalContents> NoHeader = parseJournal("{\"x\":1}\n", "j");
  EXPECT_FALSE(bool(NoHeader));
  consumeError(NoHeader.takeError());
}

TEST(EngineJournal, LaterLineForSameVariantWins) {
  std::string Text = "{\"keel_sweep_journal\":1,\"fingerprint\":\"f\"}\n";
  for (double Cost : {5.0, 7.0}) {
    std::string L;
    raw_string_ostream(L) << toJSON(meas(64, Cost));
    Text += L + "\n";
  }
  Expected<JournalContents> C = parseJournal(Text, "j");
  ASSERT_TRUE(bool(C));
  ASSERT_EQ(C->Ms.size(), 1u);
  EXPECT_EQ(C->Ms[0].Cost, 7);
}

TEST(EnginePerf, CapabilityCheckGivesExit3OrSucceeds) {
  Error E = checkPerfCounters();
  if (!E)
    return; // a machine with counters
  bool IsUnavailable = E.isA<UnavailableError>();
  std::string Msg = toString(std::move(E));
  EXPECT_TRUE(IsUnavailable) << Msg;
  EXPECT_NE(Msg.find("perf_event_open(cycles)"), std::string::npos);
}

// A sweep waits for variants on pool threads; ExecuteAndWait's SIGALRM
// timeout would go to another thread, so runProgram must enforce it itself.
TEST(EngineProcess, TimeoutHoldsOnPoolThreads) {
  std::vector<RunResult> Results(2);
  DefaultThreadPool Pool(hardware_concurrency(2));
  for (RunResult &Out : Results)
    Pool.async([&Out] {
      RunOptions RO;
      RO.TimeoutSeconds = 1;
      Expected<RunResult> R = runProgram({"sleep", "30"}, RO);
      if (R)
        Out = *R;
      else
        consumeError(R.takeError());
    });
  Pool.wait();
  for (const RunResult &R : Results) {
    EXPECT_TRUE(R.Crashed);
    EXPECT_EQ(R.Message, "timed out after 1 s");
  }
}

// keel-sim's directory and the shim reach the program's LD_PRELOAD, so a
// local or Slurm run names them by descriptor (their paths' length would move
// the program's stack with where Keel is installed); an executor runs where
// the descriptors are not open and keeps the paths.
TEST(EngineSim, NamesSimLibAndShimByDescriptor) {
  EngineOptions O;
  O.Perturb.StackShim = "/some/long/prefix/lib/keel/libkeelstackshift.so";
  SimTools T;
  T.KeelSimLib = "/some/long/prefix/lib/keel/keel-sim";
  PreparedVariant P;
  P.Env = {"PATH=/usr/local/bin:/usr/bin:/bin", "LD_PRELOAD=" + O.Perturb.StackShim,
           "KEEL_STACK_SHIFT=0000064"};
  PreparedVariant Local = P;
  Local.Env = simRunEnv(T, P);
  nameByDescriptor(O, T, Local);
  EXPECT_EQ(Local.Env, (std::vector<std::string>{
                           "PATH=/usr/local/bin:/usr/bin:/bin",
                           "LD_PRELOAD=/dev/fd/102", "KEEL_STACK_SHIFT=0000064",
                           "VALGRIND_LIB=/dev/fd/101"}));
  EXPECT_EQ(Local.MoreFds,
            (std::vector<std::pair<int, std::string>>{
                {ShimFd, O.Perturb.StackShim}, {SimLibFd, T.KeelSimLib}}));

  // A user's own LD_PRELOAD (--env) is not the shim: it keeps its path.
  PreparedVariant Own;
  Own.Env = {"LD_PRELOAD=/usr/lib/libmine.so"};
  nameByDescriptor(O, T, Own);
  EXPECT_EQ(Own.Env, std::vector<std::string>{"LD_PRELOAD=/usr/lib/libmine.so"});
  EXPECT_TRUE(Own.MoreFds.empty());

  O.Executor = ExecutorKind::Template;
  O.ExecutorTemplate = "srun -n1 {cmd}";
  PreparedVariant Remote = P;
  Remote.Env = simRunEnv(T, P);
  nameByDescriptor(O, T, Remote);
  EXPECT_EQ(Remote.Env.back(), "VALGRIND_LIB=" + T.KeelSimLib);
  EXPECT_EQ(Remote.Env[1], "LD_PRELOAD=" + O.Perturb.StackShim);
  EXPECT_TRUE(Remote.MoreFds.empty());
}

} // namespace

TEST(EngineOptionsTest, KindsKeepTheirNames) {
  for (BackendKind K : {BackendKind::Sim, BackendKind::Cachegrind,
                        BackendKind::Time, BackendKind::Perf}) {
    Expected<BackendKind> Back = parseBackendKind(name(K));
    ASSERT_TRUE(bool(Back));
    EXPECT_EQ(*Back, K);
  }
  Expected<BackendKind> Bad = parseBackendKind("nope");
  ASSERT_FALSE(bool(Bad));
  EXPECT_EQ(toString(Bad.takeError()),
            "unknown --backend 'nope' (sim, cachegrind, time, perf)");
  EXPECT_EQ(parseExecutorKind(""), ExecutorKind::Local);
  EXPECT_EQ(parseExecutorKind("slurm"), ExecutorKind::Slurm);
  EXPECT_EQ(parseExecutorKind("ssh node {cmd}"), ExecutorKind::Template);
}
