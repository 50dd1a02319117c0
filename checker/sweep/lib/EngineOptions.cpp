//===- EngineOptions.cpp - backend and executor names ---------------------===//
//
// The one place a backend's or an executor's name becomes its kind (at the
// option boundary) and a kind its name again (for the JSON, the journal's
// fingerprint and the messages, which keep the names users type); and the
// fingerprint itself.
//
//===----------------------------------------------------------------------===//
#include "keel/Sweep/EngineOptions.h"

#include "keel/Support/Diagnostics.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

using namespace llvm;

namespace keel {
namespace sweep {

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

Expected<BackendKind> parseBackendKind(StringRef Name) {
  std::optional<BackendKind> K =
      StringSwitch<std::optional<BackendKind>>(Name)
          .Case("sim", BackendKind::Sim)
          .Case("cachegrind", BackendKind::Cachegrind)
          .Case("time", BackendKind::Time)
          .Case("perf", BackendKind::Perf)
          .Default(std::nullopt);
  if (!K)
    return makeError("unknown --backend '{0}' (sim, cachegrind, time, perf)",
                     Name);
  return *K;
}

ExecutorKind parseExecutorKind(StringRef Value) {
  if (Value.empty())
    return ExecutorKind::Local;
  return Value == "slurm" ? ExecutorKind::Slurm : ExecutorKind::Template;
}

std::string execAsMode(const EngineOptions &O) {
  if (!O.ExecAs.empty())
    return O.ExecAs;
  return O.Executor == ExecutorKind::Template ? "path" : "fd";
}

std::string sweepFingerprint(const EngineOptions &O) {
  json::Object F{{"binary", O.Binary},
                 {"args", json::Array(O.Args)},
                 {"compare", O.CompareBinary ? *O.CompareBinary : ""},
                 {"backend", name(O.Backend)},
                 {"axis", O.Perturb.Axis},
                 {"relink", O.Perturb.RelinkTemplate},
                 {"compare_relink", O.Perturb.CompareRelinkTemplate},
                 {"bolt_pad", O.Perturb.BoltFunction},
                 {"env", json::Array(O.Perturb.ExtraEnv)},
                 {"geometry", isSimBackend(O.Backend) ? geometryText(O.Geometry) : ""},
                 {"exec_as", execAsMode(O)}};
  // A recorded link (the automatic sweep) only when there is one, so the
  // fingerprints of journals written before it existed do not change.
  // The stack axis moved the environment before it had its own shim (that
  // is the env axis now): a journal of that older stack sweep is not this.
  if (O.Perturb.Axis == "stack")
    F["stack_shift"] = "libkeelstackshift";
  // The front-end model's events (only when on: older fingerprints stay).
  if (O.Backend == BackendKind::Sim && !O.Frontend.empty())
    F["frontend"] = O.Frontend;
  if (!O.Perturb.RelinkArgv.empty())
    F["relink_argv"] = json::Array(O.Perturb.RelinkArgv);
  if (!O.Perturb.CompareRelinkArgv.empty())
    F["compare_relink_argv"] = json::Array(O.Perturb.CompareRelinkArgv);
  // Offset 0 as the recorded link itself, and the pads added to the link's
  // own value: a journal of a sweep that relinked otherwise is not this.
  if (!O.Perturb.RelinkZeroArgv.empty())
    F["relink_zero_argv"] = json::Array(O.Perturb.RelinkZeroArgv);
  if (!O.Perturb.CompareRelinkZeroArgv.empty())
    F["compare_relink_zero_argv"] = json::Array(O.Perturb.CompareRelinkZeroArgv);
  if (O.Perturb.RelinkPadBase)
    F["relink_pad_base"] = O.Perturb.RelinkPadBase;
  if (O.Perturb.CompareRelinkPadBase)
    F["compare_relink_pad_base"] = O.Perturb.CompareRelinkPadBase;
  std::string S;
  raw_string_ostream(S) << json::Value(std::move(F));
  return S;
}

} // namespace sweep
} // namespace keel
