//===- Kinds.cpp - axis and backend names ---------------------------------===//
//
// The one place an axis' or a backend's name becomes its kind (at the option
// boundary, or reading a saved result) and a kind its name again.
//
//===----------------------------------------------------------------------===//
#include "keel/SweepReport/Kinds.h"

#include "keel/Support/Diagnostics.h"

#include "llvm/ADT/StringSwitch.h"

using namespace llvm;

namespace keel {
namespace sweep {

StringRef axisName(AxisKind K) {
  switch (K) {
  case AxisKind::Code:
    return "code";
  case AxisKind::Data:
    return "data";
  case AxisKind::Stack:
    return "stack";
  case AxisKind::Env:
    return "env";
  case AxisKind::Heap:
    return "heap";
  case AxisKind::FsSpacing:
    return "fs-spacing";
  }
  llvm_unreachable("unknown AxisKind");
}

std::optional<AxisKind> lookupAxis(StringRef Name) {
  return StringSwitch<std::optional<AxisKind>>(Name)
      .Case("code", AxisKind::Code)
      .Case("data", AxisKind::Data)
      .Case("stack", AxisKind::Stack)
      .Case("env", AxisKind::Env)
      .Case("heap", AxisKind::Heap)
      .Case("fs-spacing", AxisKind::FsSpacing)
      .Default(std::nullopt);
}

Expected<AxisKind> parseAxis(StringRef Name) {
  if (std::optional<AxisKind> K = lookupAxis(Name))
    return *K;
  return makeError("unknown --axis '{0}' (code, data, stack, env, heap, "
                   "fs-spacing)",
                   Name);
}

StringRef name(BackendKind K) {
  switch (K) {
  case BackendKind::Sim:
    return "sim";
  case BackendKind::Cachegrind:
    return "cachegrind";
  case BackendKind::Time:
    return "time";
  case BackendKind::Perf:
    return "perf";
  }
  llvm_unreachable("unknown BackendKind");
}

std::optional<BackendKind> lookupBackendKind(StringRef Name) {
  return StringSwitch<std::optional<BackendKind>>(Name)
      .Case("sim", BackendKind::Sim)
      .Case("cachegrind", BackendKind::Cachegrind)
      .Case("time", BackendKind::Time)
      .Case("perf", BackendKind::Perf)
      .Default(std::nullopt);
}

Expected<BackendKind> parseBackendKind(StringRef Name) {
  if (std::optional<BackendKind> K = lookupBackendKind(Name))
    return *K;
  return makeError("unknown --backend '{0}' (sim, cachegrind, time, perf)",
                   Name);
}

} // namespace sweep
} // namespace keel
