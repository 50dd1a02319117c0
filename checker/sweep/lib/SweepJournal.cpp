//===- SweepJournal.cpp - the journal phase ------------------------------===//
//
// The journal of one sweep (SweepJournal.h): opened under the sweep's
// fingerprint (EngineOptions.h), what it already holds kept.
//
//===----------------------------------------------------------------------===//
#include "SweepJournal.h"

#include "keel/Support/Diagnostics.h"
#include "keel/Support/OutputFile.h"
#include "keel/Support/Process.h"

#include "llvm/Support/JSON.h"

#include <set>

using namespace llvm;

namespace keel {
namespace sweep {

/// Measurements found in the journal that belong to this grid, with the
/// cost recomputed under the current weights (the journal keeps counters).
std::vector<Measurement> reuseJournal(const MeasureOptions &O,
                                      std::vector<Measurement> Done,
                                      const std::vector<Variant> &Grid) {
  std::set<Variant> InGrid(Grid.begin(), Grid.end());
  std::vector<Measurement> Keep;
  for (Measurement &M : Done) {
    if (!InGrid.count(M.V))
      continue;
    if (!M.Failed && isSimBackend(O.Backend))
      M.Cost = costOf(M.Counters, O.Weights);
    Keep.push_back(std::move(M));
  }
  return Keep;
}

/// The sweep's journal (none without a path), and in \p Done what an earlier
/// run of it finished that this grid still has.
Expected<std::unique_ptr<Journal>>
openJournal(const JournalOptions &O, StringRef Fingerprint,
            const MeasureOptions &M, ArrayRef<Variant> All,
            std::vector<Measurement> &Done) {
  std::unique_ptr<Journal> J;
  if (!O.JournalPath.empty()) {
    Expected<std::unique_ptr<Journal>> JO = Journal::open(
        O.JournalPath, Fingerprint, O.Resume, O.OverwriteJournal, Done);
    if (!JO)
      return JO.takeError();
    J = std::move(*JO);
  }
  Done = reuseJournal(M, std::move(Done), All);
  return std::move(J);
}

} // namespace sweep
} // namespace keel
