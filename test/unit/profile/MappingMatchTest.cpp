//===- MappingMatchTest.cpp - which recorded mappings are a binary's ------===//
#include "keel/Profile/MappingMatch.h"
#include "keel/Profile/Binary.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace keel;
using V = BinaryMappingMatcher::Verdict;

namespace {

struct Fixture : ::testing::Test {
  std::unique_ptr<Binary> Bin;
  SmallString<128> Dir;
  std::string Self;
  void SetUp() override {
    Self = sys::fs::getMainExecutable(nullptr, nullptr);
    auto B = Binary::open(Self);
    ASSERT_TRUE(bool(B)) << toString(B.takeError());
    Bin = std::move(*B);
    ASSERT_FALSE(Bin->buildID().empty()) << "the test needs a build id";
    ASSERT_FALSE(sys::fs::createUniqueDirectory("keel-mapping-match", Dir));
  }
  void TearDown() override { sys::fs::remove_directories(Dir); }
  std::string file(StringRef Name) const {
    SmallString<128> P(Dir);
    sys::path::append(P, Name);
    return P.str().str();
  }
};

TEST_F(Fixture, NamedPathWinsUnlessBothIDsDiffer) {
  BinaryMappingMatcher M(*Bin, "/recorded/elsewhere");
  EXPECT_EQ(M.match("/recorded/elsewhere", ""), V::Named);
  EXPECT_EQ(M.match("/recorded/elsewhere", Bin->buildID().take_front(8).upper()),
            V::Named);
  EXPECT_EQ(M.match("/recorded/elsewhere", "deadbeef"), V::NamedIDMiss);
  EXPECT_FALSE(BinaryMappingMatcher::matches(V::NamedIDMiss));
}

TEST_F(Fixture, BuildIDsDecideWhateverThePath) {
  BinaryMappingMatcher M(*Bin, "");
  // perf and BOLT may shorten an id; the case does not matter.
  EXPECT_EQ(M.match("/no/such/file", Bin->buildID()), V::BuildID);
  EXPECT_EQ(M.match("/no/such/file", Bin->buildID().take_front(10).upper()),
            V::BuildID);
  EXPECT_EQ(M.match(Self, "0123456789abcdef"), V::IDMiss);
}

TEST_F(Fixture, WithoutIDsTheFileAtThePathThenItsName) {
  BinaryMappingMatcher M(*Bin, "");
  EXPECT_EQ(M.match(Self, ""), V::SameFile);
  // A copy: another file with the binary's build id.
  std::string Copy = file("copy");
  ASSERT_FALSE(sys::fs::copy_file(Self, Copy));
  EXPECT_EQ(M.match(Copy, ""), V::FileBuildID);
  // A file that is not an ELF with a build id.
  std::string Text = file("notes.txt");
  {
    std::error_code EC;
    raw_fd_ostream OS(Text, EC);
    ASSERT_FALSE(EC);
    OS << "not a binary\n";
  }
  EXPECT_EQ(M.match(Text, ""), V::PathMiss);
  // Gone from the recorded path: the file name decides.
  EXPECT_EQ(M.match("/gone/" + sys::path::filename(Self).str(), ""),
            V::FileName);
  EXPECT_EQ(M.match("/gone/other-program", ""), V::PathMiss);
  EXPECT_TRUE(BinaryMappingMatcher::matches(V::FileName));
  EXPECT_FALSE(BinaryMappingMatcher::matches(V::PathMiss));
}

} // namespace
