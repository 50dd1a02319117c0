//===- keel/Profile/Load.h - load a profile of any format ---------*- C++ -*-===//
#ifndef KEEL_PROFILE_LOAD_H
#define KEEL_PROFILE_LOAD_H

#include "keel/Profile/BranchProfile.h"
#include "keel/Profile/Formats.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace keel {

enum class ProfileFormat {
  Auto,
  PerfScript,
  Fdata,
  PreAggregated,
  Callgrind,
  PerfData
};

/// Parse a --format= value ("auto", "perf", "fdata", "pa", "callgrind",
/// "perf.data").
llvm::Expected<ProfileFormat> parseFormatName(llvm::StringRef Name);
llvm::StringRef formatName(ProfileFormat F);

/// Guess the format from the first lines of \p Text (perf.data by its
/// magic, "PERFILE2").
ProfileFormat detectFormat(llvm::StringRef Text);

/// A loaded profile: fdata is symbolic, the other formats are by address.
struct LoadedProfile {
  ProfileFormat Format = ProfileFormat::Auto;
  bool Symbolic = false;
  AddressProfile Addr;   ///< when !Symbolic
  BranchProfile Sym;     ///< when Symbolic
  uint64_t NumItems = 0; ///< records or entries read, for quality shares
  std::string ItemName = "profile records";
  std::string Path; ///< the file it was read from
};

/// Read \p Path (format \p Want, or detected) with the optional binary.
/// Address formats that need a binary say so when \p Bin is null.
llvm::Expected<LoadedProfile> loadProfile(llvm::StringRef Path,
                                          ProfileFormat Want,
                                          const Binary *Bin,
                                          QualityReport &Quality,
                                          const PerfScriptOptions &PerfOpts);

/// Add \p LP to \p Merged by address in \p Bin: a symbolic profile (fdata)
/// is resolved to its addresses. A profile recording another build-id than
/// \p Bin's is an error naming the file.
llvm::Error mergeByAddress(AddressProfile &Merged, const LoadedProfile &LP,
                           const Binary &Bin, QualityReport &Quality);

/// Every profile in \p Paths (format detected from the text) merged by
/// address in \p Bin: symbolic ones (fdata) are resolved to its addresses.
/// A profile recording another build-id than \p Bin's is an error naming
/// the file. What block layout reads: layout-blocks calls this, and
/// planLayout (layout-order --blocks) merges the profiles it is given with
/// mergeByAddress as this does.
llvm::Expected<AddressProfile>
loadAddressProfiles(const Binary &Bin, llvm::ArrayRef<std::string> Paths,
                    QualityReport &Quality,
                    const PerfScriptOptions &PerfOpts = {});

/// Where the call graph of \p Profiles (merged) comes from, in words:
/// their taken branches when any has some -- "LBR" (perf's branch stacks),
/// "valgrind exact calls" (callgrind), "fdata branch records" or
/// "pre-aggregated branch records" (perf2bolt's LBR, or layout-record
/// --source=valgrind's exact calls: the file does not say which), joined by
/// " + " -- else "callchains" (perf record -g), else "none".
std::string callGraphSourceName(llvm::ArrayRef<LoadedProfile> Profiles);

} // namespace keel

#endif
