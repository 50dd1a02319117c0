//===- keel/Profile/Formats.h - profile readers and writers -----*- C++ -*-===//
//
// The profile formats Keel reads and writes. Each reader documents the
// format it parses in a comment at its implementation. Readers return
// InputError naming file:line for malformed input; data-quality problems
// (addresses outside the binary, ...) are counted in the QualityReport.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_PROFILE_FORMATS_H
#define KEEL_PROFILE_FORMATS_H

#include "keel/Profile/BranchProfile.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace keel {

class Binary;
namespace perfdata {
class File;
}

/// Options for reading `perf script -F ip,brstack` (and richer) text.
struct PerfScriptOptions {
  /// Keep every RawSample (for the time analyses); otherwise only aggregate.
  bool KeepSamples = false;
  /// Only samples of this pid (0: all).
  uint32_t Pid = 0;
  /// A single number before the entries is the pid (`perf script -F
  /// pid,brstack`, perf2bolt's form) rather than the leading IP (`-F
  /// ip,brstack`, llvm-profgen's form). Two numbers are always pid then IP.
  bool FirstFieldIsPid = false;
  /// The binary's path as the recording names it (its MMAP/MMAP2 records,
  /// perf script's PERF_RECORD_MMAP2 lines): a mapping of this path is the
  /// binary's whatever its file is now, for recordings without build ids
  /// (pipe mode, -z) of a binary since copied or renamed. "": match by
  /// build id, else by the file at the recorded path, else by file name.
  std::string BinaryPathInProfile;
};

/// perf script brstack text -> address profile (taken branches with counts
/// and mispredicts, fall-through ranges between consecutive entries, raw
/// samples with per-entry cycles). \p Bin, when given, is used to check
/// build-id prefixes and to drop ranges that leave the binary.
llvm::Expected<AddressProfile>
readPerfScript(llvm::StringRef Text, llvm::StringRef FileName,
               const Binary *Bin, QualityReport &Quality,
               const PerfScriptOptions &Opts = {});

/// readPerfScript on the file \p Path, read in chunks so that memory does
/// not grow with the size of the text.
llvm::Expected<AddressProfile>
readPerfScriptFile(llvm::StringRef Path, const Binary *Bin,
                   QualityReport &Quality, const PerfScriptOptions &Opts = {});

/// Linux perf's perf.data (file or pipe mode; keel/Profile/PerfData.h) ->
/// address profile, exactly as readPerfScript builds it from `perf script
/// -F pid,ip,brstack` of the same file. With \p Bin, the binary's mappings
/// (by build id, else by path) give the load bias per process.
llvm::Expected<AddressProfile>
readPerfData(llvm::StringRef Path, const Binary *Bin, QualityReport &Quality,
             const PerfScriptOptions &Opts = {});
/// readPerfData of a file already opened (e.g. from stdin). Reads it
/// (again) from the start.
llvm::Expected<AddressProfile>
readPerfData(perfdata::File &F, const Binary *Bin, QualityReport &Quality,
             const PerfScriptOptions &Opts = {});

/// BOLT fdata -> symbolic profile.
llvm::Expected<BranchProfile> readFdata(llvm::StringRef Text,
                                        llvm::StringRef FileName);
/// Symbolic profile -> BOLT fdata that `llvm-bolt -data=` accepts.
/// fdata has no range record: P.FallThroughs (ranges) is NOT written; use
/// symbolizeForFdata to turn ranges into BOLT's block-to-block edges first.
void writeFdata(const BranchProfile &P, llvm::raw_ostream &OS);

/// Symbolize \p AP for fdata as perf2bolt does: taken branches as in
/// symbolize(), and every fall-through range expanded into edges from the
/// last instruction of each basic block it crosses to the next block
/// (blocks found by disassembling \p Bin), added to Branches with 0
/// mispredicts. FallThroughs of the result is empty.
BranchProfile symbolizeForFdata(const AddressProfile &AP, const Binary &Bin,
                                QualityReport &Quality);

/// Executed instructions per function (by BOLT name) that an fdata
/// profile implies, as BOLT sees it: each basic block's count is the sum of
/// the records entering it at its start (branches, fall-through edges,
/// entries into the function), times its instruction count.
std::map<std::string, uint64_t>
fdataExecutedInstructions(const BranchProfile &P, const Binary &Bin,
                          QualityReport &Quality);

/// BOLT pre-aggregated text (perf2bolt --pa) -> address profile.
llvm::Expected<AddressProfile> readPreAggregated(llvm::StringRef Text,
                                                 llvm::StringRef FileName,
                                                 const Binary *Bin,
                                                 QualityReport &Quality);
/// Address profile -> BOLT pre-aggregated text.
void writePreAggregated(const AddressProfile &P, llvm::raw_ostream &OS);

/// callgrind output (--collect-jumps=yes --dump-instr=yes) -> address
/// profile with exact taken-branch counts and fall-through ranges rebuilt
/// by disassembling \p Bin.
llvm::Expected<AddressProfile> readCallgrind(llvm::StringRef Text,
                                             llvm::StringRef FileName,
                                             const Binary &Bin,
                                             QualityReport &Quality);

} // namespace keel

#endif
