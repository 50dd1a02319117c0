//===- Gate.cpp - summaries, noise floor and the verdict ------------------===//
//
// The verdict answers one question: is the spread over layouts larger than
// what measurement noise alone would produce for the same number of
// variants? For a deterministic backend (sim) noise is zero; for the time
// backend it is simulated from the A/A copies (byte-identical binaries) that
// were measured in the same interleaved rounds as the variants.
//
//===----------------------------------------------------------------------===//
#include "keel/Sweep/Gate.h"
#include "keel/Sweep/Report.h"

#include "keel/Support/Diagnostics.h"
#include "keel/Support/OutputFile.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <cmath>

using namespace llvm;

namespace keel {
namespace sweep {

std::string percent(double Fraction, unsigned Decimals) {
  return formatv("{0}%", format("%.*f", int(Decimals), Fraction * 100)).str();
}

Expected<double> parsePercent(StringRef Text) {
  StringRef T = Text.trim();
  T.consume_back("%");
  double V;
  if (T.trim().getAsDouble(V) || !(V >= 0) || std::isinf(V))
    return makeError("'{0}' is not a percentage (e.g. 1% or 0.5%)", Text);
  return V / 100;
}

SeriesSummary summarize(ArrayRef<Measurement> Ms, StringRef Name,
                        const CacheGeometry &G) {
  SeriesSummary S;
  S.Name = Name.str();
  std::vector<double> Costs, Instr;
  std::vector<int64_t> Offsets;
  for (const Measurement &M : Ms) {
    if (M.Failed) {
      if (S.Failed++ == 0)
        S.FirstFailure = M.V.key() + ": " + M.FailReason;
      continue;
    }
    Costs.push_back(M.Cost);
    Offsets.push_back(M.V.Offset);
    if (M.Instructions)
      Instr.push_back(double(M.Instructions));
  }
  S.Measured = Costs.size();
  if (Costs.empty())
    return S;
  S.Mean = mean(Costs);
  S.Median = median(Costs);
  S.Min = minimum(Costs);
  S.Max = maximum(Costs);
  S.Spread = spread(Costs);
  S.LargestDeviation = largestDeviation(Costs);
  S.CV = coefficientOfVariation(Costs);
  // First offset wins ties, so the choice does not depend on the order of
  // equal costs.
  size_t Best = 0, Worst = 0;
  for (size_t I = 1; I < Costs.size(); ++I) {
    if (Costs[I] < Costs[Best])
      Best = I;
    if (Costs[I] > Costs[Worst])
      Worst = I;
  }
  S.BestOffset = Offsets[Best];
  S.WorstOffset = Offsets[Worst];
  S.InstructionSpread = spread(Instr);
  if (auto P = dominantPeriod(Offsets, Costs);
      P && P->Strength >= MinPeriodStrength && S.Spread > 0) {
    S.Period = P;
    S.Mechanism = likelyMechanism(P->Bytes, G);
  }
  // Events that point at one mechanism each (not Ir, which only changes when
  // the program does).
  static const char *const Events[] = {"I1mr", "ILmr", "D1mr", "DLmr",
                                       "D1mw", "DLmw", "Bcm",  "Bim",
                                       "cycles"};
  for (const char *E : Events) {
    std::vector<double> Vals;
    std::vector<int64_t> Offs;
    for (const Measurement &M : Ms) {
      auto It = M.Counters.find(E);
      if (!M.Failed && It != M.Counters.end()) {
        Vals.push_back(It->second);
        Offs.push_back(M.V.Offset);
      }
    }
    if (maximum(Vals) == minimum(Vals))
      continue;
    if (auto P = dominantPeriod(Offs, Vals); P && P->Strength >= MinPeriodStrength)
      S.CounterPeriods[E] = *P;
  }
  return S;
}

NoiseFloor simulateNoiseFloor(ArrayRef<std::vector<double>> AASamples,
                              size_t NumVariants, size_t Rounds,
                              const NoiseOptions &O) {
  NoiseFloor NF;
  NF.Kind = NoiseFloor::Measured;
  NF.Copies = AASamples.size();
  NF.Rounds = Rounds;
  std::vector<double> Pool, CopyMedians;
  for (const std::vector<double> &S : AASamples) {
    if (S.empty())
      continue;
    Pool.insert(Pool.end(), S.begin(), S.end());
    CopyMedians.push_back(median(S));
  }
  NF.AASpread = spread(CopyMedians);
  if (Pool.size() < 2 || NumVariants < 2 || Rounds == 0) {
    NF.Spread = NF.AASpread;
    return NF;
  }
  // Smoothed bootstrap (Silverman & Young 1987): a pool of a few dozen
  // samples has only a few dozen distinct values, so plain resampling makes
  // medians too regular and the floor too low. Each draw gets Gaussian jitter
  // of Silverman's rule-of-thumb bandwidth.
  double Sigma = std::min(stddev(Pool),
                          (quantile(Pool, 0.75) - quantile(Pool, 0.25)) / 1.349);
  if (!(Sigma > 0))
    Sigma = stddev(Pool);
  double H = O.Smooth ? 0.9 * Sigma * std::pow(double(Pool.size()), -0.2) : 0;
  Rng R(O.Seed);
  std::vector<double> Spreads, Medians(NumVariants), Draw(Rounds);
  Spreads.reserve(O.Simulations);
  for (unsigned Sim = 0; Sim < O.Simulations; ++Sim) {
    for (double &M : Medians) {
      for (double &X : Draw)
        X = Pool[R.below(Pool.size())] + (H > 0 ? H * R.normal() : 0);
      M = median(Draw);
    }
    Spreads.push_back(spread(Medians));
  }
  NF.Spread = std::max(quantile(Spreads, O.Quantile), NF.AASpread);
  return NF;
}

NoiseFloor noiseFloorOf(const SweepResult &R, const NoiseOptions &O) {
  if (R.Backend == "sim")
    return NoiseFloor{NoiseFloor::Deterministic, 0, 0, 0, 0};
  if (R.NoiseFloor.empty())
    return NoiseFloor{};
  // Remove the round-to-round drift exactly as the time backend did for the
  // variants' costs: normalise over every series measured in the same rounds.
  std::vector<std::vector<double>> All;
  size_t Variants = 0, Rounds = 0;
  for (const Measurement &M : R.Ms)
    if (!M.Failed) {
      ++Variants;
      Rounds = std::max(Rounds, std::max<size_t>(M.Samples.size(), 1));
      All.push_back(M.Samples);
    }
  if (R.Compare)
    for (const Measurement &M : R.Compare->Ms)
      if (!M.Failed)
        All.push_back(M.Samples);
  size_t FirstCopy = All.size();
  for (const Measurement &M : R.NoiseFloor)
    if (!M.Failed)
      All.push_back(M.Samples.empty() ? std::vector<double>{M.Cost} : M.Samples);
  std::vector<std::vector<double>> Norm = normalizeByRound(All);
  std::vector<std::vector<double>> AA(Norm.begin() + FirstCopy, Norm.end());
  return simulateNoiseFloor(AA, Variants, Rounds, O);
}

static std::string verdictLine(double Spread, const NoiseFloor &NF,
                               bool &WithinNoise) {
  WithinNoise = false;
  switch (NF.Kind) {
  case NoiseFloor::Deterministic:
    WithinNoise = Spread == 0;
    if (WithinNoise)
      return "spread 0.00%: no layout effect (deterministic backend)";
    return formatv("spread {0} exceeds noise floor {1} (deterministic backend)",
                   percent(Spread), percent(0))
        .str();
  case NoiseFloor::Measured:
    WithinNoise = Spread <= NF.Spread;
    if (WithinNoise)
      return formatv("spread {0} is within noise (floor {1} from {2} A/A "
                     "copies)",
                     percent(Spread), percent(NF.Spread), NF.Copies)
          .str();
    return formatv("spread {0} exceeds noise floor {1} (from {2} A/A copies)",
                   percent(Spread), percent(NF.Spread), NF.Copies)
        .str();
  case NoiseFloor::Unknown:
    break;
  }
  return formatv("spread {0} (noise floor unknown: no A/A copies measured)",
                 percent(Spread))
      .str();
}

/// --baseline: worse than the previous result beyond noise?
static Error compareWithBaseline(const SweepResult &R, const SeriesSummary &S,
                                 const NoiseFloor &NF, const SweepResult &B,
                                 const GateOptions &O, GateResult &G) {
  if (B.Backend != R.Backend)
    return makeError("baseline was measured with backend '{0}', this sweep "
                     "with '{1}': not comparable",
                     B.Backend, R.Backend);
  if (B.Axis != R.Axis)
    return makeError("baseline swept axis '{0}', this sweep '{1}': not "
                     "comparable",
                     B.Axis, R.Axis);
  SeriesSummary BS = summarize(B.Ms, "baseline", CacheGeometry{});
  if (BS.Measured == 0)
    return makeError("baseline has no measured variants");
  NoiseFloor BNF = noiseFloorOf(B, O.Noise);
  // Both results carry noise; the larger floor bounds what noise can do.
  double Margin = std::max(NF.Spread, BNF.Spread) + O.BaselineTolerance;
  if (S.Spread > BS.Spread + Margin)
    G.Reasons.push_back(formatv("spread {0} is worse than baseline {1} beyond "
                                "noise ({2})",
                                percent(S.Spread), percent(BS.Spread),
                                percent(Margin))
                            .str());

  std::vector<double> Cur, Old;
  for (const Measurement &M : R.Ms)
    if (!M.Failed)
      Cur.push_back(M.Cost);
  for (const Measurement &M : B.Ms)
    if (!M.Failed)
      Old.push_back(M.Cost);
  double Change = BS.Mean > 0 ? S.Mean / BS.Mean - 1 : 0;
  MannWhitneyResult MW = mannWhitneyU(Cur, Old);
  if (Change > Margin && MW.Z > 0 && MW.PValue < O.Alpha)
    G.Reasons.push_back(formatv("mean cost {0} higher than baseline beyond "
                                "noise ({1}; Mann-Whitney p={2})",
                                percent(Change), percent(Margin),
                                format("%.2g", MW.PValue))
                            .str());
  return Error::success();
}

Expected<GateResult> evaluateGate(const SweepResult &R, const GateOptions &O,
                                  const SweepResult *Baseline) {
  GateResult G;
  CacheGeometry Geo = parseCacheGeometry(R.CacheGeometry);
  G.Base = summarize(R.Ms, "base", Geo);
  if (R.Compare)
    G.Compare = summarize(R.Compare->Ms, R.Compare->Name, Geo);
  G.Noise = noiseFloorOf(R, O.Noise);
  const SeriesSummary &S = G.Base;
  G.Verdict = verdictLine(S.Spread, G.Noise, G.WithinNoise);

  if (S.Failed && O.FailOnFailedVariants)
    G.Reasons.push_back(formatv("{0} of {1} variants failed (first: {2})",
                                S.Failed, S.Failed + S.Measured, S.FirstFailure)
                            .str());
  if (S.Measured == 0)
    G.Reasons.push_back("no variant was measured");
  if (O.MaxSpread && S.Spread > *O.MaxSpread) {
    // A spread that noise alone could produce is not evidence of a layout
    // effect; failing on it would make the gate flaky.
    if (G.WithinNoise)
      G.Notes.push_back(formatv("inconclusive: spread {0} exceeds --max-spread "
                                "{1} but is within noise (floor {2})",
                                percent(S.Spread), percent(*O.MaxSpread),
                                percent(G.Noise.Spread))
                            .str());
    else
      G.Reasons.push_back(formatv("spread {0} exceeds --max-spread {1} (worst "
                                  "offset {2}, best {3})",
                                  percent(S.Spread), percent(*O.MaxSpread),
                                  S.WorstOffset, S.BestOffset)
                              .str());
  }
  if (Baseline)
    if (Error E = compareWithBaseline(R, S, G.Noise, *Baseline, O, G))
      return std::move(E);
  if (R.InstructionsDiffer || S.InstructionSpread > 0)
    G.Notes.push_back(formatv("executed instructions differ across variants "
                              "(spread {0}): the program is not "
                              "layout-independent",
                              percent(S.InstructionSpread, 4))
                          .str());
  G.Failed = !G.Reasons.empty();
  return G;
}

Expected<SweepResult> readResultFile(StringRef Path) {
  auto Text = readWholeFile(Path);
  if (!Text)
    return Text.takeError();
  Expected<json::Value> V = json::parse(*Text);
  if (!V)
    return inputError(Path, 0, "not valid JSON: {0}", toString(V.takeError()));
  // The report's JSON carries the result at the top level next to its
  // "version" and "summary"; a bare SweepResult (the journal's form) works too.
  if (const json::Object *O = V->getAsObject())
    if (std::optional<int64_t> Ver = O->getInteger("version");
        Ver && *Ver > ReportVersion)
      return inputError(Path, 0,
                        "report version {0} is newer than this tool's ({1})",
                        *Ver, ReportVersion);
  SweepResult R;
  json::Path::Root Root("result");
  if (!fromJSON(*V, R, Root))
    return inputError(Path, 0, "not a sweep result: {0}",
                      toString(Root.getError()));
  return R;
}

} // namespace sweep
} // namespace keel
