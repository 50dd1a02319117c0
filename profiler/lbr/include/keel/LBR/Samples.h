//===- keel/LBR/Samples.h - LBR samples for the time analyses -*- C++
//-*-===//
//
// The input both time analyses share: every sample with its branch stack at
// link-time addresses, the counter deltas when the collector read them
// (keel-samples files carry them; perf script text does not), and the
// function of an address as the analyses name it.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_LBR_SAMPLES_H
#define KEEL_LBR_SAMPLES_H

#include "keel/Profile/BranchProfile.h"
#include "keel/Profile/Formats.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <string>
#include <vector>

namespace keel {

class Binary;

struct SampleSet {
  std::vector<RawSample> Samples; ///< link-time addresses, input order
  /// Every sample has Cycles and Instructions (the per-sample CPI).
  bool HasCounters = false;
  /// Some entry reports its cycles (Skylake+ LBR, perf's 6th field).
  bool HasEntryCycles = false;
  std::string Filter; ///< branch filter when the file says it ("" unknown)
  std::string FileName;
};

/// Read a keel-samples file (detected by its first line), a perf.data (by
/// its magic) or perf script brstack text and keep every sample, mapped to \p Bin's addresses.
llvm::Expected<SampleSet> loadSamples(llvm::StringRef Path, const Binary &Bin,
                                      QualityReport &Quality,
                                      const PerfScriptOptions &Opts = {});

/// The name the analyses give the function holding \p Addr: its symbol
/// name, or "[unknown]" outside every function.
std::string functionName(const Binary &Bin, uint64_t Addr);

/// Print \p V as indented JSON with every floating-point number in its
/// shortest round-trip form (llvm::json prints 17 digits: 0.80000000000000004).
void printJSON(llvm::json::Value V, llvm::raw_ostream &OS);

} // namespace keel

#endif
