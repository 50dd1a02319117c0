//===- SweepTestDir.h - a private directory with copies of /bin/true ------===//
//
// The fixture of the sweep tests that run programs without valgrind: a
// private temporary directory, removed afterwards, and copies of /bin/true
// in it (each its own file, as each variant is).
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_TEST_UNIT_SWEEP_SWEEPTESTDIR_H
#define KEEL_TEST_UNIT_SWEEP_SWEEPTESTDIR_H

#include "keel/Support/OutputFile.h"

#include "llvm/Support/FileSystem.h"

#include "gtest/gtest.h"

#include <string>

struct SweepTestDir : ::testing::Test {
  std::string Prefix, Dir;
  explicit SweepTestDir(std::string Prefix) : Prefix(std::move(Prefix)) {}
  void SetUp() override {
    auto D = keel::makePrivateTempDir(Prefix);
    ASSERT_TRUE(bool(D));
    Dir = *D;
  }
  void TearDown() override { llvm::sys::fs::remove_directories(Dir); }
  /// A copy of /bin/true as Dir/<Name>.
  std::string trueCopy(const std::string &Name) {
    std::string P = Dir + "/" + Name;
    EXPECT_FALSE(llvm::sys::fs::copy_file("/bin/true", P));
    llvm::sys::fs::setPermissions(P, llvm::sys::fs::owner_all);
    return P;
  }
};

#endif
