//===- keel/LBR/BlockTable.h - block time from LBR + CPI ----*- C++
//-*-===//
//
// Yamamoto et al. (docs/references.md): per sample, CPI = cycles /
// instructions counted since the previous sample; each straight-line block
// [to(i+1), from(i)] between two consecutive LBR records (newest first) has
// an instruction count from disassembly, and cycles = CPI x IC. Where the
// LBR entries carry cycle counts (Skylake+), the hardware count of the same
// block is shown beside the estimate.
//
// Whole-run totals: each sample's branch window covers W instructions of
// the I instructions of its interval, so its blocks stand for I / W times as
// many executions (the window is a sample of its interval).
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_LBR_BLOCKTABLE_H
#define KEEL_LBR_BLOCKTABLE_H

#include "keel/LBR/Samples.h"

#include "llvm/Support/raw_ostream.h"

#include <optional>

namespace keel {

struct BlockTableOptions {
  /// CPI used when samples carry no counters (perf script text); unset:
  /// only the hardware per-entry cycles give times.
  std::optional<double> DefaultCPI;
};

/// One block occurrence in one sample (the paper's table row).
struct BlockRow {
  uint64_t Sample = 0; ///< index of the sample
  uint64_t Start = 0, End = 0;
  std::string Function;
  double CPI = 0; ///< NaN when unknown
  uint64_t Instructions = 0;
  double Cycles = 0;     ///< CPI x IC (NaN when CPI unknown)
  uint64_t HWCycles = 0; ///< LBR entry cycles (0: not reported)
};

/// One distinct block over the run.
struct BlockSummary {
  uint64_t Start = 0, End = 0;
  std::string Function;
  uint64_t Occurrences = 0;  ///< times seen in branch windows
  uint64_t Instructions = 0; ///< per execution, from disassembly
  double CPI = 0;            ///< mean over occurrences
  double Cycles = 0;         ///< mean CPI x IC per execution
  double HWCycles = 0;       ///< mean hardware cycles per execution (0: none)
  double EstExecutions = 0;  ///< whole-run estimate (see file comment)
  double EstCycles = 0;      ///< whole-run estimate of CPI x IC cycles
  double EstHWCycles = 0;    ///< whole-run estimate from hardware cycles
};

struct FunctionSummary {
  std::string Function;
  uint64_t Occurrences = 0;
  double CPI = 0;
  double Instructions = 0; ///< whole-run estimate
  double Cycles = 0;       ///< whole-run estimate (CPI x IC)
  double HWCycles = 0;     ///< hardware cycles of the blocks seen (sum)
};

struct BlockTable {
  std::vector<BlockRow> Rows;       ///< per sample, input order
  std::vector<BlockSummary> Blocks; ///< by estimated cycles, hottest first
  std::vector<FunctionSummary> Functions; ///< by estimated cycles
  uint64_t NumSamples = 0, NumEntries = 0;
  bool HasCPI = false, HasHWCycles = false;
  uint64_t TotalCycles = 0, TotalInstructions = 0; ///< counter sums
};

llvm::Expected<BlockTable> buildBlockTable(const SampleSet &S,
                                           const Binary &Bin,
                                           const BlockTableOptions &Opts,
                                           QualityReport &Quality);

/// Text: summary, top \p Top blocks and functions (\p PerSample: every row).
void printBlockTable(const BlockTable &T, unsigned Top, bool PerSample,
                     llvm::raw_ostream &OS);
void writeBlockTableCSV(const BlockTable &T, bool PerSample,
                        llvm::raw_ostream &OS);
void writeBlockTableJSON(const BlockTable &T, bool PerSample,
                         llvm::raw_ostream &OS);

} // namespace keel

#endif
