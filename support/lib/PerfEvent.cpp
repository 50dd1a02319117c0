//===- PerfEvent.cpp - do hardware counters work here ---------------------===//
#include "keel/Support/PerfEvent.h"

#include <cerrno>
#include <cstring>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace keel {

int probeCycleCounter() {
  perf_event_attr A;
  std::memset(&A, 0, sizeof(A));
  A.size = sizeof(A);
  A.type = PERF_TYPE_HARDWARE;
  A.config = PERF_COUNT_HW_CPU_CYCLES;
  A.disabled = 1;
  A.exclude_kernel = 1;
  A.exclude_hv = 1;
  long Fd = syscall(SYS_perf_event_open, &A, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
  if (Fd < 0)
    return errno;
  close(static_cast<int>(Fd));
  return 0;
}

bool hardwareCountersAvailable() { return probeCycleCounter() == 0; }

} // namespace keel
