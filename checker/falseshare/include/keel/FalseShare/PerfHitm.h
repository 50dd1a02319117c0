//===- keel/FalseShare/PerfHitm.h - HITM sampling -> keelfs report -*- C++ -*-===//
//
// False sharing with hardware counters, in the style of perf c2c: a
// recording of precise memory samples (keelRecord, RecordOptions::
// MemorySamples: data address, data source, latency, thread, IP) is turned
// into the same per-(cache line, thread) report libkeelfs.so writes, so
// `layout-falseshare report` classifies, names and fixes it exactly as it
// does for the instrumented (PMU-free) path.
//
// The data source is the kernel's union perf_mem_data_src
// (<linux/perf_event.h>): mem_op bits 0-4, mem_lvl 5-18, mem_snoop 19-23,
// mem_lock 24-25, mem_dtlb 26-32, mem_lvl_num 33-36, mem_remote 37,
// mem_snoopx 38-39, mem_blk 40-42, mem_hops 43-45. A load that found its
// line Modified in another core's cache has mem_snoop HITM; Intel reports
// it with mem_lvl L3 hit (the other core is on this socket: "local HITM")
// or REM_CCE1/2 / mem_remote (another socket: "remote HITM"). Samples of
// an event that counts only such loads (MEM_LOAD_L3_HIT_RETIRED.XSNP_HITM,
// XSNP_FWD on Ice Lake and later) are HITMs whatever their data source
// says (the kernel fills only mem_op for them).
//
// Lines kept: those with at least one HITM sample (what perf c2c lists);
// every sample of any thread on such a line counts. Per sample: the bytes
// [addr, addr + size) of the line are read (a load) or written (a store);
// a load whose instruction also writes memory (x86 `incl (mem)`, `add
// %eax, (mem)`) is a read and a write. The size comes from the
// instruction's operand width when the binary says (x86 8/16/32/64-bit
// forms), else 1 byte. Counts are samples times their period.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_FALSESHARE_PERFHITM_H
#define KEEL_FALSESHARE_PERFHITM_H

#include "keel/FalseShare/Report.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>

namespace keel {
class Binary;
struct PerfRecording;
} // namespace keel

namespace keel::fs {

/// union perf_mem_data_src, decoded.
struct DataSource {
  uint64_t Raw = 0;
  explicit DataSource(uint64_t Raw) : Raw(Raw) {}
  unsigned op() const { return Raw & 0x1f; }
  unsigned lvl() const { return (Raw >> 5) & 0x3fff; }
  unsigned snoop() const { return (Raw >> 19) & 0x1f; }
  unsigned lock() const { return (Raw >> 24) & 0x3; }
  unsigned lvlNum() const { return (Raw >> 33) & 0xf; }
  bool remote() const { return (Raw >> 37) & 1; }
  unsigned snoopX() const { return (Raw >> 38) & 0x3; }
  unsigned hops() const { return (Raw >> 43) & 0x7; }

  bool isLoad() const;
  bool isStore() const;
  /// Snoop hit Modified: the line was dirty in another core's cache.
  bool hitm() const;
  /// A HITM served from another socket (REM_CCE1/2, or mem_remote).
  bool remoteHitm() const;
  /// Data forwarded from a peer cache (mem_snoopx PEER: Arm, AMD IBS).
  bool peer() const;
  /// As perf prints it: "L3 hit, snoop HITM", "L1 hit", "N/A".
  std::string describe() const;
};

struct HitmOptions {
  unsigned LineSize = 64;
  /// The sampling event counts only HITM loads (XSNP_HITM / XSNP_FWD).
  bool EventIsHitm = false;
  /// Treat peer-cache forwards as HITM (no HITM snoop on Arm / AMD IBS).
  bool PeerIsHitm = false;
  /// Keep every line with samples of two or more threads, not only lines
  /// with a HITM.
  bool AllLines = false;
};

/// Whether an event name counts only loads that hit a Modified line in
/// another core (so every sample is a HITM).
bool eventCountsOnlyHitm(llvm::StringRef Event);

struct HitmStats {
  uint64_t Samples = 0;      ///< samples in the recording
  uint64_t Memory = 0;       ///< with a data address in the program
  uint64_t Loads = 0, Stores = 0;
  uint64_t Hitm = 0, RemoteHitm = 0;
  uint64_t OtherProcess = 0; ///< of another pid than the program's
  uint64_t NoAddress = 0;    ///< without a data address
  uint64_t Lines = 0, HitmLines = 0;
};

/// Turn \p Rec into a keelfs report of \p Exe's process (the first pid
/// that exec'd it, else the first pid with samples). \p Exe (may be null)
/// gives the load bias, the access sizes and the source sites; \p ExePath
/// is written as the report's `exe`.
llvm::Expected<RawReport> hitmReport(const PerfRecording &Rec,
                                     const Binary *Exe,
                                     llvm::StringRef ExePath,
                                     const HitmOptions &Opts,
                                     HitmStats &Stats);

/// Write \p R in libkeelfs.so's text format (parseRawReport reads it back).
void writeRawReport(const RawReport &R, llvm::raw_ostream &OS);

} // namespace keel::fs

#endif
