//===- keel/Sweep/Guard.h - keep a candidate build only if it costs less -*- C++ -*-===//
//
// The guard of the recommended build (docs/optimize.md): the candidate
// build (a layout plan applied) and the default build are measured on the
// profiled workload over several environment offsets (each offset moves the
// initial stack, so no single lucky or unlucky placement decides), and the
// candidate is kept only when its MEAN TOTAL COST over those offsets is below
// the default build's. The cost is the measuring backend's: with the sim
// backend and --cost=skylake (the corpus' model, docs/frontend-model.md) the
// front-end model's weighted events, with perf the cycles. Mispredicts and
// I1 misses are reported beside it, never decisive on their own.
//
// Candidates are judged in the order given (the flow tries Ext-TSP first,
// then the compiler's block order); the first that passes is kept. When none
// passes, the default build is kept and the decision says so, naming the
// cheapest candidate and its cost change.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_SWEEP_GUARD_H
#define KEEL_SWEEP_GUARD_H

#include "keel/SweepReport/Result.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <string>
#include <vector>

namespace keel {
namespace sweep {

/// The means of one build over the measured variants of one sweep.
struct BuildSummary {
  std::string Name;   ///< "default", "exttsp", "keep", ...
  std::string Binary; ///< the measured file
  std::string Backend;
  size_t Measured = 0, Failed = 0;
  std::string FirstFailure; ///< "base/env/1024: exit code 1" ("" = none)
  std::vector<int64_t> Offsets; ///< of the measured variants, in order
  double MeanCost = 0;
  double MeanMispredicts = 0; ///< the sum of mispredictEvents (Gate.h)
  double MeanI1Misses = 0;    ///< I1mr (0 when not counted)
  double MeanInstructions = 0;
  double Spread = 0; ///< max / min - 1 of the measured costs
  std::vector<std::string> MispredictEvents;
};

/// Summarize \p R (its base series) as build \p Name.
BuildSummary summarizeBuild(llvm::StringRef Name, const SweepResult &R);

/// One candidate against the default build.
struct GuardVerdict {
  std::string Name;
  bool Passed = false;
  double CostChange = 0;       ///< candidate mean / default mean - 1
  double MispredictChange = 0; ///< the same for the mispredicts (0 if none)
  double I1MissChange = 0;
  std::string Reason; ///< one line
};

/// Judge \p Candidate against \p Default: it passes when both measured every
/// variant at the same offsets with the same backend and its mean cost is
/// strictly below the default's.
GuardVerdict judgeCandidate(const BuildSummary &Default,
                            const BuildSummary &Candidate);

struct GuardDecision {
  std::string Kept;  ///< the kept build's name: a candidate's, or "default"
  bool CandidateKept = false;
  std::vector<GuardVerdict> Verdicts; ///< one per candidate judged, in order
  std::string Why;   ///< one line saying which build was kept and why
};

/// Judge \p Candidates in order; keep the first that passes, else the
/// default build.
GuardDecision decideGuard(const BuildSummary &Default,
                          llvm::ArrayRef<BuildSummary> Candidates);

llvm::json::Value toJSON(const BuildSummary &S);
llvm::json::Value toJSON(const GuardVerdict &V);
llvm::json::Value toJSON(const GuardDecision &D);

} // namespace sweep
} // namespace keel

#endif
