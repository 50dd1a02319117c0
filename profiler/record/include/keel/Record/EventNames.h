//===- keel/Record/EventNames.h - hardware event names -> encodings -*- C++ -*-===//
//
// Kept apart from EventGroup.h because libpfm4 ships its own copy of
// struct perf_event_attr (perfmon/perf_event.h) that clashes with the
// kernel's <linux/perf_event.h>: only EventNames.cpp sees libpfm4.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_RECORD_EVENTNAMES_H
#define KEEL_RECORD_EVENTNAMES_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace keel {

/// A hardware event resolved to what perf_event_open needs.
struct EventEncoding {
  std::string Name;     ///< as the user spelled it
  std::string FullName; ///< libpfm4's fully qualified name, or Name
  uint32_t Type = 0;
  uint64_t Config = 0, Config1 = 0, Config2 = 0;
  /// AMD Fam19h branch sampling (BRS): the event is retired taken
  /// branches on an amd64_fam19h PMU; the kernel then wants a fixed period
  /// and the "any" filter.
  bool IsAMDBRS = false;
};

/// Resolve \p Name: the generic names (cycles, instructions, branches,
/// branch-misses; the software clocks cpu-clock and task-clock) directly, everything else through libpfm4
/// (pfm_get_os_event_encoding with PFM_OS_PERF_EVENT_EXT). Intel-style
/// "EVENT.UMASK" is accepted for libpfm4's "EVENT:UMASK". When libpfm4 finds
/// no hardware PMU at all the error is an UnavailableError.
llvm::Expected<EventEncoding> encodeEvent(llvm::StringRef Name);

} // namespace keel

#endif
