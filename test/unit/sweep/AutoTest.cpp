//===- AutoTest.cpp - the automatic sweep's relink from a link record ------===//
#include "keel/Sweep/Auto.h"
#include "keel/LinkRecord/LinkRecord.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace keel::sweep;
using Words = std::vector<std::string>;

TEST(AutoRelink, PadObjectBeforeTheMiddleInput) {
  LinkRecord R;
  R.Cwd = "/nonexistent";
  R.Argv = {"clang-22", "-fuse-ld=lld", "-L", "lib.o", "a.o", "b.o", "c.o",
            "-o", "app"};
  llvm::Expected<RecordRelink> W = relinkFromRecord(R, AxisKind::Code);
  ASSERT_TRUE(!!W) << llvm::toString(W.takeError());
  // "lib.o" is -L's value, not an input; inputs a.o b.o c.o: before b.o.
  EXPECT_EQ(W->Argv, (Words{"clang-22", "-fuse-ld=lld", "-L", "lib.o", "a.o",
                       "{padobj}", "b.o", "c.o", "-o", "{out}"}));
  EXPECT_EQ(padObjectPlace(W->Argv), "b.o");
}

TEST(AutoRelink, OneInputAndNoOutputWord) {
  LinkRecord R;
  R.Cwd = "/nonexistent";
  R.Argv = {"clang", "-O2", "prog.c"};
  llvm::Expected<RecordRelink> W = relinkFromRecord(R, AxisKind::Data);
  ASSERT_TRUE(!!W);
  EXPECT_EQ(W->Argv, (Words{"clang", "-O2", "{padobj}", "prog.c", "-o", "{out}"}));
}

TEST(AutoRelink, NoInputIsAnError) {
  LinkRecord R;
  R.Cwd = "/nonexistent";
  R.Argv = {"make", "app"};
  llvm::Expected<RecordRelink> W = relinkFromRecord(R, AxisKind::Code);
  ASSERT_FALSE(!!W);
  EXPECT_NE(llvm::toString(W.takeError()).find("no input file"), std::string::npos);
}

TEST(AutoRelink, KeelScriptGetsDefsym) {
  llvm::SmallString<128> Dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("keel-auto", Dir));
  llvm::SmallString<128> Script(Dir);
  llvm::sys::path::append(Script, "layout.ld");
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Script, EC);
    ASSERT_FALSE(EC);
    OS << "PROVIDE_HIDDEN(__keel_code_pad = 0);\nPROVIDE_HIDDEN(__keel_data_pad = 0);\n";
  }
  LinkRecord R;
  R.Cwd = Dir.str().str();
  R.Argv = {"clang-22", "a.o", "-Wl,-T,layout.ld", "-o", "app"};
  llvm::Expected<RecordRelink> Code = relinkFromRecord(R, AxisKind::Code);
  ASSERT_TRUE(!!Code);
  EXPECT_EQ(Code->Argv.back(), "-Wl,--defsym=__keel_code_pad={pad}");
  // A bare linker takes the option without -Wl.
  R.Argv = {"ld.lld", "a.o", "-T", "layout.ld", "-o", "app"};
  llvm::Expected<RecordRelink> Data = relinkFromRecord(R, AxisKind::Data);
  ASSERT_TRUE(!!Data);
  EXPECT_EQ(Data->Argv.back(), "--defsym=__keel_data_pad={pad}");
  EXPECT_EQ(Data->Argv[5], "{out}");
  llvm::sys::fs::remove(Script);
  llvm::sys::fs::remove(Dir);
}

namespace {
/// A directory with a Keel-style layout.ld (pads PROVIDEd with \p CodePad
/// and 0), removed at the end of the test.
struct ScriptDir {
  llvm::SmallString<128> Dir, Script;
  explicit ScriptDir(int CodePad = 0) {
    EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("keel-auto", Dir));
    Script = Dir;
    llvm::sys::path::append(Script, "layout.ld");
    std::error_code EC;
    llvm::raw_fd_ostream OS(Script, EC);
    EXPECT_FALSE(EC);
    OS << "PROVIDE_HIDDEN(__keel_code_pad = " << CodePad
       << ");\nPROVIDE_HIDDEN(__keel_data_pad = 0);\n";
  }
  ~ScriptDir() {
    llvm::sys::fs::remove(Script);
    llvm::sys::fs::remove(Dir);
  }
};
} // namespace

