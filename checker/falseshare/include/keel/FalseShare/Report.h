//===- keel/FalseShare/Report.h - false-sharing reports ---------*- C++ -*-===//
//
// The runtime of KeelFalseSharing.so (libkeelfs.so) writes, at exit, one
// record per (cache line, thread):
//
//   keel-fs 1
//   line-size 64
//   sample 1
//   exe /path/to/program
//   bias 0x555555554000
//   threads 3
//   dropped 0 0 0                 (lines: table full, slots full, sites)
//   access 0x5555555580c0 2 0x<read mask> 0x<write mask> READS WRITES
//   site COUNT LINE COL FUNCTION FILE      (up to 4 per access record)
//   alloc 0x5555555592a0 16 LINE COL FUNCTION FILE   (heap objects)
//   end
//
// Bit i of a mask is byte i of the line. This header parses that text and
// classifies lines:
//  * true sharing: some byte written by one thread is read or written by
//    another (the data itself is shared; padding cannot help);
//  * false sharing: two threads write the line and no byte one writes is
//    touched by the other (padding them apart removes the traffic);
//  * mixed: both kinds of pair on the same line.
// Threads with fewer than MinAccesses accesses to a line (scaled by the
// sampling period) are ignored there: a thread that initialises or sums
// the data once does not make it shared.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_FALSESHARE_REPORT_H
#define KEEL_FALSESHARE_REPORT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace keel::fs {

struct SiteCount {
  uint64_t Count = 0;
  unsigned Line = 0, Col = 0;
  std::string Function, File;
};

struct ThreadAccess {
  uint32_t Tid = 0;
  uint64_t RMask = 0, WMask = 0;
  uint64_t Reads = 0, Writes = 0; ///< already scaled by the sampling period
  std::vector<SiteCount> Sites;
  uint64_t accesses() const { return Reads + Writes; }
};

struct LineRecord {
  uint64_t Addr = 0; ///< run-time address of the line
  std::vector<ThreadAccess> Threads; ///< sorted by Tid
};

/// A heap allocation (libkeelfs records those overlapping a line that two
/// or more threads touched): run-time start, bytes, allocating site.
struct HeapAlloc {
  uint64_t Start = 0, Size = 0;
  SiteCount Site; ///< Count unused
};

struct RawReport {
  unsigned LineSize = 64;
  unsigned Sample = 1;
  std::string Exe;
  uint64_t Bias = 0;
  unsigned Threads = 0;
  uint64_t DroppedLines = 0, DroppedSlots = 0, DroppedSites = 0;
  std::vector<LineRecord> Lines; ///< sorted by address
  std::vector<HeapAlloc> Allocs; ///< sorted by start
};

/// Parse a runtime report; errors name \p FileName:line.
llvm::Expected<RawReport> parseRawReport(llvm::StringRef Text,
                                         llvm::StringRef FileName);

enum class Sharing { None, True, False, Mixed };
llvm::StringRef sharingName(Sharing S);

struct LineVerdict {
  Sharing Kind = Sharing::None;
  /// Thread pairs (by index into LineRecord::Threads) of each kind.
  std::vector<std::pair<unsigned, unsigned>> FalsePairs, TruePairs;
};

/// Classify one line; only threads with >= MinAccesses accesses count.
LineVerdict classifyLine(const LineRecord &L, uint64_t MinAccesses);

/// A run of consecutive bytes one thread wrote (run-time addresses,
/// [Start, End)), merged across adjacent lines.
struct WriteRun {
  uint64_t Start = 0, End = 0;
  uint32_t Tid = 0;
  uint64_t Writes = 0;
};
std::vector<WriteRun> writeRuns(const RawReport &R, uint64_t MinAccesses);

/// Latent false sharing: runs A (lower) and B written by different threads
/// that lie in different lines now but closer than a line: B.Start -
/// (A.End - 1) < LineSize, so some other placement of the data puts a
/// byte of each on one line.
struct LatentPair {
  WriteRun A, B;
};
std::vector<LatentPair> latentPairs(const std::vector<WriteRun> &Runs,
                                    unsigned LineSize);

/// "0-3,8-11" for the set bits of a mask.
std::string maskRanges(uint64_t Mask);

} // namespace keel::fs

#endif
