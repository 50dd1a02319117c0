//===- LinkRecordTest.cpp - the link command saved beside its binary -----===//
#include "keel/LinkRecord/LinkRecord.h"

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

TEST(LinkRecord, ResponseFilesExpanded) {
  llvm::SmallString<128> Dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("keel-rsp", Dir));
  llvm::SmallString<128> Rsp(Dir), Inner(Dir);
  llvm::sys::path::append(Rsp, "link.rsp");
  llvm::sys::path::append(Inner, "inner.rsp");
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Rsp, EC);
    ASSERT_FALSE(EC);
    OS << "-Wl,-T,'my plan/layout.ld'\n-Wl,--defsym=__keel_data_pad=2048 "
          "@inner.rsp\n";
    llvm::raw_fd_ostream OS2(Inner, EC);
    ASSERT_FALSE(EC);
    OS2 << "-o app\n";
  }
  std::vector<std::string> Files;
  llvm::Expected<Words> W = expandResponseFiles(
      {"clang-22", "a.o", "@link.rsp", "@missing.rsp"}, Dir, Files);
  ASSERT_TRUE(!!W) << llvm::toString(W.takeError());
  EXPECT_EQ(*W, (Words{"clang-22", "a.o", "-Wl,-T,my plan/layout.ld",
                       "-Wl,--defsym=__keel_data_pad=2048", "-o", "app",
                       "@missing.rsp"}));
  EXPECT_EQ(Files, (Words{"link.rsp"}));
  EXPECT_EQ(linkOutput(*W), "app");
  llvm::sys::fs::remove(Rsp);
  llvm::sys::fs::remove(Inner);
  llvm::sys::fs::remove(Dir);
}