// The link's own --defsym of a pad is the value the offsets are
// added to, and offset 0 is the recorded command itself.
TEST(AutoRelink, UserDefsymKeepsItsValue) {
  ScriptDir D;
  LinkRecord R;
  R.Cwd = D.Dir.str().str();
  R.Argv = {"clang-22", "a.o", "-Wl,-T,layout.ld",
            "-Wl,-z,separate-code,--defsym=__keel_data_pad=2048", "-o", "app"};
  llvm::Expected<RecordRelink> Data = relinkFromRecord(R, AxisKind::Data);
  ASSERT_TRUE(!!Data) << llvm::toString(Data.takeError());
  EXPECT_EQ(Data->Argv,
            (Words{"clang-22", "a.o", "-Wl,-T,layout.ld",
                   "-Wl,-z,separate-code,--defsym=__keel_data_pad={pad}", "-o",
                   "{out}"}));
  EXPECT_EQ(Data->PadBase, 2048);
  EXPECT_EQ(Data->ZeroArgv,
            (Words{"clang-22", "a.o", "-Wl,-T,layout.ld",
                   "-Wl,-z,separate-code,--defsym=__keel_data_pad=2048", "-o",
                   "{out}"}));
  // The code pad the link does not set: added, from the script's default 0.
  llvm::Expected<RecordRelink> Code = relinkFromRecord(R, AxisKind::Code);
  ASSERT_TRUE(!!Code);
  EXPECT_EQ(Code->Argv.back(), "-Wl,--defsym=__keel_code_pad={pad}");
  EXPECT_EQ(Code->PadBase, 0);
  EXPECT_EQ(Code->ZeroArgv, Data->ZeroArgv);
}

TEST(AutoRelink, UserDefsymInEveryForm) {
  ScriptDir D;
  LinkRecord R;
  R.Cwd = D.Dir.str().str();
  R.Argv = {"clang-22", "a.o", "-Wl,-T,layout.ld",
            "-Wl,--defsym,__keel_data_pad=0x40", "-o", "app"};
  llvm::Expected<RecordRelink> A = relinkFromRecord(R, AxisKind::Data);
  ASSERT_TRUE(!!A);
  EXPECT_EQ(A->Argv[3], "-Wl,--defsym,__keel_data_pad={pad}");
  EXPECT_EQ(A->PadBase, 64);
  R.Argv = {"clang-22", "a.o", "-Wl,-T,layout.ld", "-Xlinker", "--defsym",
            "-Xlinker", "__keel_data_pad=128", "-o", "app"};
  llvm::Expected<RecordRelink> B = relinkFromRecord(R, AxisKind::Data);
  ASSERT_TRUE(!!B);
  EXPECT_EQ(B->Argv[6], "__keel_data_pad={pad}");
  EXPECT_EQ(B->PadBase, 128);
  R.Argv = {"ld.lld", "a.o", "-T", "layout.ld", "--defsym",
            "__keel_code_pad=64", "--defsym=__keel_data_pad=32", "-o", "app"};
  llvm::Expected<RecordRelink> C = relinkFromRecord(R, AxisKind::Code);
  ASSERT_TRUE(!!C);
  EXPECT_EQ(C->Argv[5], "__keel_code_pad={pad}");
  EXPECT_EQ(C->Argv[6], "--defsym=__keel_data_pad=32"); // the other pad stays
  EXPECT_EQ(C->PadBase, 64);
  // Not a number: one line saying so.
  R.Argv = {"ld.lld", "a.o", "-T", "layout.ld",
            "--defsym=__keel_code_pad=foo+1", "-o", "app"};
  llvm::Expected<RecordRelink> Bad = relinkFromRecord(R, AxisKind::Code);
  ASSERT_FALSE(!!Bad);
  EXPECT_NE(llvm::toString(Bad.takeError()).find("not a number"),
            std::string::npos);
}

TEST(AutoRelink, ScriptDefaultIsTheBase) {
  ScriptDir D(/*CodePad=*/192);
  LinkRecord R;
  R.Cwd = D.Dir.str().str();
  R.Argv = {"clang-22", "a.o", "-Wl,-T,layout.ld", "-o", "app"};
  llvm::Expected<RecordRelink> Code = relinkFromRecord(R, AxisKind::Code);
  ASSERT_TRUE(!!Code);
  EXPECT_EQ(Code->PadBase, 192);
  EXPECT_EQ(Code->PadFrom, "layout.ld's default");
}

