//===- keel/LBR/Timeline.h - time line from LBR records -----*- C++
//-*-===//
//
// Ono et al. (docs/references.md): every LBR record of a sample is one more
// point in time, so a sample with 16 records gives 17 points per interval.
// The interval T before each sample is split among the sampled function and
// the functions of the records' `from` sides by one of these methods:
//   ip       baseline: all of T to the sampled function (plain sampling);
//   uniform  (1) T / (records + 1) to each point;
//   profile  (2) each function in the records gets its whole-run share of
//            T, the rest goes to the sampled function;
//   sample   (3) T is split among the functions present in this sample in
//            proportion to their whole-run shares;
//   hw       the records' own cycle counts (Skylake+), the rest of T to the
//            sampled function;
//   hwshare  (Keel) T split in proportion to the records' cycle counts per
//            function: the stretch the LBR covers stands for the interval.
// "Whole-run share" is the share of samples whose IP lies in the function.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_LBR_TIMELINE_H
#define KEEL_LBR_TIMELINE_H

#include "keel/LBR/Samples.h"

#include "llvm/Support/raw_ostream.h"

#include <array>
#include <map>
#include <string>

namespace keel {

enum class TimeMethod { IP, Uniform, Profile, Sample, HW, HWShare };
inline constexpr unsigned NumTimeMethods = 6;
/// Methods that need per-entry cycle counts.
inline bool needsHW(TimeMethod M) {
  return M == TimeMethod::HW || M == TimeMethod::HWShare;
}
llvm::StringRef methodName(TimeMethod M);
/// "ip", "uniform"/"1", "profile"/"2", "sample"/"3", "hw", "hwshare".
std::optional<TimeMethod> parseMethod(llvm::StringRef S);

/// A stretch of one function's time inside a window, for drawing.
struct Segment {
  std::string Function;
  double Start = 0, Duration = 0;
};

/// The interval before one sample.
struct Window {
  double Start = 0, Duration = 0;
  std::string Sampled;            ///< function of the sample's IP
  std::vector<std::string> Froms; ///< FROM0 (newest) ... FROMn (oldest)
  std::array<std::map<std::string, double>, NumTimeMethods> Time;
  std::array<std::vector<Segment>, NumTimeMethods> Segments;
};

struct Timeline {
  std::vector<Window> Windows;
  std::map<std::string, double> RunShare; ///< whole-run sample shares
  uint64_t NumSamples = 0, NumRecords = 0;
  bool HasHW = false;
  std::string Unit; ///< "cycles", "ns" or "samples"
  double resolution() const {
    return NumSamples ? double(NumSamples + NumRecords) / NumSamples : 0;
  }
  /// Total time per function under \p M, largest first.
  std::vector<std::pair<std::string, double>> totals(TimeMethod M) const;
};

llvm::Expected<Timeline> buildTimeline(const SampleSet &S, const Binary &Bin,
                                       QualityReport &Quality);

/// Split the window \p W (Duration, Sampled and Froms set) by every method:
/// fills W.Time and W.Segments. \p EntryCycles[i] is the cycle count of the
/// record whose `from` is W.Froms[i]; \p Share the whole-run shares.
void assignWindow(Window &W, const std::vector<uint32_t> &EntryCycles,
                  const std::map<std::string, double> &Share, bool HasHW);

/// The true per-function time of every window, from a truth file of
/// layout-lbrgen (docs/lbr-analyses.md).
struct TruthTimeline {
  std::vector<std::map<std::string, double>> Windows;
};
llvm::Expected<TruthTimeline> readTruthTimeline(llvm::StringRef Path);

/// Error of a method against the truth: per window, half the sum of the
/// absolute differences of the per-function time shares (0: exact, 1:
/// disjoint), averaged over windows.
struct MethodError {
  double Mean = 0, Max = 0;
  /// The same on the whole run's per-function shares.
  double WholeRun = 0;
};
llvm::Expected<std::array<std::optional<MethodError>, NumTimeMethods>>
compareTimeline(const Timeline &T, const TruthTimeline &Truth);

struct TimelineReport {
  const std::array<std::optional<MethodError>, NumTimeMethods> *Errors =
      nullptr;
  unsigned Top = 10;
  /// Print the call sequence of the first N samples (FROM0 newest ...).
  size_t Sequence = 0;
};
void printTimeline(const Timeline &T, const TimelineReport &R,
                   llvm::raw_ostream &OS);
void writeTimelineJSON(const Timeline &T, const TimelineReport &R,
                       llvm::raw_ostream &OS);
/// One row per window and function: window,start,duration,method,function,time.
void writeTimelineCSV(const Timeline &T, llvm::raw_ostream &OS);
/// A function's colour in every time line ("hsl(H,S%,L%)"), from its name
/// alone: the same function has the same colour in every method and report.
std::string functionColour(llvm::StringRef Name);
/// The time line of method \p M over windows [0, MaxWindows), one row per
/// function (the \p Rows busiest; the rest as "other", grey), coloured by
/// functionColour, with a legend of the rows below it.
void writeTimelineSVG(const Timeline &T, TimeMethod M, size_t MaxWindows,
                      unsigned Rows, llvm::raw_ostream &OS);
/// Every method's SVG and the per-sample call sequence (FROM0 newest ...).
void writeTimelineHTML(const Timeline &T, const TimelineReport &R,
                       size_t MaxWindows, unsigned Rows, llvm::raw_ostream &OS);

} // namespace keel

#endif
