//===- keel/Support/PerfEvent.h - do hardware counters work here -*- C++ -*-===//
//
// The one probe for "can this machine count": layout-sweep --backend=perf,
// layout-roofline and the recorder's tests ask it, and each words its own
// message from the errno it returns.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_SUPPORT_PERFEVENT_H
#define KEEL_SUPPORT_PERFEVENT_H

namespace keel {

/// Open, then close, a user-mode hardware cycle counter on this process
/// (perf_event_open: PERF_COUNT_HW_CPU_CYCLES, disabled, kernel and
/// hypervisor excluded). 0 when it opens, else perf_event_open's errno
/// (ENOENT/EOPNOTSUPP: no PMU, e.g. a VM without a virtual one;
/// EACCES/EPERM: perf_event_paranoid or a security policy).
int probeCycleCounter();

/// Whether perf_event_open works for hardware cycles on this machine:
/// probeCycleCounter() == 0.
bool hardwareCountersAvailable();

} // namespace keel

#endif
