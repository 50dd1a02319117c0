//===- VariantMapTest.cpp - keel-sim's address maps of a variant ---------===//
#include "keel/VariantMap/VariantMap.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace keel::sweep;

TEST(VariantMap, KeelSimMapTextListsEveryRangeInHex) {
  // Offset 0 is written too: keel-sim reads a range as "covered".
  VariantMap M;
  M.Name = "base/code/64";
  M.Ranges = {{0x1000, 0x2000, 64}, {0x3000, 0x3010, 0}};
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  writeKeelSimMap(OS, ExeExtent{0x400000, 0x40a000}, {M});
  EXPECT_EQ(Out, "# keel-sim address maps (written by Keel; docs/keel-sim.md)\n"
                 "exe 0x400000 0x40a000\n"
                 "variant base/code/64\n"
                 "range 0x1000 0x2000 64\n"
                 "range 0x3000 0x3010 0\n");
}

TEST(VariantMap, AFileThatIsNoELFIsAnError) {
  llvm::SmallString<128> Path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("variantmap", "txt", Path));
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Path, EC);
    ASSERT_FALSE(EC);
    OS << "not an ELF file\n";
  }
  llvm::Expected<ExeExtent> E = exeExtent(Path);
  EXPECT_FALSE(bool(E));
  llvm::consumeError(E.takeError());
  llvm::Expected<VariantMap> M = deriveVariantMap(Path, Path, "v");
  EXPECT_FALSE(bool(M));
  llvm::consumeError(M.takeError());
  llvm::sys::fs::remove(Path);
}
