//===- keel/Profile/MappingMatch.h - which recorded mappings are a binary's -*- C++ -*-===//
//
// One rule for every reader of a recording that names its mappings (perf.data
// MMAP/MMAP2 records, keel-samples files): is the mapping at PATH with build
// id ID (empty: none recorded) the binary being profiled?
//  1. the path --binary-path-in-profile names is the binary, unless both
//     build ids are known and differ;
//  2. else, when the recording and the binary both have a build id, the ids
//     decide (a recorded id may be a prefix, any case: perf and BOLT shorten
//     them), whatever the paths;
//  3. else the file still at the recorded path: the binary itself, or a file
//     with the binary's build id (a copy);
//  4. else the file name.
// The verdict says which rule matched or refused, for the reader's message.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_PROFILE_MAPPINGMATCH_H
#define KEEL_PROFILE_MAPPINGMATCH_H

#include "llvm/ADT/StringRef.h"

#include <map>
#include <string>

namespace keel {

class Binary;

class BinaryMappingMatcher {
public:
  enum class Verdict {
    Named,       ///< rule 1
    BuildID,     ///< rule 2
    SameFile,    ///< rule 3: the binary's own file
    FileBuildID, ///< rule 3: a file with the binary's build id
    FileName,    ///< rule 4
    NamedIDMiss, ///< refused: the named path's build id differs
    IDMiss,      ///< refused: the build ids differ
    FileIDMiss,  ///< refused: the file at the path has another build id
    PathMiss,    ///< refused: another file, or no file and another name
  };

  /// \p PathInProfile: --binary-path-in-profile's value (empty: none).
  BinaryMappingMatcher(const Binary &Bin, llvm::StringRef PathInProfile);

  Verdict match(llvm::StringRef Path, llvm::StringRef BuildID);
  static bool matches(Verdict V) { return V <= Verdict::FileName; }

  /// Binary::buildIDOfFile, read once per path.
  const std::string &buildIDOfFile(llvm::StringRef Path);

private:
  const Binary &Bin;
  std::string PathInProfile, BinReal;
  std::map<std::string, std::string> FileIDs;
};

} // namespace keel

#endif
