//===- Gate.cpp - summaries, noise floor and the verdict ------------------===//
//
// The verdict answers two questions: is the spread over layouts larger than
// what measurement noise alone would produce for the same number of
// variants, and is it large enough to matter (--min-effect)? For a
// deterministic backend (sim) noise is zero; for the time backend it is
// simulated from the A/A copies (byte-identical binaries) that were measured
// in the same interleaved rounds as the variants.
//
//===----------------------------------------------------------------------===//
#include "keel/SweepReport/Gate.h"
#include "keel/SweepReport/Kinds.h"

#include "keel/Support/Diagnostics.h"
#include "keel/Support/Input.h"
#include "keel/Support/OutputFile.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
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

/// Decimals for percent(Fraction): 2 from 1% up, 3 significant digits below.
static unsigned percentDecimals(double Fraction) {
  double P = std::fabs(Fraction * 100);
  if (!(P > 0) || P >= 1 || std::isinf(P))
    return 2;
  int D = 2 - int(std::floor(std::log10(P)));
  return unsigned(std::clamp(D, 2, 10));
}

std::string percent(double Fraction) {
  return percent(Fraction, percentDecimals(Fraction));
}

std::pair<std::string, std::string> percentPair(double A, double B) {
  std::string PA = percent(A), PB = percent(B);
  if (A == B || PA != PB)
    return {PA, PB};
  unsigned D = std::max(percentDecimals(A), percentDecimals(B));
  while (D < 10 && percent(A, D) == percent(B, D))
    ++D;
  return {percent(A, D), percent(B, D)};
}

StringRef verdictKindName(VerdictKind K) {
  switch (K) {
  case VerdictKind::NoEffect: return "no-effect";
  case VerdictKind::WithinNoise: return "within-noise";
  case VerdictKind::Negligible: return "negligible";
  case VerdictKind::Periodic: return "periodic";
  case VerdictKind::Outlier: return "outlier";
  case VerdictKind::Effect: return "effect";
  case VerdictKind::Single: return "single";
  case VerdictKind::Unknown: break;
  }
  return "unknown";
}

VerdictState verdictState(VerdictKind K) {
  switch (K) {
  case VerdictKind::NoEffect:
  case VerdictKind::WithinNoise:
    return VerdictState::NoEffect;
  case VerdictKind::Negligible:
    return VerdictState::Negligible;
  case VerdictKind::Periodic:
  case VerdictKind::Outlier:
  case VerdictKind::Effect:
    return VerdictState::Effect;
  case VerdictKind::Unknown:
  case VerdictKind::Single:
    break;
  }
  return VerdictState::None;
}

