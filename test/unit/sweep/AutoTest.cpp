//===- AutoTest.cpp - the automatic sweep's relink from a link record ------===//
#include "keel/Sweep/Auto.h"
#include "keel/Sweep/LinkRecord.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace keel::sweep;
using Words = std::vector<std::string>;

TEST(LinkRecord, OutputWord) {
  EXPECT_EQ(linkOutput({"clang", "a.o", "-o", "app"}), "app");
  EXPECT_EQ(linkOutput({"clang", "a.o", "-oapp"}), "app");
  EXPECT_EQ(linkOutput({"clang", "a.o"}), "a.out");
  EXPECT_EQ(linkRecordPath("bin/app"), "bin/app.keel-link.json");
}

TEST(AutoRelink, PadObjectBeforeTheMiddleInput) {
  LinkRecord R;
  R.Cwd = "/nonexistent";
  R.Argv = {"clang-22", "-fuse-ld=lld", "-L", "lib.o", "a.o", "b.o", "c.o",
            "-o", "app"};
  llvm::Expected<Words> W = relinkFromRecord(R, "code");
  ASSERT_TRUE(!!W) << llvm::toString(W.takeError());
  // "lib.o" is -L's value, not an input; inputs a.o b.o c.o: before b.o.
  EXPECT_EQ(*W, (Words{"clang-22", "-fuse-ld=lld", "-L", "lib.o", "a.o",
                       "{padobj}", "b.o", "c.o", "-o", "{out}"}));
  EXPECT_EQ(padObjectPlace(*W), "b.o");
}

TEST(AutoRelink, OneInputAndNoOutputWord) {
  LinkRecord R;
  R.Cwd = "/nonexistent";
  R.Argv = {"clang", "-O2", "prog.c"};
  llvm::Expected<Words> W = relinkFromRecord(R, "data");
  ASSERT_TRUE(!!W);
  EXPECT_EQ(*W, (Words{"clang", "-O2", "{padobj}", "prog.c", "-o", "{out}"}));
}

TEST(AutoRelink, NoInputIsAnError) {
  LinkRecord R;
  R.Cwd = "/nonexistent";
  R.Argv = {"make", "app"};
  llvm::Expected<Words> W = relinkFromRecord(R, "code");
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
  llvm::Expected<Words> Code = relinkFromRecord(R, "code");
  ASSERT_TRUE(!!Code);
  EXPECT_EQ(Code->back(), "-Wl,--defsym=__keel_code_pad={pad}");
  // A bare linker takes the option without -Wl.
  R.Argv = {"ld.lld", "a.o", "-T", "layout.ld", "-o", "app"};
  llvm::Expected<Words> Data = relinkFromRecord(R, "data");
  ASSERT_TRUE(!!Data);
  EXPECT_EQ(Data->back(), "--defsym=__keel_data_pad={pad}");
  EXPECT_EQ((*Data)[5], "{out}");
  llvm::sys::fs::remove(Script);
  llvm::sys::fs::remove(Dir);
}
