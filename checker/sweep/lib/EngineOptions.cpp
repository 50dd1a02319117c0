//===- EngineOptions.cpp - executor names, the journal's fingerprint ------===//
//
// The one place an executor's name becomes its kind (at the option boundary;
// the backend's and the axis' are Kinds.cpp's), and the journal's
// fingerprint, which keeps the names users type.
//
//===----------------------------------------------------------------------===//
#include "keel/Sweep/EngineOptions.h"

#include "keel/Support/Diagnostics.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace keel {
namespace sweep {

ExecutorKind parseExecutorKind(StringRef Value) {
  if (Value.empty())
    return ExecutorKind::Local;
  return Value == "slurm" ? ExecutorKind::Slurm : ExecutorKind::Template;
}

std::string execAsMode(const ExecutorOptions &O) {
  if (!O.ExecAs.empty())
    return O.ExecAs;
  return O.Executor == ExecutorKind::Template ? "path" : "fd";
}

std::string sweepFingerprint(const EngineOptions &O) {
  json::Object F{{"binary", O.Binary},
                 {"args", json::Array(O.Args)},
                 {"compare", O.CompareBinary ? *O.CompareBinary : ""},
                 {"backend", name(O.Backend)},
                 {"axis", axisName(O.Perturb.Axis)},
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
  if (O.Perturb.Axis == AxisKind::Stack)
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
