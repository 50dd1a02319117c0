//===- Plan.cpp - options, variants, work directory ----------------------===//
//
// What every sweep does before any variant is built (Plan.h).
//
//===----------------------------------------------------------------------===//
#include "Plan.h"

#include "keel/Support/Diagnostics.h"
#include "keel/Support/OutputFile.h"
#include "keel/Support/Process.h"
#include "keel/Sweep/Slurm.h"
#include "keel/Sweep/Executor.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"

using namespace llvm;

namespace keel {
namespace sweep {

Error checkOptions(const EngineOptions &O, ArrayRef<int64_t> Offsets) {
  if (Error E = validateGrid(O.G))
    return E;
  AxisKind Axis = O.Perturb.Axis;
  for (int64_t Off : Offsets) {
    if (Axis == AxisKind::Heap && (Off % 16 || Off > MaxHeapShift))
      return makeError("--axis=heap offsets must be multiples of 16 up to {0} "
                       "(malloc results stay 16-byte aligned); got {1}",
                       MaxHeapShift, Off);
    if (Axis == AxisKind::Stack && (Off % 16 || Off > MaxStackShift))
      return makeError("--axis=stack offsets must be multiples of 16 up to "
                       "{0} (the stack stays 16-byte aligned); got {1}",
                       MaxStackShift, Off);
    if (Axis == AxisKind::Env && Off > MaxEnvPad)
      return makeError("--axis=env offsets are environment bytes, at most "
                       "{0}; got {1}",
                       MaxEnvPad, Off);
  }
  if (!O.Frontend.empty() && O.Backend == BackendKind::Cachegrind)
    return makeError("--cost={0} weighs the events of keel-sim's front-end "
                     "model, which cachegrind does not count: it needs "
                     "--backend=sim (--backend=cachegrind takes "
                     "--cost=cachegrind only)",
                     O.Frontend);
  if (!O.Frontend.empty() && O.Backend != BackendKind::Sim)
    return makeError("--cost={0} weighs simulated events: it needs "
                     "--backend=sim",
                     O.Frontend);
  if (O.Executor == ExecutorKind::Slurm) {
    if (Error E = checkSlurmOptions(O))
      return E;
  } else if (O.Executor == ExecutorKind::Template) {
    if (!isSimBackend(O.Backend))
      return makeError("--executor runs variants elsewhere; only a "
                       "simulating backend (sim or cachegrind) measures there "
                       "(time and perf must measure on one machine)");
    if (Error E = checkExecutorTemplate(O.ExecutorTemplate))
      return E;
  }
  if (!O.ExecAs.empty() && O.ExecAs != "fd" && O.ExecAs != "path")
    return makeError("unknown --exec-as '{0}' (fd, path)", O.ExecAs);
  if (O.Resume && O.JournalPath.empty())
    return makeError("--resume needs a journal (--journal=FILE, or an output "
                     "file such as --json=FILE whose journal is FILE.journal)");
  return Error::success();
}

std::vector<Variant> gridVariants(const SweepTarget &T, AxisKind Axis,
                                  ArrayRef<int64_t> Offsets) {
  std::vector<Variant> Vs;
  std::vector<std::string> Series = {"base"};
  if (T.CompareBinary)
    Series.push_back("compare");
  for (const std::string &S : Series)
    for (int64_t Off : Offsets)
      Vs.push_back(Variant{S, axisName(Axis).str(), Off});
  return Vs;
}

Error makeWorkDir(const PlanOptions &O, WorkDirGuard &WD) {
  if (O.WorkDir.empty()) {
    Expected<std::string> D = makePrivateTempDir("layout-sweep");
    if (!D)
      return D.takeError();
    WD.Dir = *D;
    WD.Remove = true;
    return Error::success();
  }
  // Absolute, so relink commands that change directory still find {out}.
  SmallString<256> Abs(O.WorkDir);
  sys::fs::make_absolute(Abs);
  WD.Dir = Abs.str().str();
  return prepareOutputDir(WD.Dir);
}

/// \p O measuring its geometry number \p G alone (0: Geometry), with that
/// geometry's journal.
EngineOptions forGeometry(const EngineOptions &O, size_t G) {
  EngineOptions R = O;
  if (G > 0) {
    R.Geometry = O.MoreGeometries[G - 1];
    R.JournalPath =
        G - 1 < O.MoreJournalPaths.size() ? O.MoreJournalPaths[G - 1] : "";
    R.Progress = nullptr;
    R.Started = nullptr;
  }
  R.MoreGeometries.clear();
  R.MoreJournalPaths.clear();
  return R;
}

} // namespace sweep
} // namespace keel
