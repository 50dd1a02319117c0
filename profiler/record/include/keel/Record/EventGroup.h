//===- keel/Record/EventGroup.h - perf_event_attr for LBR sampling -*- C++ -*-===//
//
// What `layout-record --source=perf` asks the kernel for, as plain data:
// a group whose leader samples (IP, TID, TIME, CPU, PERIOD, the branch
// stack, and a read of the whole group) and whose members count cycles and
// instructions, so every sample carries the counter deltas since the
// previous one — the per-sample CPI of Yamamoto et al.
// (docs/references.md). The branch stack filter defaults to every taken
// branch (what layout needs); the "user-callret" preset is the user-mode
// call+return filter that Yamamoto et al. and Ono et al. recorded.
//
// Building the attributes is separate from opening them, so tests can check
// every bit on a machine without counters.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_RECORD_EVENTGROUP_H
#define KEEL_RECORD_EVENTGROUP_H

#include "keel/Record/EventNames.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <linux/perf_event.h>

#include <cstdint>
#include <string>
#include <vector>

namespace keel {

/// Options of one recording (the command-line options of layout-record).
struct RecordOptions {
  /// Sampling event (group leader): "cycles", "instructions", "branches", or
  /// a libpfm4 name such as "BR_INST_RETIRED.NEAR_TAKEN" or AMD's
  /// "RETIRED_TAKEN_BRANCH_INSTRUCTIONS" (BRS).
  std::string Event = "cycles";
  /// Counting members read with every sample (Yamamoto et al.'s two extra
  /// PMCs).
  /// Empty: no CPI. A member equal to the leader is not opened twice.
  std::string CyclesEvent = "cycles";
  std::string InstructionsEvent = "instructions";
  /// Exactly one of Period and Freq is non-zero. The default, 10 kHz, is
  /// the 100 us sampling interval of Ono et al.
  uint64_t Period = 0;
  uint64_t Freq = 10000;
  /// Branch-stack filter as given to --lbr ("any", "user-callret",
  /// "call,return", "any,user,kernel", "none"); see parseBranchFilter.
  std::string LBR = "any";
  /// Count and sample kernel code too (needs perf_event_paranoid <= 1).
  bool Kernel = false;
  /// Follow threads and child processes.
  bool Inherit = true;
  /// Also record mappings of non-executable files (PERF_RECORD_MMAP2 for
  /// data), for data-layout work.
  bool DataMmaps = false;
  /// Data pages of each ring buffer (a power of two). 128 (512 KiB), as
  /// perf record: unprivileged users may lock perf_event_mlock_kb (516 KiB)
  /// per CPU, and there is one buffer per CPU.
  unsigned MmapPages = 128;
  /// Memory-access sampling (perf mem / perf c2c style): the leader is a
  /// precise (PEBS, precise_ip 2) load or store event and every sample
  /// carries the data address, the data source and the latency
  /// (PERF_SAMPLE_ADDR | DATA_SRC | WEIGHT). Needs LBR "none"; no counting
  /// members are read.
  bool MemorySamples = false;
};

/// --lbr value -> PERF_SAMPLE_BRANCH_* bits (0 for "none"). Words:
/// any, call, return, ind_call, user, kernel, and the preset "user-callret"
/// (= call,return,user). Without
/// user/kernel the privilege follows RecordOptions::Kernel. Unknown words
/// are an error naming them.
llvm::Expected<uint64_t> parseBranchFilter(llvm::StringRef Spec, bool Kernel);

/// What a counter in the group measures.
enum class CounterRole { Sample, Cycles, Instructions };

struct GroupMember {
  EventEncoding Event;
  /// Every role this counter plays (the leader may also be the cycles
  /// counter when the sampling event is cycles).
  std::vector<CounterRole> Roles;
  perf_event_attr Attr;
};

/// The event group: Members[0] is the sampling leader.
struct EventGroup {
  std::vector<GroupMember> Members;
  uint64_t BranchFilter = 0; ///< 0: no branch stack
  /// The read_format / sample_type every record parser needs.
  uint64_t sampleType() const { return Members[0].Attr.sample_type; }
  uint64_t readFormat() const { return Members[0].Attr.read_format; }
};

/// The sample_type of a MemorySamples group (what buildEventGroup sets), so
/// recorded memory samples can be parsed without libpfm4 (replays).
uint64_t memorySampleType();

/// Build the attributes for \p Opts (no system call is made).
llvm::Expected<EventGroup> buildEventGroup(const RecordOptions &Opts);

/// The --lbr spelling of a filter, for headers and messages: "any,user".
std::string branchFilterName(uint64_t Filter);

} // namespace keel

#endif