namespace {
/// One swept axis' result, with its provenance.
SweepResult axisResult(const std::string &Axis, const std::string &Relink) {
  SweepResult R;
  R.Binary = "./app";
  R.Backend = "sim";
  R.Axis = Axis;
  for (int64_t O : {0, 64}) {
    Measurement M;
    M.V = Variant{"base", Axis, O};
    M.Cost = 1000 + O;
    M.Instructions = 10;
    R.Ms.push_back(M);
  }
  R.Prov.Tool = "layout-sweep";
  R.Prov.Date = "2023-11-14T22:13:20Z";
  R.Prov.Command = {"layout-sweep", "./app"};
  if (!Relink.empty())
    R.Prov.Relink = {"base: " + Relink};
  return R;
}
} // namespace

TEST(AutoReport, ReadsBackInPlannedOrderWithProvenance) {
  std::vector<AutoAxis> Axes(3);
  Axes[0].Axis = AxisKind::Env;
  Axes[0].Swept = true;
  Axes[0].How = "the environment grows";
  Axes[1].Axis = AxisKind::Heap;
  Axes[1].Why = "statically linked";
  Axes[1].Enable = "link it dynamically";
  Axes[2].Axis = AxisKind::Code;
  Axes[2].Swept = true;
  Axes[2].How = "relinked";
  std::vector<AutoOutcome> Outcomes;
  for (AutoAxis *A : {&Axes[0], &Axes[2]}) {
    SweepResult R = axisResult(axisName(A->Axis).str(),
                               A->Axis == AxisKind::Code ? "cc {padobj} -o {out}" : "");
    GateResult G = *evaluateGate(R, GateOptions{}, nullptr);
    Outcomes.push_back({A, std::move(R), std::move(G)});
  }
  // The whole sweep's provenance names each axis' relink commands.
  std::optional<Provenance> P = autoProvenance(Outcomes);
  ASSERT_TRUE(P);
  EXPECT_EQ(P->Relink, std::vector<std::string>{"code: base: cc {padobj} -o {out}"});

  llvm::SmallString<128> Path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("auto", "json", Path));
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Path, EC);
    ASSERT_FALSE(EC);
    OS << llvm::formatv("{0:2}", autoReportJSON("./app", Axes, Outcomes));
  }
  llvm::Expected<std::optional<SavedAutoSweep>> S = readAutoReport(Path);
  ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
  ASSERT_TRUE(S->has_value());
  const SavedAutoSweep &A = **S;
  EXPECT_EQ(A.Binary, "./app");
  ASSERT_EQ(A.Axes.size(), 3u);
  EXPECT_EQ(A.Axes[0].Axis, AxisKind::Env); // planned order, not by name
  EXPECT_EQ(A.Axes[1].Axis, AxisKind::Heap);
  EXPECT_EQ(A.Axes[2].Axis, AxisKind::Code);
  EXPECT_TRUE(A.Axes[0].Swept);
  EXPECT_EQ(A.Axes[0].How, "the environment grows");
  EXPECT_FALSE(A.Axes[1].Swept);
  EXPECT_EQ(A.Axes[1].Enable, "link it dynamically");
  ASSERT_EQ(A.Results.size(), 2u);
  EXPECT_EQ(A.Results[1].Axis, "code");
  EXPECT_EQ(A.Results[1].Prov.Relink, Outcomes[1].R.Prov.Relink);
  // That axis on its own, as a one-axis sweep's --baseline; a missing axis
  // is an error naming the ones swept.
  llvm::Expected<SweepResult> Env = readBaselineAxis(Path, "env");
  ASSERT_TRUE(bool(Env)) << llvm::toString(Env.takeError());
  EXPECT_EQ(Env->Ms.size(), 2u);
  llvm::Expected<SweepResult> Data = readBaselineAxis(Path, "data");
  ASSERT_FALSE(bool(Data));
  EXPECT_NE(llvm::toString(Data.takeError()).find("(it swept env, code)"),
            std::string::npos);
  llvm::sys::fs::remove(Path);
}
