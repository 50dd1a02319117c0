//===- ReportJSON.cpp - the JSON report -----------------------------------===//
//
// The SweepResult's own JSON plus the summary, noise, comparison, verdict
// and gate (docs/sweep-statistics.md).
//
//===----------------------------------------------------------------------===//

#include "keel/SweepReport/Report.h"

#include "ReportHelpers.h"

#include "keel/Support/Text.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

using namespace llvm;

namespace keel {
namespace sweep {

using namespace report;

namespace {

json::Value summaryJSON(const SeriesSummary &S) {
  json::Object O{{"name", S.Name},
                 {"measured", int64_t(S.Measured)},
                 {"failed", int64_t(S.Failed)},
                 {"mean", S.Mean},
                 {"median", S.Median},
                 {"min", S.Min},
                 {"max", S.Max},
                 {"spread", S.Spread},
                 {"largest_deviation", S.LargestDeviation},
                 {"cv", S.CV},
                 {"best_offset", S.BestOffset},
                 {"worst_offset", S.WorstOffset},
                 {"instruction_spread", S.InstructionSpread}};
  if (S.Period)
    O["period"] = json::Object{{"bytes", int64_t(S.Period->Bytes)},
                               {"strength", S.Period->Strength},
                               {"explained", S.Period->Explained},
                               {"mechanism", S.Mechanism}};
  else
    O["period"] = nullptr;
  json::Object Events;
  for (const auto &[Name, P] : S.CounterPeriods)
    Events[Name] = json::Object{{"bytes", int64_t(P.Bytes)},
                                {"strength", P.Strength},
                                {"explained", P.Explained}};
  O["event_periods"] = std::move(Events);
  return O;
}

StringRef noiseKind(const NoiseFloor &N) {
  switch (N.Kind) {
  case NoiseFloor::Deterministic: return "deterministic";
  case NoiseFloor::Measured: return "measured";
  case NoiseFloor::Unknown: break;
  }
  return "unknown";
}

} // namespace

json::Value reportJSON(const SweepResult &R, const GateResult &G) {
  json::Object O = std::move(*toJSON(R).getAsObject());
  O["version"] = ReportVersion;
  json::Object Summary{{"base", summaryJSON(G.Base)}};
  if (G.Compare)
    Summary["compare"] = summaryJSON(*G.Compare);
  O["summary"] = std::move(Summary);
  O["noise"] = json::Object{{"kind", noiseKind(G.Noise)},
                            {"spread", G.Noise.Spread},
                            {"aa_spread", G.Noise.AASpread},
                            {"copies", int64_t(G.Noise.Copies)},
                            {"rounds", int64_t(G.Noise.Rounds)}};
  if (std::optional<MeanRatio> M = compareRatio(R, G))
    O["comparison"] = json::Object{
        {"faster", M->BFaster ? "compare" : "base"},
        {"ratio", M->Ratio},
        {"error", M->Error},
        {"p_value", M->PValue},
        {"significant", M->Significant},
        {"headline", *compareHeadline(R, G)}};
  O["verdict"] = G.Verdict;
  O["verdict_kind"] = verdictKindName(G.Kind);
  O["verdict_state"] = verdictStateName(verdictState(G.Kind));
  O["min_effect"] = G.MinEffect;
  O["within_noise"] = G.WithinNoise;
  O["info"] = json::Array(ArrayRef<std::string>(G.Info));
  O["gate"] = json::Object{
      {"failed", G.Failed},
      {"set", G.GateSet},
      {"reasons", json::Array(ArrayRef<std::string>(G.Reasons))},
      {"notes", json::Array(ArrayRef<std::string>(G.Notes))}};
  return O;
}

void writeJSONReport(raw_ostream &OS, const SweepResult &R,
                     const GateResult &G) {
  OS << formatv("{0:2}", reportJSON(R, G)) << "\n";
}

} // namespace sweep
} // namespace keel
