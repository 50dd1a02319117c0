//===- PerfRun.cpp - one perf stat run of a variant -----------------------===//
//
// The perf backend's side of a variant (PerfRun.h): the counters it needs,
// the `perf stat -x,` command, and its CSV read back ("value,unit,event,..."
// one line per event).
//
//===----------------------------------------------------------------------===//
#include "keel/Sweep/PerfRun.h"

#include "keel/Support/Diagnostics.h"
#include "keel/Support/OutputFile.h"
#include "keel/Support/PerfEvent.h"
#include "keel/Sweep/Executor.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cerrno>
#include <cstring>

using namespace llvm;

namespace keel {
namespace sweep {

Error checkPerfCounters() {
  if (int Err = probeCycleCounter()) {
    std::string Why = Err == ENOENT || Err == EOPNOTSUPP
                          ? "this machine exposes no hardware cycle counter "
                            "(a VM without a virtual PMU?)"
                      : Err == EACCES || Err == EPERM
                          ? "not permitted (lower "
                            "/proc/sys/kernel/perf_event_paranoid)"
                          : "";
    return make_error<UnavailableError>(
        formatv("--backend=perf: perf_event_open(cycles) failed: {0}{1}{2}; "
                "use --backend=sim (cachegrind) instead",
                strerror(Err), Why.empty() ? "" : ": ", Why)
            .str());
  }
  return Error::success();
}

Measurement measurePerf(const ExecutorOptions &O, StringRef Perf,
                        const PreparedVariant &P) {
  std::string OutFile = P.Dir + "/perf.csv";
  std::vector<std::string> Cmd = {Perf.str(), "stat", "-x", ",", "-e",
                                  "cycles:u,instructions:u,branch-misses:u", "-o",
                                  OutFile, "--"};
  Cmd.insert(Cmd.end(), P.Argv.begin(), P.Argv.end());
  RunOutcome R = runVariantCommand(O, P, Cmd, P.Dir + "/stderr");
  if (R.Failed)
    return failedMeasurement(P.V, R.Reason);
  Expected<std::string> Text = readWholeFile(OutFile);
  if (!Text)
    return failedMeasurement(P.V, toString(Text.takeError()));
  Measurement M;
  M.V = P.V;
  for (StringRef Line : split(*Text, '\n')) {
    SmallVector<StringRef, 8> F;
    Line.split(F, ',');
    uint64_t V;
    if (F.size() < 3 || F[0].trim().getAsInteger(10, V))
      continue;
    StringRef Event = F[2].split(':').first;
    M.Counters[Event.str()] = static_cast<double>(V);
  }
  if (!M.Counters.count("cycles"))
    return failedMeasurement(P.V, "perf stat counted no cycles (see " + OutFile + ")");
  M.Cost = M.Counters["cycles"];
  M.Instructions = static_cast<uint64_t>(M.Counters["instructions"]);
  return M;
}

} // namespace sweep
} // namespace keel
