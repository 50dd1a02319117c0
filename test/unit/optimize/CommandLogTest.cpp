//===- CommandLogTest.cpp - the command log and the replay's commands -----===//
#include "keel/Optimize/CommandLog.h"
#include "keel/Optimize/Replay.h"

#include "../ScratchDir.h"

#include "keel/Support/Diagnostics.h"

#include "gtest/gtest.h"

using namespace keel;
using namespace keel::optimize;

namespace {

using CommandLogTest = keel::test::ScratchDir;

using Words = std::vector<std::string>;

TEST(CommandKindTest, CompileLinkAndOther) {
  EXPECT_EQ(classify({"clang-22", "-O2", "-c", "a.c", "-o", "a.o"}), CommandKind::Compile);
  EXPECT_EQ(classify({"clang-22", "-O2", "a.o", "libx.a", "-o", "app"}), CommandKind::Link);
  // A compile and link in one: the link compiles its sources itself.
  EXPECT_EQ(classify({"clang-22", "-O2", "-o", "app", "app.c"}), CommandKind::Link);
  EXPECT_EQ(classify({"clang-22", "-E", "conftest.c"}), CommandKind::Other);
  EXPECT_EQ(classify({"clang-22", "--version"}), CommandKind::Other);
  EXPECT_EQ(classify({"clang-22", "-v"}), CommandKind::Other);
  // -o's value is no input: "-o x.c" does not make this a compile of x.c.
  EXPECT_EQ(classify({"clang-22", "-o", "x.c"}), CommandKind::Other);
}

TEST(CommandKindTest, SourcesInputsAndOutputs) {
  RecordedCommand C{"/src/sub", {"clang-22", "-I", "inc.c", "-c", "../a.c", "-MF", "d.c"}, 1};
  EXPECT_EQ(sources(C.Argv), Words({"../a.c"}));
  // No -o: the object of the source's file name, in the working directory.
  EXPECT_EQ(outputsOf(C), Words({"/src/sub/a.o"}));
  RecordedCommand L{"/src", {"clang-22", "-o", "bin/app", "main.o", "lib/libx.a", "-lm", "-L", "lib"}, 2};
  EXPECT_EQ(linkInputs(L.Argv), Words({"main.o", "lib/libx.a"}));
  EXPECT_EQ(outputsOf(L), Words({"/src/bin/app"}));
  RecordedCommand A{"/src", {"clang-22", "main.o"}, 3};
  EXPECT_EQ(outputsOf(A), Words({"/src/a.out"}));
  EXPECT_EQ(absolutePath("/src/sub", "../lib/./x.o"), "/src/lib/x.o");
}

TEST(CommandKindTest, LibrariesAndTheirDirectories) {
  Words A = {"clang-22", "-o", "app", "main.o", "-L.", "-lops", "-L", "lib",
             "-l", "m", "-l:libz.a", "-Xlinker", "-lnot", "-Lsub"};
  std::vector<LibraryOption> L = libraryOptions(A);
  ASSERT_EQ(L.size(), 3u);
  EXPECT_EQ(L[0].Index, 5u);
  EXPECT_EQ(L[0].Words, 1u);
  EXPECT_EQ(L[0].Name, "ops");
  EXPECT_FALSE(L[0].Exact);
  EXPECT_EQ(L[1].Index, 8u);
  EXPECT_EQ(L[1].Words, 2u);
  EXPECT_EQ(L[1].Name, "m");
  EXPECT_EQ(L[2].Name, "libz.a");
  EXPECT_TRUE(L[2].Exact);
  // -Xlinker's value is the linker's word, not a library of the driver.
  EXPECT_EQ(librarySearchDirs(A), Words({".", "lib", "sub"}));
}

TEST(ReplayArgvTest, OutputReplacedDependenciesDroppedFlagsAdded) {
  RecordedCommand C{"/b", {"clang", "-DX", "-MD", "-MT", "a.o", "-MF", ".deps/a.Tpo",
                           "-Wp,-MD,.deps/a.d", "-o", "a.o", "-c", "a.c"}, 1};
  Words A = replayArgv(C, "/plan/objects/0-a.o", {"@/plan/compile.rsp"});
  Words Want = {"clang", "-DX", "-o", "/plan/objects/0-a.o", "-c", "a.c"};
  Want.insert(Want.end(), profilingFlags().begin(), profilingFlags().end());
  Want.push_back("@/plan/compile.rsp");
  EXPECT_EQ(A, Want);
  // No -o: one is added.
  Words B = replayArgv({"/b", {"clang", "-c", "a.c"}, 1}, "/o.o", {});
  EXPECT_EQ(Words(B.begin(), B.begin() + 5), Words({"clang", "-c", "a.c", "-o", "/o.o"}));
  Words C2 = replayArgv({"/b", {"clang", "-c", "a.c", "-oa.o"}, 1}, "/o.o", {});
  EXPECT_EQ(C2[3], "-o/o.o");
}

TEST(ReplayArgvTest, DisplayQuotesForAShell) {
  EXPECT_EQ(displayCommand({"clang-22", "-DNAME=\"x y\"", "it's", "@a/b.rsp", ""}),
            "clang-22 '-DNAME=\"x y\"' 'it'\\''s' @a/b.rsp ''");
}

TEST_F(CommandLogTest, AppendedCommandsReadBack) {
  std::string Log = path("commands.jsonl");
  ASSERT_FALSE(bool(appendCommand(Log, {"/src", {"clang-22", "-c", "a b.c"}, 0})));
  ASSERT_FALSE(bool(appendCommand(Log, {"/src", {"clang-22", "a.o", "-o", "app"}, 0})));
  auto Cmds = readCommandLog(Log);
  ASSERT_TRUE(bool(Cmds)) << llvm::toString(Cmds.takeError());
  ASSERT_EQ(Cmds->size(), 2u);
  EXPECT_EQ((*Cmds)[0].Argv, Words({"clang-22", "-c", "a b.c"}));
  EXPECT_EQ((*Cmds)[1].Cwd, "/src");
  EXPECT_EQ((*Cmds)[1].Line, 2u);
}

TEST_F(CommandLogTest, BadLinesNameFileAndLine) {
  std::string Log = write("bad.jsonl", "{\"cwd\":\"/s\",\"argv\":[\"cc\"]}\n{\"cwd\":\"/s\"}\n");
  auto Cmds = readCommandLog(Log);
  ASSERT_FALSE(bool(Cmds));
  std::string Msg = llvm::toString(Cmds.takeError());
  EXPECT_EQ(Msg, Log + ":2: a command needs \"cwd\" and a non-empty \"argv\"");
}

TEST(PlanReplayTest, TheLastLinkAndTheLastCompileOfEachObject) {
  std::vector<RecordedCommand> Log = {
      {"/s", {"cc", "-c", "a.c", "-O0"}, 1},
      {"/s", {"cc", "-c", "b.c"}, 2},
      {"/s", {"cc", "-c", "a.c", "-O2"}, 3}, // a.o made again
      {"/s", {"cc", "a.o", "b.o", "x.o", "-o", "app"}, 4},
      {"/s", {"cc", "other.c", "-o", "other"}, 5},
  };
  auto P = planReplay(Log, "app", "log");
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  EXPECT_EQ(P->Binary, "/s/app");
  ASSERT_EQ(P->Compiles.size(), 2u);
  EXPECT_EQ(P->Compiles[0].Line, 3u);
  EXPECT_EQ(P->Compiles[1].Line, 2u);
  EXPECT_EQ(P->CompileOutputs, Words({"/s/a.o", "/s/b.o"}));
  EXPECT_EQ(P->Unrebuilt, 1u); // x.o: no recorded compile made it
  // The default program is the last one linked.
  auto Last = planReplay(Log, "", "log");
  ASSERT_TRUE(bool(Last));
  EXPECT_EQ(Last->Binary, "/s/other");
  EXPECT_TRUE(Last->Compiles.empty());
  auto None = planReplay(Log, "nosuch", "log");
  ASSERT_FALSE(bool(None));
  EXPECT_NE(llvm::toString(None.takeError()).find("log: no recorded link wrote 'nosuch'"),
            std::string::npos);
}

} // namespace
