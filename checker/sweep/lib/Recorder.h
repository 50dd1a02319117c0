//===- Recorder.h - where measurements go -----------------------*- C++ -*-===//
//
// The engine's phases hand every finished measurement to a Recorder (the
// journal first, then the in-memory result and the progress callback), and
// a Todo lists the variants still to measure with their grid index.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_SWEEP_LIB_RECORDER_H
#define KEEL_SWEEP_LIB_RECORDER_H

#include "keel/Support/Process.h"
#include "keel/Sweep/EngineOptions.h"
#include "keel/Sweep/Journal.h"
#include "keel/SweepReport/Result.h"

#include "llvm/Support/Error.h"

#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace keel {
namespace sweep {

/// Collects finished measurements from worker threads: journal first (so a
/// kill right after loses nothing reported), then the in-memory list and the
/// progress callback. The first error wins; later ones are dropped.
class Recorder {
public:
  Recorder(const ProgressHooks &O, Journal *J, std::vector<Measurement> Done,
           size_t Total)
      : O(O), J(J), Results(std::move(Done)), Total(Total) {}

  /// Variants this recorder already has (several geometries: a variant
  /// measured again for another geometry's journal).
  void skip(std::set<Variant> S) { Skip = std::move(S); }
  void record(Measurement M) {
    // A variant a signal stopped is not measured: never journal it.
    if (Skip.count(M.V) || stopSignal())
      return;
    llvm::Error JE = J ? J->append(M) : llvm::Error::success();
    std::lock_guard<std::mutex> G(Lock);
    keep(std::move(JE));
    Results.push_back(std::move(M));
    if (O.Progress)
      O.Progress(Results.size(), Total);
  }
  void fail(llvm::Error E) {
    if (stopSignal()) // what the stop broke is not the sweep's error
      return consumeError(std::move(E));
    std::lock_guard<std::mutex> G(Lock);
    keep(std::move(E));
  }
  /// Variants measured, this run's and the journal's.
  size_t done() {
    std::lock_guard<std::mutex> G(Lock);
    return Results.size();
  }
  /// A variant's binary of \p Series (the first one wins), read for its
  /// symbols before the work directory goes away.
  void binarySeen(llvm::StringRef Series, llvm::StringRef Path) {
    std::lock_guard<std::mutex> G(Lock);
    Binaries.try_emplace(Series.str(), Path.str());
  }
  std::map<std::string, std::string> takeBinaries() {
    return std::move(Binaries);
  }
  /// Each base variant's binary by offset (the data axis' code check).
  void variantBuilt(const Variant &V, llvm::StringRef Path) {
    if (V.Series != "base")
      return;
    std::lock_guard<std::mutex> G(Lock);
    Built[V.Offset] = Path.str();
  }
  std::map<int64_t, std::string> takeBuilt() { return std::move(Built); }
  llvm::Error takeError() { return std::move(FirstError); }
  std::vector<Measurement> takeResults() { return std::move(Results); }

private:
  void keep(llvm::Error E) {
    if (!E)
      return;
    if (FirstError)
      consumeError(std::move(E));
    else
      FirstError = std::move(E);
  }

  const ProgressHooks &O;
  Journal *J;
  std::mutex Lock;
  std::vector<Measurement> Results;
  std::map<std::string, std::string> Binaries;
  std::map<int64_t, std::string> Built;
  std::set<Variant> Skip;
  size_t Total;
  llvm::Error FirstError = llvm::Error::success();
};

using Todo = std::vector<std::pair<unsigned, Variant>>;

} // namespace sweep
} // namespace keel

#endif