StringRef verdictStateName(VerdictState S) {
  switch (S) {
  case VerdictState::NoEffect: return "no-effect";
  case VerdictState::Negligible: return "negligible";
  case VerdictState::Effect: return "effect";
  case VerdictState::None: break;
  }
  return "none";
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
      P && P->Strength >= MinPeriodStrength &&
      P->Explained >= MinExplainedVariance && S.Spread > 0) {
    S.Period = P;
    S.Mechanism = likelyMechanism(P->Bytes, G);
  }
  if (Costs.size() >= 4) {
    // The variant farthest from the median (the first on ties).
    size_t Far = 0;
    for (size_t I = 1; I < Costs.size(); ++I)
      if (std::fabs(Costs[I] - S.Median) > std::fabs(Costs[Far] - S.Median))
        Far = I;
    std::vector<double> Rest = Costs;
    Rest.erase(Rest.begin() + Far);
    S.OutlierOffset = Offsets[Far];
    S.SpreadWithoutOutlier = spread(Rest);
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
    // A count's resolution is one event: a pattern that moves it by a
    // count or two is jitter, however regular.
    if (auto P = dominantPeriod(Offs, Vals);
        P && P->Strength >= MinPeriodStrength &&
        P->Explained >= MinExplainedVariance &&
        P->Amplitude >= MinPeriodAmplitude)
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
  if (lookupBackendKind(R.Backend) == BackendKind::Sim)
    return NoiseFloor{NoiseFloor::Deterministic, SimResolution, 0, 0, 0};
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

/// Periods and mechanisms explain swings; a series whose spread is within
/// the floor (resolution), or negligible (at most --min-effect), has none
/// worth explaining.
static void dropPeriodsWithinFloor(SeriesSummary &S, double Floor) {
  if (S.Spread > Floor)
    return;
  S.Period.reset();
  S.Mechanism.clear();
  S.CounterPeriods.clear();
}

static std::string floorText(const NoiseFloor &NF, StringRef Floor) {
  switch (NF.Kind) {
  case NoiseFloor::Deterministic:
    return formatv("the resolution {0} (deterministic backend)", Floor).str();
  case NoiseFloor::Measured:
    return formatv("noise floor {0} (from {1} A/A copies)", Floor, NF.Copies)
        .str();
  case NoiseFloor::Unknown:
    break;
  }
  return "";
}

/// " but is below the 1.00% effect threshold (--min-effect): negligible".
static std::string negligibleTail(double Spread, double MinEffect) {
  return formatv(" but is below the {0} effect threshold (--min-effect): "
                 "negligible",
                 percentPair(Spread, MinEffect).second)
      .str();
}

/// A sweep of one variant (or none): the measurement, and no verdict.
static void singleVerdict(const SeriesSummary &S, GateResult &G) {
  G.Kind = VerdictKind::Single;
  if (S.Measured == 0) {
    G.Verdict = "no variant was measured: no verdict";
    return;
  }
  std::string Cost = std::fabs(S.Mean) >= 1000
                         ? formatv("{0}", format("%.0f", S.Mean)).str()
                         : formatv("{0}", format("%.6g", S.Mean)).str();
  G.Verdict = formatv("offset {0}: cost {1}; no spread and no verdict from "
                      "one point (sweep two or more offsets for one)",
                      S.BestOffset, Cost)
                  .str();
}

/// The verdict rule (docs/sweep-statistics.md, "The verdict").
static void decideVerdict(const SeriesSummary &S, const NoiseFloor &NF,
                          double MinEffect, GateResult &G) {
  G.WithinNoise = false;
  G.MinEffect = MinEffect;
  if (S.Measured < 2)
    return singleVerdict(S, G);
  if (NF.Kind == NoiseFloor::Unknown) {
    G.Kind = S.Spread <= MinEffect ? VerdictKind::Negligible
                                   : VerdictKind::Unknown;
    G.Verdict = formatv("spread {0} (noise floor unknown: no A/A copies "
                        "measured){1}",
                        percent(S.Spread),
                        S.Spread <= MinEffect
                            ? negligibleTail(S.Spread, MinEffect)
                            : std::string())
                    .str();
    return;
  }
  auto [Sp, Fl] = percentPair(S.Spread, NF.Spread);
  if (S.Spread <= NF.Spread) {
    G.WithinNoise = true;
    if (NF.Kind == NoiseFloor::Deterministic) {
      G.Kind = VerdictKind::NoEffect;
      G.Verdict = formatv("spread {0} is within the resolution {1} of the "
                          "deterministic backend: no layout effect at this "
                          "resolution",
                          Sp, Fl)
                      .str();
    } else {
      G.Kind = VerdictKind::WithinNoise;
      G.Verdict = formatv("spread {0} is within noise (floor {1} from {2} A/A "
                          "copies)",
                          Sp, Fl, NF.Copies)
                      .str();
    }
    return;
  }
  std::string Head =
      formatv("spread {0} exceeds {1}", Sp, floorText(NF, Fl)).str();
  // Above the floor but not above the threshold: real, and too small to act
  // on (no period, no mechanism, not red).
  if (S.Spread <= MinEffect) {
    G.Kind = VerdictKind::Negligible;
    G.Verdict = Head + negligibleTail(S.Spread, MinEffect);
    return;
  }
  if (S.Period) {
    G.Kind = VerdictKind::Periodic;
    G.Verdict = formatv("{0}: a layout effect repeating every {1} B ({2} of "
                        "the variance)",
                        Head, S.Period->Bytes,
                        percent(S.Period->Explained, 0))
                    .str();
  } else if (S.OutlierOffset && S.SpreadWithoutOutlier <= NF.Spread) {
    G.Kind = VerdictKind::Outlier;
    G.Verdict = formatv("{0}: one variant (offset {1}) makes the spread; the "
                        "others are within {2}",
                        Head, *S.OutlierOffset,
                        percentPair(S.SpreadWithoutOutlier, NF.Spread).first)
                    .str();
  } else {
    G.Kind = VerdictKind::Effect;
    G.Verdict = Head + ": a layout effect without a clear period";
  }
}

std::vector<std::string> mispredictEvents(const SweepResult &R) {
  // In order of preference: the front-end model counts cachegrind's events
  // too, but its predictor is the one its cost weighs.
  static const std::vector<std::string> Sets[] = {
      {"CondMiss", "IndMiss"}, {"Bcm", "Bim"}, {"branch-misses"}};
  for (const Measurement &M : R.Ms) {
    if (M.Failed)
      continue;
    for (const std::vector<std::string> &Set : Sets)
      if (M.Counters.count(Set[0]))
        return Set;
    break;
  }
  return {};
}

Error checkMispredictBaseline(const SweepResult &B, StringRef Path) {
  if (mispredictEvents(B).empty())
    return inputError(Path, 0,
                      "--max-mispredict-rise: the baseline counts no branch "
                      "mispredicts (backend '{0}'; sim counts Bcm and Bim, "
                      "--cost=skylake|zen4 CondMiss and IndMiss, perf "
                      "branch-misses)",
                      B.Backend);
  return Error::success();
}

/// The mean over measured variants of the sum of \p Events; an error when a
/// measured variant lacks one of them (a perf event not counted): a zero
/// there would move the mean.
static Expected<double> meanOf(const SweepResult &R,
                               ArrayRef<std::string> Events, StringRef Which) {
  double Sum = 0;
  size_t N = 0;
  for (const Measurement &M : R.Ms) {
    if (M.Failed)
      continue;
    for (const std::string &E : Events) {
      auto It = M.Counters.find(E);
      if (It == M.Counters.end())
        return makeError("--max-mispredict-rise: {0}'s variant {1} did not "
                         "count {2}",
                         Which, M.V.key(), E);
      Sum += It->second;
    }
    ++N;
  }
  return N ? Sum / double(N) : 0;
}

/// --max-mispredict-rise: more branch mispredicts than the baseline?
static Error compareMispredicts(const SweepResult &R, const SweepResult &B,
                                double Margin, double MaxRise,
                                GateResult &G) {
  std::vector<std::string> Ev = mispredictEvents(R), BEv = mispredictEvents(B);
  if (Ev.empty())
    return makeError("--max-mispredict-rise: this sweep counts no branch "
                     "mispredicts (sim counts Bcm and Bim, --cost=skylake|zen4 "
                     "CondMiss and IndMiss, perf branch-misses)");
  if (Ev != BEv)
    return makeError("--max-mispredict-rise: the baseline counts {0}, this "
                     "sweep {1}: not comparable (measure both with the same "
                     "--backend and --cost)",
                     BEv.empty() ? std::string("no mispredicts") : join(BEv, "+"),
                     join(Ev, "+"));
  Expected<double> CurM = meanOf(R, Ev, "this sweep");
  if (!CurM)
    return CurM.takeError();
  Expected<double> OldM = meanOf(B, Ev, "the baseline");
  if (!OldM)
    return OldM.takeError();
  double Cur = *CurM, Old = *OldM;
  double Rise = Old > 0 ? Cur / Old - 1 : (Cur > 0 ? 1 : 0);
  if (Rise > MaxRise + Margin)
    G.Reasons.push_back(
        formatv("branch mispredicts {0} above the baseline's ({1} "
                "{2:f0} against {3:f0} per variant), over "
                "--max-mispredict-rise {4}{5}",
                percent(Rise), join(Ev, "+"), Cur, Old, percent(MaxRise),
                Margin > 0 ? formatv(" + noise {0}", percent(Margin)).str()
                           : std::string())
            .str());
  return Error::success();
}

/// --baseline: worse than the previous result beyond noise?
static Error compareWithBaseline(const SweepResult &R, const SeriesSummary &S,
                                 const NoiseFloor &NF, const SweepResult &B,
                                 const GateOptions &O, GateResult &G) {
  // The saved names are looked up (a name that is no kind compares with
  // nothing).
  std::optional<BackendKind> BK = lookupBackendKind(B.Backend);
  if (!BK || BK != lookupBackendKind(R.Backend))
    return makeError("baseline was measured with backend '{0}', this sweep "
                     "with '{1}': not comparable",
                     B.Backend, R.Backend);
  std::optional<AxisKind> BA = lookupAxis(B.Axis);
  if (!BA || BA != lookupAxis(R.Axis))
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
  if (O.MaxMispredictRise)
    return compareMispredicts(R, B, std::max(NF.Spread, BNF.Spread),
                              *O.MaxMispredictRise, G);
  return Error::success();
}

/// "f (100..140), g (7..9) and 3 more": the functions whose counts moved
/// most first.
static std::string functionList(std::vector<FunctionDiff> Fs) {
  llvm::stable_sort(Fs, [](const FunctionDiff &A, const FunctionDiff &B) {
    return A.Max - A.Min > B.Max - B.Min;
  });
  std::string T;
  const size_t Shown = 5;
  for (size_t I = 0; I < Fs.size() && I < Shown; ++I)
    T += formatv("{0}{1} ({2}..{3})", I ? ", " : "", Fs[I].Name, Fs[I].Min,
                 Fs[I].Max)
             .str();
  if (Fs.size() > Shown)
    T += formatv(" and {0} more", Fs.size() - Shown).str();
  return T;
}

/// The executed-instruction check, as notes (the program's own code paths
/// change: part of the spread is not a layout effect) or information
/// (library and loader code moved by the layout).
static void instructionRemarks(const SweepResult &R, const SeriesSummary &S,
                               GateResult &G) {
  if (R.InstructionChecks.empty()) {
    // A result without the per-series check (an older --json, or a backend
    // that counts only totals): the engine's flag decides.
    if (R.InstructionsDiffer)
      G.Notes.push_back(formatv("executed instructions differ across variants "
                                "(spread {0}): the program is not "
                                "layout-independent",
                                percent(S.InstructionSpread))
                            .str());
    else if (S.InstructionSpread > 0)
      G.Info.push_back(formatv("executed instructions differ across variants "
                               "by {0}, within the tolerance (start-up code)",
                               percent(S.InstructionSpread))
                           .str());
    return;
  }
  for (const InstructionCheck &C : R.InstructionChecks) {
    std::string Head =
        formatv("{0}: executed instructions differ across variants: {1} at "
                "offset {2} .. {3} at offset {4} ({5})",
                C.Series, C.Min, C.MinOffset, C.Max, C.MaxOffset,
                percent(C.spread()))
            .str();
    if (!C.Own.empty()) {
      G.Notes.push_back(formatv("{0}; in the program's own functions {1}: the "
                                "program is not layout-independent (part of "
                                "the spread is different work, not layout)",
                                Head, functionList(C.Own))
                            .str());
      continue;
    }
    if (!C.PerFunction) {
      if (C.aboveTolerance())
        G.Notes.push_back(formatv("{0}, above the tolerance {1}: the program "
                                  "is not layout-independent",
                                  Head, percent(C.Tolerance))
                              .str());
      else
        G.Info.push_back(formatv("{0}, within the tolerance {1} (start-up "
                                 "code)",
                                 Head, percent(C.Tolerance))
                             .str());
      continue;
    }
    if (C.aboveTolerance())
      G.Notes.push_back(
          formatv("{0}, above the tolerance {1}, only outside the program's "
                  "own code: {2}; these libraries take address-dependent "
                  "paths, so that part of the spread is their layout effect",
                  Head, percent(C.Tolerance), functionList(C.Other))
              .str());
    else
      G.Info.push_back(
          formatv("{0}, within the tolerance {1}, only in library and loader "
                  "code (the layout moves libc's and ld.so's own paths; the "
                  "program's own functions run the same instructions): {2}",
                  Head, percent(C.Tolerance), functionList(C.Other))
              .str());
  }
}

/// " (period 2048 B, 97% of the variance: I1 way size ...)" or "".
static std::string periodSuffix(const SeriesSummary &S) {
  if (!S.Period)
    return "";
  return formatv("; period {0} B ({1} of the variance): {2}", S.Period->Bytes,
                 percent(S.Period->Explained, 0), S.Mechanism)
      .str();
}

Expected<GateResult> evaluateGate(const SweepResult &R, const GateOptions &O,
                                  const SweepResult *Baseline) {
  GateResult G;
  CacheGeometry Geo = parseCacheGeometry(R.CacheGeometry);
  G.Base = summarize(R.Ms, "base", Geo);
  if (R.Compare)
    G.Compare = summarize(R.Compare->Ms, R.Compare->Name, Geo);
  G.Noise = noiseFloorOf(R, O.Noise);
  // A period is named only for a spread above both the floor and the
  // threshold (an unknown floor leaves the threshold).
  double NameAbove = G.Noise.Kind == NoiseFloor::Unknown
                         ? O.MinEffect
                         : std::max(G.Noise.Spread, O.MinEffect);
  dropPeriodsWithinFloor(G.Base, NameAbove);
  if (G.Compare)
    dropPeriodsWithinFloor(*G.Compare, NameAbove);
  const SeriesSummary &S = G.Base;
  decideVerdict(S, G.Noise, O.MinEffect, G);
  G.GateSet = O.MaxSpread.has_value() || Baseline;

  if (S.Failed && O.FailOnFailedVariants)
    G.Reasons.push_back(formatv("{0} of {1} variants failed (first: {2})",
                                S.Failed, S.Failed + S.Measured, S.FirstFailure)
                            .str());
  if (S.Measured == 0)
    G.Reasons.push_back("no variant was measured");
  if (O.MaxSpread && S.Spread > *O.MaxSpread) {
    auto [Sp, Max] = percentPair(S.Spread, *O.MaxSpread);
    // A spread that noise alone could produce is not evidence of a layout
    // effect; failing on it would make the gate flaky.
    if (G.WithinNoise)
      G.Notes.push_back(formatv("inconclusive: spread {0} exceeds --max-spread "
                                "{1} but is within noise (floor {2})",
                                Sp, Max, percentPair(S.Spread, G.Noise.Spread).second)
                            .str());
    else
      G.Reasons.push_back(formatv("spread {0} exceeds --max-spread {1} (worst "
                                  "offset {2}, best {3}){4}",
                                  Sp, Max, S.WorstOffset, S.BestOffset,
                                  periodSuffix(S))
                              .str());
  }
  if (Baseline)
    if (Error E = compareWithBaseline(R, S, G.Noise, *Baseline, O, G))
      return std::move(E);
  instructionRemarks(R, S, G);
  G.Failed = !G.Reasons.empty();
  return G;
}

Expected<SweepResult> readResultFile(StringRef Path) {
  Expected<json::Value> V = readJSONFile(Path);
  if (!V)
    return V.takeError();
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
