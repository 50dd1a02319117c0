//===- keel/LinkRecord/LinkRecord.h - a link command saved beside its binary -*- C++ -*-===//
//
// layout-link (tools/layout-link) runs a link command and, when it succeeds,
// saves how the binary was linked in <binary>.keel-link.json:
//
//   {"version": 1, "tool": "layout-link", "cwd": "/abs/dir",
//    "argv": ["clang-22", "-fuse-ld=lld", "a.o", "b.o", "-o", "app"],
//    "output": "app", "sha1": "<40 hex digits of the linked binary>"}
//
// "argv" is the command as run with its @response files expanded (clang
// @plan/link.rsp): the words they held take their place, as clang and
// ld.lld read them, so the record names the -o, -T and --defsym words
// inside them, and keeps working when the file is rewritten later. The
// files read are listed in "response_files" (only when there are any).
//
// A later bare `layout-sweep ./app` reads it (Auto.h) and relinks variants
// with a pad, after checking that the binary is still the one that link
// wrote (its SHA-1): a binary rebuilt without the wrapper has a stale record.
//
//===----------------------------------------------------------------------===//
#ifndef KEEL_LINKRECORD_LINKRECORD_H
#define KEEL_LINKRECORD_LINKRECORD_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace keel {
namespace sweep {

inline constexpr int LinkRecordVersion = 1;

struct LinkRecord {
  std::string Cwd;               ///< absolute directory the link ran in
  std::vector<std::string> Argv; ///< the link command, as run
  std::string Output;            ///< the output word of Argv (as written there)
  std::string SHA1;              ///< hex SHA-1 of the binary the link wrote
  std::vector<std::string> ResponseFiles; ///< @files expanded into Argv
};

/// \p Argv with every @FILE argument replaced by the words FILE holds (GNU
/// quoting, nested @files too, names relative to \p Cwd), as clang and
/// ld.lld expand them; an @FILE that does not exist stays (they keep it
/// too). \p Files gets the files read. InputError when one cannot be read.
llvm::Expected<std::vector<std::string>>
expandResponseFiles(llvm::ArrayRef<std::string> Argv, llvm::StringRef Cwd,
                    std::vector<std::string> &Files);

/// Where the record of \p Binary lives: "<Binary>.keel-link.json".
std::string linkRecordPath(llvm::StringRef Binary);

/// The output file named by a link command: the word after "-o", or
/// "-oFILE"; "a.out" when there is none (the compiler drivers' default).
std::string linkOutput(llvm::ArrayRef<std::string> Argv);

/// Hex SHA-1 of a file's bytes.
llvm::Expected<std::string> fileSHA1(llvm::StringRef Path);

/// Write \p R as JSON to \p Path (temporary name, then renamed).
llvm::Error writeLinkRecord(llvm::StringRef Path, const LinkRecord &R);

/// Read a record; InputError naming the file when it is not one.
llvm::Expected<LinkRecord> readLinkRecord(llvm::StringRef Path);

} // namespace sweep
} // namespace keel

#endif
