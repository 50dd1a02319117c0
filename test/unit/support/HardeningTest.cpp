// Hardening of the support library: private temporary directories, output
// paths checked before any work, saturating profile counts.
#include "keel/Profile/BranchProfile.h"
#include "keel/Support/OutputFile.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"

#include <sys/stat.h>

using namespace llvm;
using namespace keel;

TEST(Hardening, PrivateTempDirIs0700FromTheStart) {
  // Even with a permissive umask the directory is never group/other
  // accessible (mkdtemp creates it 0700).
  mode_t Old = ::umask(0);
  auto Dir = makePrivateTempDir("keel-hardening");
  ::umask(Old);
  ASSERT_TRUE(bool(Dir)) << toString(Dir.takeError());
  struct stat St;
  ASSERT_EQ(::stat(Dir->c_str(), &St), 0);
  EXPECT_TRUE(S_ISDIR(St.st_mode));
  EXPECT_EQ(St.st_mode & 0777, 0700u);
  SmallString<128> Tmp;
  sys::path::system_temp_directory(true, Tmp);
  EXPECT_TRUE(StringRef(*Dir).starts_with(Tmp));
  EXPECT_TRUE(sys::path::filename(*Dir).starts_with("keel-hardening-"));
  sys::fs::remove(*Dir);
}

TEST(Hardening, CheckOutputPath) {
  auto Dir = makePrivateTempDir("keel-hardening");
  ASSERT_TRUE(bool(Dir));
  SmallString<128> File(*Dir), Under(*Dir), Ok(*Dir), Missing(*Dir);
  sys::path::append(File, "file");
  sys::path::append(Under, "file", "out");
  sys::path::append(Ok, "out");
  sys::path::append(Missing, "no", "out");
  {
    std::error_code EC;
    raw_fd_ostream(File, EC) << "x";
    ASSERT_FALSE(EC);
  }
  EXPECT_FALSE(bool(checkOutputPath("-")));
  EXPECT_FALSE(bool(checkOutputPath("")));
  EXPECT_FALSE(bool(checkOutputPath(Ok)));
  EXPECT_FALSE(bool(checkOutputPath(File))) << "an existing file is replaced";
  Error E1 = checkOutputPath(Under);
  ASSERT_TRUE(bool(E1));
  EXPECT_NE(toString(std::move(E1)).find("is not a directory"), std::string::npos);
  Error E2 = checkOutputPath(Missing);
  ASSERT_TRUE(bool(E2));
  EXPECT_NE(toString(std::move(E2)).find("does not exist"), std::string::npos);
  Error E3 = checkOutputPath(*Dir);
  ASSERT_TRUE(bool(E3));
  EXPECT_NE(toString(std::move(E3)).find("is a directory"), std::string::npos);
  sys::fs::remove(File);
  sys::fs::remove(*Dir);
}

TEST(Hardening, CountsSaturate) {
  uint64_t A = UINT64_MAX - 1;
  addCount(A, 5);
  EXPECT_EQ(A, UINT64_MAX);
  BranchCount C{UINT64_MAX, 3};
  C += BranchCount{1, UINT64_MAX};
  EXPECT_EQ(C.Count, UINT64_MAX);
  EXPECT_EQ(C.Mispreds, UINT64_MAX);
  AddressProfile P, Q;
  P.FallThroughs[{1, 2}] = UINT64_MAX;
  Q.FallThroughs[{1, 2}] = 7;
  P.merge(Q);
  EXPECT_EQ((P.FallThroughs[{1, 2}]), UINT64_MAX);
}
