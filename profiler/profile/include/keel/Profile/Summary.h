//===- keel/Profile/Summary.h - hottest functions and call edges -*- C++ -*-===//
//
// The summary layout-profile show prints: every function's executed
// instructions, samples and calls and the hottest call edges of a loaded
// profile, ranked and cut to Top, and, for a binary linked with a Keel
// plan, the executed code outside its hot region.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_PROFILE_SUMMARY_H
#define KEEL_PROFILE_SUMMARY_H

#include "keel/Profile/Load.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace keel {

struct ShowOptions {
  unsigned Top = 10;
  /// "instructions", "samples" or "" (instructions when known).
  std::string By;
  std::string InputName;
};

/// Executed instructions inside and outside a binary's planned hot region
/// (layout.ld's __keel_hot_text_start..__keel_hot_text_end), per function.
struct HotRegionReport {
  uint64_t Start = 0, End = 0;
  uint64_t Inside = 0, Outside = 0;
  /// PLT stubs: outside the region by design (the lld script keeps .plt
  /// right before it, where no padding moves it), so counted apart.
  uint64_t PLT = 0;
  std::vector<std::pair<std::string, uint64_t>> OutsideFunctions; ///< hottest first
};

/// The hottest functions and call edges, hottest first, and the hot region
/// of a planned binary.
struct ProfileSummary {
  std::string By; ///< "instructions" or "samples"
  std::vector<FunctionStats> Funcs;
  std::vector<CallEdge> Edges;
  /// What the edges come from (callGraphSourceName in Load.h).
  std::string EdgeSource = "none";
  std::optional<HotRegionReport> Region;
};

/// Summarize \p LP. \p Bin is needed for address profiles and gives fdata
/// its executed instructions.
llvm::Expected<ProfileSummary> summarizeProfile(const LoadedProfile &LP,
                                                const Binary *Bin,
                                                const ShowOptions &Opts,
                                                QualityReport &Quality);

/// The summary as text tables (layout-profile show).
void printProfileSummary(const ProfileSummary &S, const LoadedProfile &LP,
                         const ShowOptions &Opts, llvm::raw_ostream &OS);
/// The summary as JSON (layout-profile show --json).
void printProfileSummaryJSON(const ProfileSummary &S, const LoadedProfile &LP,
                             const ShowOptions &Opts, llvm::raw_ostream &OS);

} // namespace keel

#endif
