//===- ScratchDir.h - a private directory for each unit test ----*- C++ -*-===//
//
// A GoogleTest fixture: a private directory (makePrivateTempDir) made
// before each test and removed with its files after it; write() puts text
// in a file there. Suites alias it: `using MySuite = keel::test::ScratchDir;`.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_TEST_UNIT_SCRATCHDIR_H
#define KEEL_TEST_UNIT_SCRATCHDIR_H

#include "keel/Support/OutputFile.h"

#include "llvm/Support/FileSystem.h"

#include "gtest/gtest.h"

#include <string>

namespace keel::test {

class ScratchDir : public ::testing::Test {
protected:
  void SetUp() override {
    llvm::Expected<std::string> D = makePrivateTempDir("keel-unit-test");
    ASSERT_TRUE(bool(D)) << llvm::toString(D.takeError());
    Dir = *D;
  }
  void TearDown() override { llvm::sys::fs::remove_directories(Dir); }

  std::string path(llvm::StringRef Name) { return (Dir + "/" + Name).str(); }
  /// \p Text in the file \p Name; returns its path.
  std::string write(llvm::StringRef Name, llvm::StringRef Text) {
    std::string P = path(Name);
    llvm::Error E = writeOutput(P, [&](llvm::raw_ostream &OS) {
      OS << Text;
      return llvm::Error::success();
    });
    EXPECT_FALSE(bool(E)) << llvm::toString(std::move(E));
    return P;
  }

  std::string Dir;
};

} // namespace keel::test

#endif
