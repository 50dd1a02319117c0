//===- Show.h - hottest functions and call edges of a profile -------------===//
#ifndef KEEL_TOOLS_LAYOUTPROFILE_SHOW_H
#define KEEL_TOOLS_LAYOUTPROFILE_SHOW_H

#include "keel/Profile/Load.h"

#include "llvm/Support/raw_ostream.h"

namespace keel {

struct ShowOptions {
  unsigned Top = 10;
  bool Json = false;
  /// "instructions", "samples" or "" (instructions when known).
  std::string By;
  std::string InputName;
};

/// Report the hottest functions and call edges of \p LP. \p Bin is needed
/// for address profiles and gives fdata its executed instructions.
llvm::Error showProfile(const LoadedProfile &LP, const Binary *Bin,
                        const ShowOptions &Opts, QualityReport &Quality,
                        llvm::raw_ostream &OS);

} // namespace keel

#endif
