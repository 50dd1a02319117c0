//===- keel/SweepReport/Kinds.h - axes and backends as kinds ----------*- C++ -*-===//
//
// The perturbation axis and the measuring backend are chosen by name on the
// command line and written by name in the JSON, CSV, journal and messages;
// everything in between decides on a kind. The names become kinds here, once,
// where the options are parsed, and kinds become names again only where they
// are printed or written.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_SWEEPREPORT_KINDS_H
#define KEEL_SWEEPREPORT_KINDS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>

namespace keel {
namespace sweep {

/// --axis: what a variant moves (Result.h lists what each one means).
enum class AxisKind { Code, Data, Stack, Env, Heap, FsSpacing };

/// The option's spelling of each axis, the one the JSON, CSV and journal
/// keep: "code", "data", "stack", "env", "heap", "fs-spacing".
llvm::StringRef axisName(AxisKind K);
/// --axis=NAME; an error naming the choices for any other name.
llvm::Expected<AxisKind> parseAxis(llvm::StringRef Name);
/// The axis of a variant read back or made by a backend: std::nullopt for a
/// name that is no --axis (the time backend's A/A copies, "aa").
std::optional<AxisKind> lookupAxis(llvm::StringRef Name);

/// Code, data and fs-spacing move the layout, so each variant is relinked;
/// the others run the binary as it is.
inline bool isLayoutAxis(AxisKind K) {
  return K == AxisKind::Code || K == AxisKind::Data ||
         K == AxisKind::FsSpacing;
}

/// --backend: how each variant is measured (one kind, one way to measure;
/// the engine compares kinds, never names). Sim and Cachegrind simulate
/// (deterministic counts: both give a result whose backend is "sim", the same
/// counters, cost model and JSON); Time and Perf measure the machine.
enum class BackendKind { Sim, Cachegrind, Time, Perf };

/// The option's spelling of each kind (and of each in the journal's
/// fingerprint and the dry run): "sim", "cachegrind", "time", "perf".
llvm::StringRef name(BackendKind K);
/// --backend=NAME; an error naming the choices for any other name.
llvm::Expected<BackendKind> parseBackendKind(llvm::StringRef Name);
/// A saved result's backend ("sim", "time" or "perf"; SweepResult::Backend):
/// std::nullopt for any other name.
std::optional<BackendKind> lookupBackendKind(llvm::StringRef Name);

/// Sim or Cachegrind: the deterministic backends.
inline bool isSimBackend(BackendKind K) {
  return K == BackendKind::Sim || K == BackendKind::Cachegrind;
}

} // namespace sweep
} // namespace keel

#endif
