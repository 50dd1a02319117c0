//===- keel/Profile/BranchProfile.h - the branch-profile model ---*- C++ -*-===//
//
// Two levels, as in BOLT:
//  - AddressProfile: what a collector saw, by runtime-independent link-time
//    address: taken branches (from -> to, count, mispredicts), fall-through
//    ranges (start .. end, both instruction addresses, executed in order),
//    IP samples (no-LBR mode), and the raw LBR samples kept for the time
//    analyses (block table and time line, docs/lbr-analyses.md).
//  - BranchProfile: the same edges symbolized as (function, offset)
//    locations, the form BOLT's fdata stores and the planner reads. It
//    round-trips through fdata exactly.
// Both use ordered containers so every output is deterministic.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_PROFILE_BRANCHPROFILE_H
#define KEEL_PROFILE_BRANCHPROFILE_H

#include "keel/Support/Diagnostics.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace keel {

class Binary;

/// One LBR entry as perf reports it (brstack "FROM/TO/M|P|-/X|-/A|-/CYC").
struct LBREntry {
  uint64_t From = 0, To = 0;
  bool Mispred = false, Predicted = false, InTx = false, Abort = false;
  uint32_t Cycles = 0;  ///< per-entry cycle count (0 = not reported)
  std::string Type;     ///< branch type when reported (COND, CALL, RET, ...)
};

/// One sample: a leading IP and its branch stack, newest entry first, plus
/// the per-sample counter deltas when the collector read them.
struct RawSample {
  uint64_t IP = 0;
  uint32_t Pid = 0, Tid = 0;
  uint64_t Time = 0;        ///< ns, 0 if unknown
  std::string Event;        ///< event name, "" if not given
  uint64_t Cycles = 0;      ///< cycles since the previous sample (0: unknown)
  uint64_t Instructions = 0;///< instructions since the previous sample
  std::vector<LBREntry> Stack; ///< newest first
};

/// A += B saturating at UINT64_MAX (profile counts never wrap).
inline void addCount(uint64_t &A, uint64_t B) { A = llvm::SaturatingAdd(A, B); }

struct BranchCount {
  uint64_t Count = 0;
  uint64_t Mispreds = 0;
  /// Saturating: counts from huge or many profiles stick at UINT64_MAX
  /// instead of wrapping around to small numbers.
  BranchCount &operator+=(const BranchCount &O) {
    Count = llvm::SaturatingAdd(Count, O.Count);
    Mispreds = llvm::SaturatingAdd(Mispreds, O.Mispreds);
    return *this;
  }
  bool operator==(const BranchCount &O) const {
    return Count == O.Count && Mispreds == O.Mispreds;
  }
};

/// Address-level profile (link-time addresses of one binary).
struct AddressProfile {
  std::string BuildID;                       ///< "" if unknown
  std::map<std::pair<uint64_t, uint64_t>, BranchCount> Branches;
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> FallThroughs;
  std::map<uint64_t, uint64_t> IPSamples;    ///< no-LBR samples
  std::vector<RawSample> Samples;            ///< raw, in input order
  /// Caller -> callee arcs of sampled callchains (perf record -g) without
  /// branch stacks (keel/Profile/CallChain.h): (caller, callee) by the
  /// link-time entry of each function when read with a binary, else by the
  /// call site and the callee's frame address; each pair once per sample,
  /// weighted by the sample's period (1 when it has none).
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> CallChainArcs;
  uint64_t NumSamples = 0;                   ///< samples read (even if not kept)
  uint64_t NumEntries = 0;                   ///< LBR entries read (perf script)
  uint64_t NumCallChains = 0;                ///< samples with a callchain read

  void merge(const AddressProfile &O);
};

/// A location in BOLT's sense: a symbol and an offset into it, or (when
/// IsSymbol is false) an absolute address outside any known symbol.
struct Location {
  bool IsSymbol = true;
  std::string Name;   ///< symbol name; BOLT spells locals "name/N" or "file/name"
  uint64_t Offset = 0;
  /// fdata spelled the kind as 2 (legacy "local symbol"); kept only so that
  /// fdata round-trips byte for byte. Not part of the key.
  bool LocalKind = false;

  auto key() const { return std::tie(IsSymbol, Name, Offset); }
  bool operator<(const Location &O) const { return key() < O.key(); }
  bool operator==(const Location &O) const { return key() == O.key(); }
};

/// A memory access sample (fdata kinds 3/4): instruction location -> data
/// location, with a count.
struct MemAccess {
  Location Inst, Data;
  auto key() const { return std::tie(Inst, Data); }
  bool operator<(const MemAccess &O) const { return key() < O.key(); }
};

/// Symbolic profile, as BOLT's fdata holds it.
struct BranchProfile {
  std::string BuildID;
  bool NoLBR = false;            ///< IP-sample mode ("no_lbr <events>")
  std::string NoLBREvents;       ///< the event names after "no_lbr"
  bool BoltedCollection = false; ///< "boltedcollection": profile of a BOLTed binary
  std::map<std::pair<Location, Location>, BranchCount> Branches;
  std::map<std::pair<Location, Location>, uint64_t> FallThroughs;
  std::map<Location, uint64_t> Samples;  ///< no_lbr: IP -> count
  std::map<MemAccess, uint64_t> MemAccesses;
  /// AddressProfile::CallChainArcs by function (offsets 0). fdata has no
  /// record for them: writeFdata leaves them out.
  std::map<std::pair<Location, Location>, uint64_t> CallChainArcs;

  void merge(const BranchProfile &O);
  bool empty() const {
    return Branches.empty() && FallThroughs.empty() && Samples.empty() &&
           MemAccesses.empty() && CallChainArcs.empty();
  }
};

/// Per-function totals, the input of hot-function reports and the planner.
struct FunctionStats {
  std::string Name;
  uint64_t Addr = 0, Size = 0;
  uint64_t Instructions = 0; ///< executed instructions (from ranges/samples)
  uint64_t Samples = 0;      ///< IP samples or branch-source counts
  uint64_t Calls = 0;        ///< incoming call count
};

/// A weighted call edge caller -> callee.
struct CallEdge {
  std::string Caller, Callee;
  uint64_t Count = 0;
};

/// Symbolize an address profile with \p Bin: branch and fall-through ends
/// become (function, offset); addresses outside every function stay
/// absolute (IsSymbol=false) and are counted in \p Quality.
BranchProfile symbolize(const AddressProfile &AP, const Binary &Bin,
                        QualityReport &Quality);

/// Turn a symbolic profile back into addresses of \p Bin (for analyses that
/// disassemble). Locations naming unknown symbols are counted in \p Quality.
AddressProfile resolve(const BranchProfile &P, const Binary &Bin,
                       QualityReport &Quality);

/// Per-function executed instructions (fall-through ranges disassembled and
/// counted), sample counts and incoming calls, sorted hottest first.
llvm::Expected<std::vector<FunctionStats>>
functionStats(const AddressProfile &AP, const Binary &Bin,
              QualityReport &Quality);

/// What a profile's call edges come from: its taken branches (LBR, or
/// valgrind's exact calls and jumps), else its callchain arcs, else none.
enum class CallEdgeSource { None, Branches, CallChains };
CallEdgeSource callEdgeSource(const AddressProfile &AP);

/// Call edges, aggregated per (caller, callee), hottest first. From the
/// taken branches whose source instruction is a call (per disassembly) or
/// that land on a function entry from another function; a profile without
/// taken branches gives its callchain arcs instead (callEdgeSource).
std::vector<CallEdge> callEdges(const AddressProfile &AP, const Binary &Bin);

} // namespace keel

#endif
