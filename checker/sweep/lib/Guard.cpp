//===- Guard.cpp - keep a candidate build only if it costs less -----------===//
//
// The rule (Guard.h, docs/optimize.md): mean total cost over the same
// offsets, strictly lower than the default build's, or the default stays.
//
//===----------------------------------------------------------------------===//
#include "keel/Sweep/Guard.h"
#include "keel/SweepReport/Gate.h"
#include "keel/SweepReport/Kinds.h"
#include "keel/SweepReport/Stats.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace llvm;

namespace keel {
namespace sweep {

BuildSummary summarizeBuild(StringRef Name, const SweepResult &R) {
  BuildSummary S;
  S.Name = Name.str();
  S.Binary = R.Binary;
  S.Backend = R.Backend;
  S.MispredictEvents = mispredictEvents(R);
  std::vector<double> Costs, Mis, I1, Ir;
  for (const Measurement &M : R.Ms) {
    if (M.V.Series != "base")
      continue;
    if (M.Failed) {
      ++S.Failed;
      if (S.FirstFailure.empty())
        S.FirstFailure = M.V.key() + ": " + M.FailReason;
      continue;
    }
    S.Offsets.push_back(M.V.Offset);
    Costs.push_back(M.Cost);
    double Missed = 0;
    for (const std::string &E : S.MispredictEvents)
      if (auto It = M.Counters.find(E); It != M.Counters.end())
        Missed += It->second;
    Mis.push_back(Missed);
    auto It = M.Counters.find("I1mr");
    I1.push_back(It != M.Counters.end() ? double(It->second) : 0);
    Ir.push_back(double(M.Instructions));
  }
  // The statistics every sweep summary uses (Stats.h): one definition of
  // the mean and of the spread (max / min - 1).
  S.Measured = Costs.size();
  S.MeanCost = mean(Costs);
  S.MeanMispredicts = mean(Mis);
  S.MeanI1Misses = mean(I1);
  S.MeanInstructions = mean(Ir);
  S.Spread = spread(Costs);
  return S;
}

static double change(double New, double Old) {
  return Old != 0 ? New / Old - 1 : 0;
}

/// "+1.23%", "-0.0123%": Gate.h's percent() with a sign.
static std::string signedPercent(double F) {
  return (F < 0 ? "-" : "+") + percent(F < 0 ? -F : F);
}

GuardVerdict judgeCandidate(const BuildSummary &Default,
                            const BuildSummary &Candidate) {
  GuardVerdict V;
  V.Name = Candidate.Name;
  V.CostChange = change(Candidate.MeanCost, Default.MeanCost);
  V.MispredictChange = change(Candidate.MeanMispredicts, Default.MeanMispredicts);
  V.I1MissChange = change(Candidate.MeanI1Misses, Default.MeanI1Misses);
  auto Fail = [&](std::string Why) {
    V.Passed = false;
    V.Reason = Candidate.Name + ": " + std::move(Why);
    return V;
  };
  if (!Default.Measured)
    return Fail("the default build measured no variant" +
                (Default.FirstFailure.empty() ? std::string()
                                              : " (" + Default.FirstFailure + ")"));
  if (Candidate.Failed || !Candidate.Measured)
    return Fail(formatv("{0} of {1} variants failed{2}", Candidate.Failed,
                        Candidate.Failed + Candidate.Measured,
                        Candidate.FirstFailure.empty()
                            ? std::string()
                            : " (" + Candidate.FirstFailure + ")")
                    .str());
  std::optional<BackendKind> CK = lookupBackendKind(Candidate.Backend);
  if (!CK || CK != lookupBackendKind(Default.Backend))
    return Fail(formatv("measured with backend {0}, the default build with {1}",
                        Candidate.Backend, Default.Backend)
                    .str());
  if (Candidate.Offsets != Default.Offsets)
    return Fail("measured at other offsets than the default build");
  std::string Numbers =
      formatv("mean cost {0:F0} against the default build's {1:F0} ({2}; "
              "mispredicts {3}, I1 misses {4}, over {5} offsets)",
              Candidate.MeanCost, Default.MeanCost, signedPercent(V.CostChange),
              signedPercent(V.MispredictChange), signedPercent(V.I1MissChange),
              Candidate.Measured)
          .str();
  if (!(Candidate.MeanCost < Default.MeanCost))
    return Fail(Numbers + ": not below it");
  V.Passed = true;
  V.Reason = Candidate.Name + ": " + Numbers + ": below it";
  return V;
}

GuardDecision decideGuard(const BuildSummary &Default,
                          ArrayRef<BuildSummary> Candidates) {
  GuardDecision D;
  D.Kept = "default";
  for (const BuildSummary &C : Candidates) {
    D.Verdicts.push_back(judgeCandidate(Default, C));
    if (D.Verdicts.back().Passed) {
      D.Kept = C.Name;
      D.CandidateKept = true;
      D.Why = "kept " + D.Verdicts.back().Reason; // "kept NAME: mean cost ..."
      return D;
    }
  }
  if (D.Verdicts.empty()) {
    D.Why = "kept the default build: no candidate was measured";
    return D;
  }
  // Name the cheapest candidate that was measured completely.
  const GuardVerdict *Best = nullptr;
  for (size_t I = 0; I < Candidates.size(); ++I)
    if (Candidates[I].Measured && !Candidates[I].Failed &&
        (!Best || D.Verdicts[I].CostChange < Best->CostChange))
      Best = &D.Verdicts[I];
  D.Why = formatv("kept the default build: no candidate's mean cost is below "
                  "it{0}",
                  Best ? formatv(" (the cheapest, {0}, changed it by {1})",
                                 Best->Name, signedPercent(Best->CostChange))
                             .str()
                       : std::string())
              .str();
  return D;
}

json::Value toJSON(const BuildSummary &S) {
  json::Array Offsets;
  for (int64_t O : S.Offsets)
    Offsets.push_back(O);
  json::Array Events;
  for (const std::string &E : S.MispredictEvents)
    Events.push_back(E);
  return json::Object{{"name", S.Name},
                      {"binary", S.Binary},
                      {"backend", S.Backend},
                      {"measured", int64_t(S.Measured)},
                      {"failed", int64_t(S.Failed)},
                      {"first_failure", S.FirstFailure},
                      {"offsets", std::move(Offsets)},
                      {"mean_cost", S.MeanCost},
                      {"mean_mispredicts", S.MeanMispredicts},
                      {"mispredict_events", std::move(Events)},
                      {"mean_i1_misses", S.MeanI1Misses},
                      {"mean_instructions", S.MeanInstructions},
                      {"spread", S.Spread}};
}

json::Value toJSON(const GuardVerdict &V) {
  return json::Object{{"name", V.Name},
                      {"passed", V.Passed},
                      {"cost_change", V.CostChange},
                      {"mispredict_change", V.MispredictChange},
                      {"i1_miss_change", V.I1MissChange},
                      {"reason", V.Reason}};
}

json::Value toJSON(const GuardDecision &D) {
  json::Array Vs;
  for (const GuardVerdict &V : D.Verdicts)
    Vs.push_back(toJSON(V));
  return json::Object{{"kept", D.Kept},
                      {"candidate_kept", D.CandidateKept},
                      {"verdicts", std::move(Vs)},
                      {"why", D.Why}};
}

} // namespace sweep
} // namespace keel
