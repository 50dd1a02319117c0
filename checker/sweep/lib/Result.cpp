//===- Result.cpp - JSON forms of sweep results ----------------------------===//
//
// One JSON object per Measurement (the journal's line format) and one per
// SweepResult (--json, --baseline). Keys are stable; maps print ordered.
//
//===----------------------------------------------------------------------===//
#include "keel/Sweep/Result.h"

#include <tuple>

#include <algorithm>
#include <cmath>

using namespace llvm;

namespace keel {
namespace sweep {

std::string Variant::key() const {
  return Series + "/" + Axis + "/" + std::to_string(Offset);
}

bool Variant::operator<(const Variant &O) const {
  return std::tie(Series, Axis, Offset) < std::tie(O.Series, O.Axis, O.Offset);
}

json::Value toJSON(const Variant &V) {
  return json::Object{{"series", V.Series}, {"axis", V.Axis}, {"offset", V.Offset}};
}

static json::Value countersJSON(const std::map<std::string, double> &C) {
  json::Object O;
  for (const auto &[K, X] : C)
    O[K] = X;
  return O;
}

json::Value toJSON(const Measurement &M) {
  json::Object O{{"variant", toJSON(M.V)}, {"failed", M.Failed}};
  if (M.Failed) {
    O["reason"] = M.FailReason;
  } else {
    O["cost"] = M.Cost;
    O["instructions"] = static_cast<int64_t>(M.Instructions);
    O["counters"] = countersJSON(M.Counters);
    if (!M.Samples.empty())
      O["samples"] = json::Array(M.Samples);
    if (!M.FunctionInstructions.empty()) {
      json::Object F;
      for (const auto &[Name, N] : M.FunctionInstructions)
        F[Name] = static_cast<int64_t>(N);
      O["functions"] = std::move(F);
    }
  }
  if (!M.Fallback.empty())
    O["fallback"] = M.Fallback;
  return O;
}

static json::Value toJSON(const FunctionDiff &F) {
  return json::Object{{"name", F.Name},
                      {"min", static_cast<int64_t>(F.Min)},
                      {"max", static_cast<int64_t>(F.Max)}};
}

static json::Value toJSON(const InstructionCheck &C) {
  json::Array Own, Other;
  for (const FunctionDiff &F : C.Own)
    Own.push_back(toJSON(F));
  for (const FunctionDiff &F : C.Other)
    Other.push_back(toJSON(F));
  return json::Object{{"series", C.Series},
                      {"min", static_cast<int64_t>(C.Min)},
                      {"max", static_cast<int64_t>(C.Max)},
                      {"min_offset", C.MinOffset},
                      {"max_offset", C.MaxOffset},
                      {"tolerance", C.Tolerance},
                      {"per_function", C.PerFunction},
                      {"own_functions", std::move(Own)},
                      {"other_functions", std::move(Other)}};
}

static bool fromJSON(const json::Value &E, FunctionDiff &F, json::Path P) {
  json::ObjectMapper O(E, P);
  int64_t Lo = 0, Hi = 0;
  if (!O || !O.map("name", F.Name) || !O.map("min", Lo) || !O.map("max", Hi))
    return false;
  F.Min = uint64_t(std::max<int64_t>(Lo, 0));
  F.Max = uint64_t(std::max<int64_t>(Hi, 0));
  return true;
}

static bool fromJSON(const json::Value &E, InstructionCheck &C, json::Path P) {
  json::ObjectMapper O(E, P);
  int64_t Lo = 0, Hi = 0;
  if (!O || !O.map("series", C.Series) || !O.map("min", Lo) ||
      !O.map("max", Hi) || !O.mapOptional("min_offset", C.MinOffset) ||
      !O.mapOptional("max_offset", C.MaxOffset) ||
      !O.mapOptional("tolerance", C.Tolerance) ||
      !O.mapOptional("per_function", C.PerFunction) ||
      !O.mapOptional("own_functions", C.Own) ||
      !O.mapOptional("other_functions", C.Other))
    return false;
  C.Min = uint64_t(std::max<int64_t>(Lo, 0));
  C.Max = uint64_t(std::max<int64_t>(Hi, 0));
  return true;
}

static json::Array measurementsJSON(const std::vector<Measurement> &Ms) {
  json::Array A;
  for (const Measurement &M : Ms)
    A.push_back(toJSON(M));
  return A;
}

json::Value toJSON(const SweepResult &R) {
  json::Object O{{"binary", R.Binary},
                 {"args", json::Array(R.Args)},
                 {"backend", R.Backend},
                 {"axis", R.Axis},
                 {"cache_geometry", R.CacheGeometry},
                 {"geometry_preset", R.GeometryPreset},
                 {"weights", countersJSON(R.Weights)},
                 {"measurements", measurementsJSON(R.Ms)},
                 {"instructions_differ", R.InstructionsDiffer},
                 {"notes", json::Array(R.Notes)}};
  if (!R.CodeMoved.empty())
    O["code_moved"] = R.CodeMoved;
  if (!R.InstructionChecks.empty()) {
    json::Array A;
    for (const InstructionCheck &C : R.InstructionChecks)
      A.push_back(toJSON(C));
    O["instruction_checks"] = std::move(A);
  }
  if (!R.Relink.empty())
    O["relink"] = R.Relink;
  if (!R.SimTool.empty())
    O["sim_tool"] = R.SimTool;
  if (R.Compare) {
    json::Object C{{"name", R.Compare->Name},
                   {"binary", R.Compare->Binary},
                   {"measurements", measurementsJSON(R.Compare->Ms)}};
    if (!R.Compare->Relink.empty())
      C["relink"] = R.Compare->Relink;
    O["compare"] = std::move(C);
  }
  if (!R.NoiseFloor.empty())
    O["noise_floor"] = measurementsJSON(R.NoiseFloor);
  return O;
}

bool fromJSON(const json::Value &E, Variant &V, json::Path P) {
  json::ObjectMapper O(E, P);
  return O && O.map("series", V.Series) && O.map("axis", V.Axis) &&
         O.map("offset", V.Offset);
}

bool fromJSON(const json::Value &E, Measurement &M, json::Path P) {
  json::ObjectMapper O(E, P);
  if (!O || !O.map("variant", M.V) || !O.map("failed", M.Failed))
    return false;
  if (!O.mapOptional("fallback", M.Fallback))
    return false;
  if (M.Failed)
    return O.map("reason", M.FailReason);
  int64_t Instr = 0;
  if (!O.map("cost", M.Cost) || !O.map("instructions", Instr) ||
      !O.mapOptional("counters", M.Counters) ||
      !O.mapOptional("samples", M.Samples))
    return false;
  if (const json::Object *F = E.getAsObject()->getObject("functions"))
    for (const auto &[Name, N] : *F)
      if (std::optional<int64_t> V = N.getAsInteger(); V && *V >= 0)
        M.FunctionInstructions[Name.str()] = uint64_t(*V);
  if (Instr < 0) {
    P.field("instructions").report("must not be negative");
    return false;
  }
  M.Instructions = static_cast<uint64_t>(Instr);
  // A cost is an event count or a time: a negative or non-finite one (hand
  // edits, 1e400) would poison the statistics and the gate.
  if (!std::isfinite(M.Cost) || M.Cost < 0) {
    P.field("cost").report("must be a finite, non-negative number");
    return false;
  }
  for (double S : M.Samples)
    if (!std::isfinite(S) || S < 0) {
      P.field("samples").report("must be finite, non-negative numbers");
      return false;
    }
  return true;
}

bool fromJSON(const json::Value &E, SweepResult &R, json::Path P) {
  json::ObjectMapper O(E, P);
  if (!O || !O.map("binary", R.Binary) || !O.map("backend", R.Backend) ||
      !O.map("axis", R.Axis) || !O.map("measurements", R.Ms) ||
      !O.mapOptional("args", R.Args) ||
      !O.mapOptional("cache_geometry", R.CacheGeometry) ||
      !O.mapOptional("geometry_preset", R.GeometryPreset) ||
      !O.mapOptional("weights", R.Weights) ||
      !O.mapOptional("notes", R.Notes) ||
      !O.mapOptional("instructions_differ", R.InstructionsDiffer) ||
      !O.mapOptional("code_moved", R.CodeMoved) ||
      !O.mapOptional("noise_floor", R.NoiseFloor) ||
      !O.mapOptional("instruction_checks", R.InstructionChecks) ||
      !O.mapOptional("relink", R.Relink) ||
      !O.mapOptional("sim_tool", R.SimTool))
    return false;
  if (const json::Value *C = E.getAsObject()->get("compare")) {
    Series S;
    json::ObjectMapper CO(*C, P.field("compare"));
    if (!CO.map("name", S.Name) || !CO.map("binary", S.Binary) ||
        !CO.map("measurements", S.Ms) || !CO.mapOptional("relink", S.Relink))
      return false;
    R.Compare = std::move(S);
  }
  return true;
}

} // namespace sweep
} // namespace keel
