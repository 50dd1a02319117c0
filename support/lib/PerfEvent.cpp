//===- PerfEvent.cpp - do hardware counters work here ---------------------===//
#include "keel/Support/PerfEvent.h"

#include <cerrno>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace keel {

int probeCycleCounter() {
  perf_event_attr A{}; // every other field 0
  A.size = sizeof(A);
  A.type = PERF_TYPE_HARDWARE;
  A.config = PERF_COUNT_HW_CPU_CYCLES;
  A.disabled = A.exclude_kernel = A.exclude_hv = 1;
  long Fd = syscall(SYS_perf_event_open, &A, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
  if (Fd < 0)
    return errno;
  close(static_cast<int>(Fd));
  return 0;
}

bool hardwareCountersAvailable() { return probeCycleCounter() == 0; }

} // namespace keel
