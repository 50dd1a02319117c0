//===- Model.cpp - the cache-aware roofline estimator (Minami et al.) -----===//
//
// Section 5.4 of the paper, rules (e)-(j):
//  (e) nL1_S < 10m, else no estimate (short re-reads saturate L1 issue).
//  (f) nL1_L + nL2 < c1*m  -> memory-based estimate eM
//  (g) nL1_L + nL2 > c1*m  -> L1-based estimate eL1     (c1 = 4.23 on K)
//  (h) nL2 < c2*m          -> memory-based estimate eM
//  (i) nL2 > c2*m          -> L2-based estimate eL2     (c2 = 2.17 on K)
//  (j) the estimate is the lowest of the estimates selected; capped at 1.
//
//===----------------------------------------------------------------------===//
#include "keel/Roofline/Model.h"
#include "keel/Roofline/JSONInput.h"
#include "keel/Support/Diagnostics.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <limits>

using namespace llvm;

namespace keel {
namespace roofline {

Ceilings kComputerCeilings() {
  Ceilings C;
  C.Name = "K computer (paper, section 5.4)";
  C.Mband = 46;
  C.L2band = 146;
  C.L1band = 241;
  C.Ppeak = 128;
  return C;
}

StringRef boundName(Bound B) {
  switch (B) {
  case Bound::Memory:
    return "memory";
  case Bound::L2:
    return "L2";
  case Bound::L1:
    return "L1";
  case Bound::Compute:
    return "compute";
  case Bound::None:
    return "none";
  }
  return "none";
}

static std::string fmtg(double D) {
  char Buf[32];
  snprintf(Buf, sizeof(Buf), "%g", D);
  return Buf;
}

// Peak fraction when Bytes per iteration move at Band GB/s and the iteration
// does K flops: (Band/Ppeak) / (Bytes/K). Zero bytes: unbounded by this level.
static double fractionFor(double Band, double Ppeak, double Bytes, double K) {
  if (Bytes <= 0)
    return std::numeric_limits<double>::infinity();
  return (Band / Ppeak) / (Bytes / K);
}

/// The Overlap::Sum extension: per-level times add; the level with the
/// largest share is reported as the bound.
static void estimateSum(const KernelCounts &KC, const Ceilings &C,
                        Estimate &E) {
  const double Elem = KC.ElementBytes;
  double TM = KC.M * Elem / C.Mband, TL2 = KC.NL2 * Elem / C.L2band,
         TL1 = KC.NL1L * Elem / C.L1band;
  double T = TM + TL2 + TL1; // ns per iteration (bytes / (GB/s))
  double Frac = T > 0 ? KC.K / (T * C.Ppeak) : 1;
  Bound By = Bound::Memory;
  if (TL2 > TM && TL2 >= TL1)
    By = Bound::L2;
  else if (TL1 > TM && TL1 > TL2)
    By = Bound::L1;
  if (Frac >= 1) {
    Frac = 1;
    By = Bound::Compute;
  }
  E.Fraction = Frac;
  E.BoundBy = By;
  E.GFlops = Frac * C.Ppeak;
  E.Trace.push_back(formatv("(sum) extension, not the paper's rule (j): "
                            "levels do not overlap, time = {0:f3} + {1:f3} + "
                            "{2:f3} ns per iteration",
                            TM, TL2, TL1));
  E.Trace.push_back(formatv("estimate = {0:f3} of peak (largest share: {1}), "
                            "{2:f2} GFLOP/s",
                            E.Fraction, boundName(By), E.GFlops));
}

Expected<Estimate> estimate(const KernelCounts &KC, const Ceilings &C,
                            Overlap O) {
  if (!(C.Mband > 0 && C.L2band > 0 && C.L1band > 0 && C.Ppeak > 0))
    return makeError("ceilings must be positive (Mband {0}, L2band {1}, "
                     "L1band {2}, Ppeak {3})",
                     C.Mband, C.L2band, C.L1band, C.Ppeak);
  if (KC.M < 0 || KC.NL2 < 0 || KC.NL1S < 0 || KC.NL1L < 0)
    return makeError("kernel '{0}': counts must not be negative", KC.Name);
  if (KC.K < 0)
    return makeError("kernel '{0}': k (flops per iteration) must not be "
                     "negative",
                     KC.Name);
  if (KC.ElementBytes == 0)
    return makeError("kernel '{0}': element size must be positive", KC.Name);

  Estimate E;
  if (KC.K == 0) { // e.g. a copy loop the compiler plugin found
    E.Estimable = false;
    E.WhyNot = "no floating-point operations (k = 0): nothing to estimate";
    E.Trace.push_back(E.WhyNot);
    return E;
  }
  const double Elem = KC.ElementBytes;
  E.EM = fractionFor(C.Mband, C.Ppeak, KC.M * Elem, KC.K);
  E.EL2 = fractionFor(C.L2band, C.Ppeak, (KC.M + KC.NL2) * Elem, KC.K);
  E.EL1 =
      fractionFor(C.L1band, C.Ppeak, (KC.M + KC.NL2 + KC.NL1L) * Elem, KC.K);
  E.L2Crossover = C.L2band / C.Mband - 1;
  E.L1Crossover = C.L1band / C.Mband - 1;

  // (e) Short-distance re-reads are free until they reach ten per memory
  // array (section 5.3, table 2: 3M-32L1short still followed eM).
  // A kernel with no memory traffic and no short re-reads passes trivially.
  if (!(KC.NL1S < 10 * KC.M || KC.NL1S == 0)) {
    E.Estimable = false;
    E.WhyNot = formatv("rule (e): nL1_S = {0} is not below 10m = {1}; the "
                       "paper makes no estimate",
                       fmtg(KC.NL1S), fmtg(10 * KC.M))
                   .str();
    E.Trace.push_back(E.WhyNot);
    return E;
  }
  E.Trace.push_back(formatv("(e) nL1_S = {0} < 10m = {1}: short L1 re-reads "
                            "are not considered",
                            fmtg(KC.NL1S), fmtg(10 * KC.M)));

  if (O == Overlap::Sum) {
    estimateSum(KC, C, E);
    return E;
  }

  double LongN = KC.NL1L + KC.NL2;
  E.UseL1 = LongN > E.L1Crossover * KC.M;
  E.Trace.push_back(formatv("({0}) nL1_L + nL2 = {1} {2} {3:f2}m = {4:f2}: {5}",
                            E.UseL1 ? "g" : "f", fmtg(LongN), E.UseL1 ? ">" : "<=",
                            E.L1Crossover, E.L1Crossover * KC.M,
                            E.UseL1 ? "L1-based estimate eL1"
                                    : "memory-based estimate eM"));
  E.UseL2 = KC.NL2 > E.L2Crossover * KC.M;
  E.Trace.push_back(formatv("({0}) nL2 = {1} {2} {3:f2}m = {4:f2}: {5}",
                            E.UseL2 ? "i" : "h", fmtg(KC.NL2), E.UseL2 ? ">" : "<=",
                            E.L2Crossover, E.L2Crossover * KC.M,
                            E.UseL2 ? "L2-based estimate eL2"
                                    : "memory-based estimate eM"));

  // (j) The lowest of the selected estimates. eM is selected whenever (f) or
  // (h) holds; when both (g) and (i) fire it is dropped.
  double Best = std::numeric_limits<double>::infinity();
  Bound By = Bound::None;
  auto Consider = [&](double V, Bound B) {
    if (V < Best) {
      Best = V;
      By = B;
    }
  };
  if (!E.UseL1 || !E.UseL2)
    Consider(E.EM, Bound::Memory);
  if (E.UseL2)
    Consider(E.EL2, Bound::L2);
  if (E.UseL1)
    Consider(E.EL1, Bound::L1);
  if (Best >= 1) {
    Best = 1;
    By = Bound::Compute;
  }
  E.Fraction = Best;
  E.BoundBy = By;
  E.GFlops = Best * C.Ppeak;
  E.Trace.push_back(formatv("(j) estimate = {0:f3} of peak ({1} bound), "
                            "{2:f2} GFLOP/s",
                            E.Fraction, boundName(By), E.GFlops));
  return E;
}

//===-- JSON ---------------------------------------------------------------===//

static Expected<double> numberField(const json::Object &O, StringRef Key,
                                    StringRef Text, StringRef File,
                                    std::optional<double> Default) {
  const json::Value *V = O.get(Key);
  if (!V) {
    if (Default)
      return *Default;
    return inputError(File, 0, "missing field \"{0}\"", Key);
  }
  if (auto D = V->getAsNumber()) {
    // JSON numbers beyond the double range (1e400) parse as infinity.
    if (!std::isfinite(*D))
      return inputError(File, lineOfKey(Text, Key),
                        "field \"{0}\" is not a finite number", Key);
    return *D;
  }
  return inputError(File, lineOfKey(Text, Key), "field \"{0}\" must be a number",
                    Key);
}

StringRef overlapName(Overlap O) { return O == Overlap::Sum ? "sum" : "max"; }

double overlapFactor(double MemNs, double L2Ns, double BothNs) {
  if (!(MemNs > 0 && L2Ns > 0 && BothNs > 0))
    return 0;
  return (BothNs - std::max(MemNs, L2Ns)) / std::min(MemNs, L2Ns);
}

Overlap modeForOverlapFactor(double F) {
  return F > SumOverlapThreshold ? Overlap::Sum : Overlap::Max;
}

OverlapChoice chooseOverlap(std::optional<Overlap> Explicit,
                            const std::optional<LevelOverlap> &Measured) {
  OverlapChoice C;
  if (Explicit) {
    C.Mode = *Explicit;
    C.Why = formatv("--overlap={0} given", overlapName(*Explicit)).str();
    return C;
  }
  if (!Measured) {
    C.Mode = Overlap::Max;
    C.Why = "the paper's model: no measured level_overlap in the machine "
            "description";
    return C;
  }
  C.Mode = Measured->Mode;
  if (Measured->HasFactor) {
    C.Factor = Measured->Factor;
    C.Why = formatv("measured on this machine: f={0:f2} {1} {2:f1}",
                    Measured->Factor,
                    Measured->Factor > SumOverlapThreshold ? ">" : "<=",
                    SumOverlapThreshold)
                .str();
  } else {
    C.Why = formatv("the machine description says level_overlap mode {0}",
                    overlapName(Measured->Mode))
                .str();
  }
  return C;
}

Expected<std::optional<LevelOverlap>>
parseLevelOverlap(const json::Value &V, StringRef File, StringRef Text) {
  const json::Object *O = V.getAsObject();
  if (!O)
    return inputError(File, 1, "machine description must be a JSON object");
  const json::Value *LV = O->get("level_overlap");
  if (!LV)
    return std::optional<LevelOverlap>();
  unsigned Line = lineOfKey(Text, "level_overlap");
  const json::Object *L = LV->getAsObject();
  if (!L)
    return inputError(File, Line, "\"level_overlap\" must be an object");
  LevelOverlap R;
  std::optional<StringRef> Mode = L->getString("mode");
  if (Mode == StringRef("sum"))
    R.Mode = Overlap::Sum;
  else if (Mode == StringRef("max"))
    R.Mode = Overlap::Max;
  else
    return inputError(File, Line,
                      "\"level_overlap\".\"mode\" must be \"max\" or \"sum\"");
  if (const json::Value *F = L->get("factor")) {
    std::optional<double> D = F->getAsNumber();
    if (!D || !std::isfinite(*D))
      return inputError(File, Line,
                        "\"level_overlap\".\"factor\" must be a number");
    R.Factor = *D;
  } else {
    R.HasFactor = false;
  }
  R.MemNs = L->getNumber("mem_ns").value_or(0);
  R.L2Ns = L->getNumber("l2_ns").value_or(0);
  R.BothNs = L->getNumber("both_ns").value_or(0);
  R.MemArrays = unsigned(L->getInteger("mem_arrays").value_or(0));
  R.L2Arrays = unsigned(L->getInteger("l2_arrays").value_or(0));
  return std::optional<LevelOverlap>(R);
}

json::Object toJSON(const LevelOverlap &L) {
  json::Object O{{"mode", overlapName(L.Mode)},
                 {"threshold", SumOverlapThreshold}};
  if (L.HasFactor)
    O["factor"] = L.Factor;
  if (L.MemArrays || L.L2Arrays) {
    O["kernel"] = formatv("{0}M-{1}L2", L.MemArrays, L.L2Arrays).str();
    O["mem_arrays"] = int64_t(L.MemArrays);
    O["l2_arrays"] = int64_t(L.L2Arrays);
    O["mem_ns"] = L.MemNs;
    O["l2_ns"] = L.L2Ns;
    O["both_ns"] = L.BothNs;
  }
  return O;
}

Expected<Ceilings> parseCeilings(const json::Value &V, StringRef Scope,
                                 StringRef File) {
  const json::Object *O = V.getAsObject();
  if (!O)
    return inputError(File, 1, "machine description must be a JSON object");
  // A `machine --json` report keeps several scopes under "ceilings".
  if (const json::Object *Cs = O->getObject("ceilings")) {
    const json::Object *S = Cs->getObject(Scope);
    if (!S)
      return inputError(File, 0, "no \"ceilings\".\"{0}\" object", Scope);
    O = S;
  }
  Ceilings C;
  if (auto N = O->getString("name"))
    C.Name = N->str();
  std::string Text; // field lines are unknown here; report the file
  for (auto [Key, Dst] : {std::pair<StringRef, double *>{"Mband", &C.Mband},
                          {"L2band", &C.L2band},
                          {"L1band", &C.L1band},
                          {"Ppeak", &C.Ppeak}}) {
    auto D = numberField(*O, Key, Text, File, std::nullopt);
    if (!D)
      return D.takeError();
    if (!(*D > 0))
      return inputError(File, 0, "ceiling \"{0}\" must be positive", Key);
    *Dst = *D;
  }
  return C;
}

static Expected<KernelCounts> kernelFromObject(const json::Object &O,
                                               StringRef Text, StringRef File,
                                               size_t Index) {
  KernelCounts KC;
  if (auto N = O.getString("name"))
    KC.Name = N->str();
  else
    KC.Name = formatv("kernel{0}", Index).str();
  struct Field {
    StringRef Key;
    double *Dst;
    std::optional<double> Default;
  } Fields[] = {{"m", &KC.M, std::nullopt},
                {"nL2", &KC.NL2, 0.0},
                {"nL1_S", &KC.NL1S, 0.0},
                {"nL1_L", &KC.NL1L, 0.0},
                {"k", &KC.K, std::nullopt}};
  for (const Field &F : Fields) {
    auto D = numberField(O, F.Key, Text, File, F.Default);
    if (!D)
      return D.takeError();
    if (*D < 0)
      return inputError(File, lineOfKey(Text, F.Key),
                        "kernel '{0}': \"{1}\" must not be negative", KC.Name,
                        F.Key);
    *F.Dst = *D;
  }
  if (auto E = O.getInteger("element_bytes")) {
    if (*E <= 0 || *E > 64)
      return inputError(File, lineOfKey(Text, "element_bytes"),
                        "kernel '{0}': bad element_bytes {1}", KC.Name, *E);
    KC.ElementBytes = unsigned(*E);
  }
  if (const json::Array *U = O.getArray("unclassified"))
    for (const json::Value &X : *U)
      if (auto S = X.getAsString())
        KC.Unclassified.push_back(S->str());
  return KC;
}

Expected<std::vector<KernelCounts>> parseKernels(StringRef Text,
                                                 StringRef File) {
  auto V = parseJSON(Text, File);
  if (!V)
    return V.takeError();
  const json::Object *O = V->getAsObject();
  if (!O)
    return inputError(File, 1, "kernel description must be a JSON object");
  std::vector<KernelCounts> Out;
  if (const json::Array *A = O->getArray("kernels")) {
    for (size_t I = 0; I < A->size(); ++I) {
      const json::Object *K = (*A)[I].getAsObject();
      if (!K)
        return inputError(File, lineOfKey(Text, "kernels"),
                          "kernels[{0}] is not an object", I);
      auto KC = kernelFromObject(*K, Text, File, I);
      if (!KC)
        return KC.takeError();
      Out.push_back(std::move(*KC));
    }
    return Out;
  }
  auto KC = kernelFromObject(*O, Text, File, 0);
  if (!KC)
    return KC.takeError();
  Out.push_back(std::move(*KC));
  return Out;
}

Expected<KernelCounts> parseKernelName(StringRef Name) {
  KernelCounts KC;
  KC.Name = Name.str();
  SmallVector<StringRef, 6> Parts;
  Name.split(Parts, '-');
  bool SawM = false, SawK = false;
  for (StringRef P : Parts) {
    size_t Digits = P.find_first_not_of("0123456789.");
    double V = 0;
    if (Digits == 0 || P.take_front(Digits).getAsDouble(V))
      return makeError("bad kernel name '{0}': '{1}' has no count", Name, P);
    if (!std::isfinite(V))
      return makeError("bad kernel name '{0}': '{1}' is not a finite count",
                       Name, P);
    StringRef Unit = P.drop_front(Digits);
    if (Unit == "M")
      KC.M = V, SawM = true;
    else if (Unit == "L2")
      KC.NL2 = V;
    else if (Unit == "L1S" || Unit == "L1short")
      KC.NL1S = V;
    else if (Unit == "L1L" || Unit == "L1long" || Unit == "L1")
      KC.NL1L = V;
    else if (Unit == "F")
      KC.K = V, SawK = true;
    else
      return makeError("bad kernel name '{0}': unknown unit '{1}'", Name,
                       Unit);
  }
  if (!SawM || !SawK)
    return makeError("bad kernel name '{0}': needs <m>M and <k>F", Name);
  return KC;
}

static json::Value num(double D) {
  if (std::isinf(D))
    return nullptr; // JSON has no infinity: "unbounded by this level"
  return D;
}

json::Object toJSON(const KernelCounts &KC) {
  json::Array U;
  for (const std::string &S : KC.Unclassified)
    U.push_back(S);
  return json::Object{{"name", KC.Name},
                      {"m", KC.M},
                      {"nL2", KC.NL2},
                      {"nL1_S", KC.NL1S},
                      {"nL1_L", KC.NL1L},
                      {"k", KC.K},
                      {"element_bytes", int64_t(KC.ElementBytes)},
                      {"unclassified", std::move(U)}};
}

json::Object toJSON(const Estimate &E) {
  json::Array Trace;
  for (const std::string &S : E.Trace)
    Trace.push_back(S);
  json::Object O{{"estimable", E.Estimable},
                 {"eM", num(E.EM)},
                 {"eL2", num(E.EL2)},
                 {"eL1", num(E.EL1)},
                 {"l2_crossover", E.L2Crossover},
                 {"l1_crossover", E.L1Crossover},
                 {"rule_g_L1", E.UseL1},
                 {"rule_i_L2", E.UseL2},
                 {"rules", std::move(Trace)}};
  if (E.Estimable) {
    O["estimate"] = E.Fraction;
    O["bound"] = boundName(E.BoundBy);
    O["gflops"] = E.GFlops;
  } else {
    O["why_not"] = E.WhyNot;
  }
  return O;
}

json::Object toJSON(const Ceilings &C) {
  return json::Object{{"name", C.Name},
                      {"Mband", C.Mband},
                      {"L2band", C.L2band},
                      {"L1band", C.L1band},
                      {"Ppeak", C.Ppeak}};
}

static std::string fmt3(double D) {
  if (std::isinf(D))
    return "-";
  return formatv("{0:f3}", D).str();
}

void printText(raw_ostream &OS, const KernelCounts &KC, const Ceilings &C,
               const Estimate &E) {
  OS << formatv("kernel {0}: m {1}, nL2 {2}, nL1_S {3}, nL1_L {4}, k {5}, "
                "{6} B elements\n",
                KC.Name, fmtg(KC.M), fmtg(KC.NL2), fmtg(KC.NL1S),
                fmtg(KC.NL1L), fmtg(KC.K), KC.ElementBytes);
  OS << formatv("  ceilings ({0}): Mband {1} GB/s, L2band {2} GB/s, L1band "
                "{3} GB/s, Ppeak {4} GFLOP/s\n",
                C.Name.empty() ? "given" : C.Name, C.Mband, C.L2band,
                C.L1band, C.Ppeak);
  OS << "  eM " << fmt3(E.EM) << "  eL2 " << fmt3(E.EL2) << "  eL1 "
     << fmt3(E.EL1) << '\n';
  for (const std::string &S : E.Trace)
    OS << "  " << S << '\n';
  for (const std::string &S : KC.Unclassified)
    OS << "  unclassified: " << S << '\n';
}

} // namespace roofline
} // namespace keel
