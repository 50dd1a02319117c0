//===- keel/LBR/LBRGen.h - LBR samples with ground truth ----*- C++
//-*-===//
//
// Emulates LBR sampling on an exact instruction trace of a real run
// (valgrind lackey --trace-mem=yes: every executed instruction's address
// and size, in order). Taken branches are where the next instruction is
// not the fall-through one, or where disassembly says the instruction is
// an unconditional transfer; their kind (call, return, conditional, jump,
// indirect) comes from disassembly and drives the LBR filter. Time comes
// from a stated cost model:
//
//   cycles(instruction) = CPI of its function (--cpi, else the base CPI)
//   cycles(taken branch) += taken-branch penalty
//
// A sample is taken every Period instructions; it holds the last Depth
// filtered records (newest first, each with the cycles since the previous
// record, as Skylake's LBR_INFO does, saturated at 65535), the IP of the
// next instruction and the cycles and instructions since the previous
// sample. The truth is what the trace and model say exactly: executed
// instructions and cycles per block (between any two taken branches) and
// per function, and each window's (the interval before each sample)
// cycles per function.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_LBR_LBRGEN_H
#define KEEL_LBR_LBRGEN_H

#include "keel/Record/Recording.h"
#include "keel/Support/Diagnostics.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <string>

namespace keel {

class Binary;

struct LBRGenOptions {
  unsigned Depth = 16;   ///< 16 (Skylake) or 32 (arch LBR)
  bool FilterAny = true; ///< every taken branch
  bool FilterCall = false, FilterReturn = false, FilterIndCall = false;
  uint64_t Period = 10000; ///< instructions per sample
  double BaseCPI = 1.0;
  std::map<std::string, double> FunctionCPI; ///< by symbol name
  double TakenPenalty = 0;                   ///< extra cycles per taken branch
  bool EntryCycles = true;                   ///< fill the per-entry cycle field
  /// Clear the LBR after each sample, as Yamamoto et al.'s prototype did
  /// (zeroed slots: the ring did not wrap); perf leaves it running, so
  /// a sample may repeat records of the previous one.
  bool ClearOnSample = false;
  /// Drop this many instructions from the start of the trace (e.g. the
  /// dynamic loader) before sampling starts; 0 keeps all.
  uint64_t Skip = 0;
};

/// Parse "any", "call,return", "user-callret" (= call,return,user), ... "user" is
/// accepted and changes nothing: a user-space trace has only user branches.
llvm::Error parseLBRFilter(llvm::StringRef S, LBRGenOptions &O);
std::string filterName(const LBRGenOptions &O);

struct TruthBlock {
  std::string Function;
  uint64_t Executions = 0, Instructions = 0; ///< instructions: total
  double Cycles = 0;                         ///< total
};

struct LBRGenTruth {
  uint64_t Instructions = 0, TakenBranches = 0, Recorded = 0;
  double Cycles = 0;
  std::map<std::pair<uint64_t, uint64_t>, TruthBlock> Blocks;
  std::map<std::string, std::pair<uint64_t, double>>
      Functions; ///< instrs, cycles
  struct TruthWindow {
    double Start = 0, Cycles = 0;
    uint64_t Instructions = 0;
    std::map<std::string, double> Functions;
  };
  std::vector<TruthWindow> Windows;
};

struct LBRGenResult {
  PerfRecording Recording; ///< samples at the binary's link-time addresses
  LBRGenTruth Truth;
};

/// Run the emulation over the lackey log \p TraceText of a run of \p Bin.
llvm::Expected<LBRGenResult> generateLBRSamples(llvm::StringRef TraceText,
                                                llvm::StringRef TraceName,
                                                const Binary &Bin,
                                                const LBRGenOptions &Opts,
                                                QualityReport &Quality);

/// The truth as JSON (format in docs/lbr-analyses.md).
void writeTruthJSON(const LBRGenTruth &T, const LBRGenOptions &Opts,
                    llvm::raw_ostream &OS);

} // namespace keel

#endif
