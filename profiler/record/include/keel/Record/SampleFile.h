//===- keel/Record/SampleFile.h - the keel-samples file ----------*- C++ -*-===//
//
// The file `layout-record --source=perf` writes and every sample analysis
// reads: a versioned, line-oriented text form of a PerfRecording (format in
// docs/formats/keel-samples.md). Runtime addresses are kept as recorded,
// with the mapping table beside them; toAddressProfile turns one binary's
// share into link-time addresses.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_RECORD_SAMPLEFILE_H
#define KEEL_RECORD_SAMPLEFILE_H

#include "keel/Profile/BranchProfile.h"
#include "keel/Record/Recording.h"
#include "keel/Support/Diagnostics.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace keel {

/// The first line of every sample file.
inline constexpr const char *SampleFileMagic = "# keel-samples v1";

/// Write \p R as a keel-samples v1 file (deterministic: records in the
/// PerfRecording's order).
void writeSampleFile(const PerfRecording &R, llvm::raw_ostream &OS);

/// Parse a keel-samples file; errors are InputErrors naming file:line.
llvm::Expected<PerfRecording> readSampleFile(llvm::StringRef Text,
                                         llvm::StringRef FileName);

/// The recording as `perf script -F pid,tid,time,ip,brstack --ns
/// --show-mmap-events` prints it (executable MMAP2 lines first, then one
/// line per sample), for tools that read perf script text (readPerfScript,
/// llvm-profgen). Branch types are not part of that syntax.
void exportPerfScript(const PerfRecording &R, llvm::raw_ostream &OS);

/// The part of \p R that ran in \p Bin, at link-time addresses: a mapping
/// belongs to \p Bin when its build id matches, or else its path (or file
/// name) does. Branch ends and IPs elsewhere become 0 in Samples and are
/// counted in \p Quality; taken branches with both ends in \p Bin are
/// aggregated, and fall-through ranges between consecutive records are
/// added only when the filter recorded every taken branch ("any"). A
/// mapping is \p Bin's when its path is \p PathInProfile (unless its build
/// id is known and another), else by build id, else by the file at its path
/// (Bin, or a file with Bin's build id), else by file name.
AddressProfile toAddressProfile(const PerfRecording &R, const class Binary &Bin,
                                QualityReport &Quality,
                                llvm::StringRef PathInProfile = "");

} // namespace keel

#endif
