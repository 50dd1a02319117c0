//===- Result.cpp - JSON forms of sweep results ----------------------------===//
//
// One JSON object per Measurement (the journal's line format) and one per
// SweepResult (--json, --baseline). Keys are stable; maps print ordered.
//
//===----------------------------------------------------------------------===//
#include "keel/SweepReport/Result.h"

#include "keel/Support/Diagnostics.h"
#include "keel/Support/Input.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SHA256.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <tuple>

using namespace llvm;

namespace keel {
namespace sweep {

std::string Variant::key() const {
  return Series + "/" + Axis + "/" + std::to_string(Offset);
}

bool Variant::operator<(const Variant &O) const {
  return std::tie(Series, Axis, Offset) < std::tie(O.Series, O.Axis, O.Offset);
}

Expected<std::string> provenanceDate() {
  std::time_t T = std::time(nullptr);
  if (std::optional<std::string> E = sys::Process::GetEnv("SOURCE_DATE_EPOCH")) {
    // reproducible-builds.org: a malformed value is an error, not "now".
    unsigned long long Secs = 0;
    if (StringRef(*E).getAsInteger(10, Secs) || Secs > (1ULL << 40))
      return inputError("SOURCE_DATE_EPOCH", 0,
                        "'{0}' is not a number of seconds since 1970", *E);
    T = std::time_t(Secs);
  }
  std::tm UTC{};
  gmtime_r(&T, &UTC);
  char Buf[32];
  std::strftime(Buf, sizeof(Buf), "%Y-%m-%dT%H:%M:%SZ", &UTC);
  return std::string(Buf);
}

Expected<std::string> fileSHA256(StringRef Path) {
  Expected<std::unique_ptr<MemoryBuffer>> B =
      readInputFile(Path, InputKind::Binary);
  if (!B)
    return B.takeError();
  std::array<uint8_t, 32> H = SHA256::hash(ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>((*B)->getBufferStart()),
      (*B)->getBufferSize()));
  return toHex(H, /*LowerCase=*/true);
}

json::Value toJSON(const Provenance &Pv, StringRef Backend) {
  json::Object O{{"tool", Pv.Tool},
                 {"tool_version", Pv.ToolVersion},
                 {"date", Pv.Date},
                 {"command", json::Array(Pv.Command)},
                 {"relink", json::Array(Pv.Relink)},
                 {"binary_sha256", Pv.BinarySHA256},
                 {"backend", Backend}};
  if (!Pv.CompareSHA256.empty())
    O["compare_sha256"] = Pv.CompareSHA256;
  return O;
}

bool fromJSON(const json::Value &E, Provenance &Pv, json::Path P) {
  json::ObjectMapper O(E, P);
  return O && O.map("tool", Pv.Tool) &&
         O.mapOptional("tool_version", Pv.ToolVersion) &&
         O.mapOptional("date", Pv.Date) &&
         O.mapOptional("command", Pv.Command) &&
         O.mapOptional("relink", Pv.Relink) &&
         O.mapOptional("binary_sha256", Pv.BinarySHA256) &&
         O.mapOptional("compare_sha256", Pv.CompareSHA256);
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
  if (!R.Prov.empty())
    O["provenance"] = toJSON(R.Prov, R.Backend);
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
      !O.mapOptional("sim_tool", R.SimTool) ||
      !O.mapOptional("provenance", R.Prov))
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
