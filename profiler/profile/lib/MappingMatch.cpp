//===- MappingMatch.cpp - which recorded mappings are a binary's ----------===//
//
// The rule is in keel/Profile/MappingMatch.h.
//
//===----------------------------------------------------------------------===//
#include "keel/Profile/MappingMatch.h"
#include "keel/Profile/Binary.h"
#include "TextScan.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace keel {

BinaryMappingMatcher::BinaryMappingMatcher(const Binary &Bin,
                                           StringRef PathInProfile)
    : Bin(Bin), PathInProfile(PathInProfile.str()) {
  SmallString<256> Real;
  if (!sys::fs::real_path(Bin.path(), Real))
    BinReal = Real.str().str();
}

const std::string &BinaryMappingMatcher::buildIDOfFile(StringRef Path) {
  auto [It, New] = FileIDs.try_emplace(Path.str());
  if (New)
    It->second = Binary::buildIDOfFile(Path);
  return It->second;
}

BinaryMappingMatcher::Verdict BinaryMappingMatcher::match(StringRef Path,
                                                          StringRef ID) {
  const StringRef Want = Bin.buildID();
  const bool Known = !ID.empty() && !Want.empty();
  if (!PathInProfile.empty() && Path == PathInProfile)
    return !Known || textscan::buildIDMatches(ID, Want) ? Verdict::Named
                                                        : Verdict::NamedIDMiss;
  if (Known)
    return textscan::buildIDMatches(ID, Want) ? Verdict::BuildID
                                              : Verdict::IDMiss;
  SmallString<256> Real;
  if (!sys::fs::real_path(Path, Real)) {
    if (Real.str() == BinReal)
      return Verdict::SameFile;
    if (Want.empty())
      return Verdict::PathMiss;
    const std::string &FileID = buildIDOfFile(Real);
    if (FileID.empty())
      return Verdict::PathMiss;
    return FileID == Want ? Verdict::FileBuildID : Verdict::FileIDMiss;
  }
  return sys::path::filename(Path) == sys::path::filename(Bin.path())
             ? Verdict::FileName
             : Verdict::PathMiss;
}

} // namespace keel
