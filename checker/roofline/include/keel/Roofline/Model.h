//===- Model.h - the cache-aware roofline estimator -------------*- C++ -*-===//
//
// Minami, Inoue, Chiba, Yokokawa, "Performance Estimation of the Programs by
// the Extension of the RoofLine Model adding the Cache Effect" (K computer),
// section 5.4 (docs/references.md). A kernel is described per loop
// iteration by
//   m      arrays (elements) streamed from memory,
//   nL2    arrays re-read from L2,
//   nL1_S  short-distance L1 re-reads (i+-1, i+-2: often served by registers),
//   nL1_L  long-distance L1 re-reads (i+-12),
//   k      floating-point operations,
// and the machine by its sustained ceilings Mband, L2band, L1band, Ppeak.
// Data-movement time per level bounds the run time; the estimate is a
// fraction of Ppeak:
//   eM  = (Mband/Ppeak)  / (m*E/k)
//   eL2 = (L2band/Ppeak) / ((m+nL2)*E/k)
//   eL1 = (L1band/Ppeak) / ((m+nL2+nL1_L)*E/k)       (E = element bytes)
// Rules (e)-(j) pick which of them apply; see estimate().
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_ROOFLINE_MODEL_H
#define KEEL_ROOFLINE_MODEL_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace keel {
namespace roofline {

/// Sustained ceilings of a machine (or of one core of it). Bandwidths in
/// GB/s (1e9 bytes), peak in GFLOP/s.
struct Ceilings {
  std::string Name;
  double Mband = 0, L2band = 0, L1band = 0, Ppeak = 0;
};

/// K computer, one CPU (8 cores), as measured in the paper (section 5.2/5.3
/// and 5.4): Mband 46, L2band 146, L1band 241 GB/s; Ppeak 128 GFLOPS.
Ceilings kComputerCeilings();

/// One kernel (one loop) in the mM-nL2-kF vocabulary, counts per iteration.
struct KernelCounts {
  std::string Name;
  double M = 0, NL2 = 0, NL1S = 0, NL1L = 0, K = 0;
  unsigned ElementBytes = 8;
  /// Accesses the producer could not classify (reported, not estimated).
  std::vector<std::string> Unclassified;
};

enum class Bound { Memory, L2, L1, Compute, None };

/// How the levels' transfer times combine. Max is the paper's model
/// (time = max(Mtime, L2time, L1time), rules (e)-(j)). Sum is an extension,
/// not in the paper: each array is charged only at its own level and the
/// times add, time = (m/Mband + nL2/L2band + nL1_L/L1band) * E. It fits a
/// core that does not hide its memory streams behind other work (L2 re-reads
/// or arithmetic alike); docs/roofline.md has the measurements.
enum class Overlap { Max, Sum };
llvm::StringRef boundName(Bound B);
llvm::StringRef overlapName(Overlap O); ///< "max" or "sum"

/// Does this machine overlap memory-level transfers? Measured by
/// `layout-roofline machine` (Machine.cpp) with one kernel shape timed three
/// ways: a memory stream alone, L2-resident arrays alone, both together.
/// Times are per element, ns, best of N.
struct LevelOverlap {
  double Factor = 0;  ///< overlapFactor(MemNs, L2Ns, BothNs)
  Overlap Mode = Overlap::Max; ///< modeForOverlapFactor(Factor)
  bool HasFactor = true; ///< false: a hand-written file gave only "mode"
  double MemNs = 0, L2Ns = 0, BothNs = 0;
  unsigned MemArrays = 0, L2Arrays = 0; ///< the kernel shape, e.g. 1M-8L2
};

/// Above this factor the machine file says "sum": the levels' times add more
/// than they overlap.
constexpr double SumOverlapThreshold = 0.5;

/// f = (Both - max(Mem, L2)) / min(Mem, L2): 0 when the two parts overlap
/// perfectly (the paper's max()), 1 when their times add (sum). Not clamped:
/// below 0 or above 1 is what was measured. 0 for non-positive inputs.
double overlapFactor(double MemNs, double L2Ns, double BothNs);
Overlap modeForOverlapFactor(double F);

/// Which combination `model` uses, and why (for the report).
struct OverlapChoice {
  Overlap Mode = Overlap::Max;
  std::string Why;
  std::optional<double> Factor; ///< the measured factor, when one was used
};
/// Explicit (--overlap=max|sum) wins; otherwise the machine file's measured
/// mode; without one (old machine files, hand-written ceilings such as K
/// computer's) the paper's max().
OverlapChoice chooseOverlap(std::optional<Overlap> Explicit,
                            const std::optional<LevelOverlap> &Measured);

/// The "level_overlap" object of a machine file (a `machine --json` report
/// or a plain ceilings object), if any: {"factor": f, "mode": "max"|"sum",
/// ...}. "mode" is required, "factor" optional. Absent: std::nullopt.
llvm::Expected<std::optional<LevelOverlap>>
parseLevelOverlap(const llvm::json::Value &V, llvm::StringRef File,
                  llvm::StringRef Text = "");
llvm::json::Object toJSON(const LevelOverlap &L);

struct Estimate {
  /// Rule (e): false when nL1_S >= 10m (the paper makes no estimate then);
  /// also false for a loop without flops (k = 0).
  bool Estimable = true;
  std::string WhyNot;
  double EM = 0, EL2 = 0, EL1 = 0;   ///< uncapped peak fractions
  double L2Crossover = 0;           ///< n/m where Mtime = L2time (2.17 on K)
  double L1Crossover = 0;           ///< n/m where Mtime = L1time (4.23 on K)
  bool UseL1 = false;               ///< rule (g) fired
  bool UseL2 = false;               ///< rule (i) fired
  double Fraction = 0;              ///< rule (j), capped at 1
  Bound BoundBy = Bound::None;
  double GFlops = 0;                ///< Fraction * Ppeak
  std::vector<std::string> Trace;   ///< one line per rule, for reports
};

/// Apply rules (e)-(j) of section 5.4. The crossovers are computed from the
/// ceilings (L2band/Mband - 1, L1band/Mband - 1) rather than the paper's
/// rounded 2.17 and 4.23, so the rules and "the lowest of eM, eL2, eL1" agree.
/// Errors: non-positive ceilings, negative counts.
llvm::Expected<Estimate> estimate(const KernelCounts &KC, const Ceilings &C,
                                  Overlap O = Overlap::Max);

/// Parse ceilings from JSON: an object with Mband/L2band/L1band/Ppeak, or a
/// `layout-roofline machine --json` report (its "ceilings"."<Scope>" object).
llvm::Expected<Ceilings> parseCeilings(const llvm::json::Value &V,
                                       llvm::StringRef Scope,
                                       llvm::StringRef File);

/// Parse kernels: one object {name,m,nL2,nL1_S,nL1_L,k,element_bytes}, or an
/// object with "kernels": [...] (what the RooflineAnalysis pass writes).
llvm::Expected<std::vector<KernelCounts>>
parseKernels(llvm::StringRef Text, llvm::StringRef File);

/// Parse a name like "3M-8L2-16F" (also "5M-21L2-6L1S-12L1L-43F").
llvm::Expected<KernelCounts> parseKernelName(llvm::StringRef Name);

llvm::json::Object toJSON(const KernelCounts &KC);
llvm::json::Object toJSON(const Estimate &E);
llvm::json::Object toJSON(const Ceilings &C);
void printText(llvm::raw_ostream &OS, const KernelCounts &KC,
               const Ceilings &C, const Estimate &E);

} // namespace roofline
} // namespace keel

#endif
